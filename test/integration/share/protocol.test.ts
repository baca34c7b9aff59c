/** The share protocol against the real sandbox over HTTP: claims, heartbeats, takeover, records, calls. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShareBatchRecord, Takeover } from '../../../electron/engine/share/api.js';
import { defaultCoordinationFolder, MARKER_BATCH } from '../../../electron/engine/share/default-folder.js';
import { serviceShareFiles } from '../../../electron/engine/share/files.js';
import { createShare, type ShareAgent } from '../../../electron/engine/share/protocol.js';
import { parseFaultSpec } from '../../../sandbox/faults.js';
import { clientEnv, type ClientEnv } from '../client/env.js';
import { waitFor } from '../../helpers/sandbox.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const LEASE = { leaseMs: 1500, heartbeatMs: 300 };

let env: ClientEnv;
let n = 0;

beforeAll(async () => {
  env = await clientEnv();
});
afterAll(() => env.close());

/** A new share (own name, so tests do not meet) with agents on their own clients. */
function agents(count: number, settings = LEASE): ShareAgent[] {
  const name = `share-${++n}`;
  return Array.from({ length: count }, (_, i) => createShare(
    serviceShareFiles(env.client()),
    { name, coordinationFolder: 'svc-drive/shared/docsync', ...settings },
    { id: `host${i}-0000000${i}`, name: `agent ${String.fromCharCode(65 + i)}`, host: `host${i}`, pid: 100 + i },
  ));
}

const record = (name: string, shas: string[], extra: Partial<ShareBatchRecord> = {}): ShareBatchRecord => ({
  name, plan: '{"target":"x"}', serviceBatchId: null, servicePath: null, run: null,
  files: shas.map((s, i) => ({ sha256: s, rel: `in/${i}.pdf`, safeName: `${i}.pdf`, size: 10 + i, mtimeMs: 1000 + i, uploaded: false })),
  ...extra,
});

describe('share protocol over the sandbox', () => {
  it('two agents claim the same contents at once: exactly one wins each, the other sees who holds it', async () => {
    const [a, b] = agents(2) as [ShareAgent, ShareAgent];
    await Promise.all([a.start(), b.start()]);
    const contents = Array.from({ length: 12 }, (_, i) => sha(`same-${i}`));
    const outcomes = await Promise.all(contents.flatMap((s) => [a.claim(s, 'x.pdf', 5).then((o) => ({ who: 'A', s, o })), b.claim(s, 'x.pdf', 5).then((o) => ({ who: 'B', s, o }))]));
    for (const s of contents) {
      const both = outcomes.filter((x) => x.s === s);
      const won = both.filter((x) => x.o.kind === 'won');
      expect(won, `content ${s}`).toHaveLength(1);
      const lost = both.find((x) => x.o.kind !== 'won');
      expect(lost?.o).toEqual({ kind: 'held', holderId: won[0]!.who === 'A' ? a.agentId : b.agentId, holderName: won[0]!.who === 'A' ? 'agent A' : 'agent B' });
    }
    await Promise.all([a.stop(), b.stop()]);
  });

  it('heartbeats are seen by each other: the fleet lists both, fresh', async () => {
    const [a, b] = agents(2) as [ShareAgent, ShareAgent];
    await Promise.all([a.start(), b.start()]);
    await a.claim(sha('in-flight'), 'f.pdf', 3);
    await a.beat();
    await b.poll();
    const fleet = b.fleet();
    expect(fleet.map((f) => [f.name, f.host, f.self, f.stale])).toEqual([['agent B', 'host1', true, false], ['agent A', 'host0', false, false]]);
    expect(fleet[1]!.inFlight).toBe(1);
    // Changes of A's seq are timed on B's clock.
    await waitFor(async () => (await b.poll(), b.fleet()[1]!.lastHeartbeatMs !== null), 'a change of A\'s heartbeat seen by B', 5000);
    expect(Math.abs(b.fleet()[1]!.lastHeartbeatMs! - Date.now())).toBeLessThan(2000);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('a stopped agent\'s claim and batch are taken over after the lease; it gives them up when it wakes', async () => {
    const [a, b, c] = agents(3) as [ShareAgent, ShareAgent, ShareAgent];
    await Promise.all([a.start(), b.start(), c.start()]);
    const alone = sha('alone');
    const inBatch = [sha('b1'), sha('b2'), sha('b3')];
    for (const s of [alone, ...inBatch]) expect((await a.claim(s, 'in/x.pdf', 4)).kind).toBe('won');
    const rec = record('batch-1', inBatch);
    await a.batched(rec);
    const progressed = { ...rec, serviceBatchId: '42', servicePath: 'svc-drive/workspaces/personal-admin/batches/42', files: rec.files.map((f, i) => ({ ...f, uploaded: i === 0 })) };
    await a.updateBatch(progressed);
    expect(await a.stillMineBatch('batch-1')).toBe(true);
    for (const s of [alone, ...inBatch]) {
      expect((await b.claim(s, 'in/x.pdf', 4)).kind).toBe('held');
      b.watch(s, 'in/x.pdf');
      expect((await c.claim(s, 'in/x.pdf', 4)).kind).toBe('held');
      c.watch(s, 'in/x.pdf');
    }
    await a.stop(); // A stops beating: as if killed or paused
    const stoppedAt = Date.now();
    const lastBeat = a.fleet()[0]!.lastHeartbeatMs!; // when A's last heartbeat write began

    const takeovers: Takeover[] = [];
    const who = new Map<string, string>();
    await waitFor(async () => {
      const [nb, nc] = await Promise.all([b.poll(), c.poll()]);
      for (const t of nb.takeovers) (takeovers.push(t), who.set(t.kind === 'content' ? t.sha256 : t.record.name, 'B'));
      for (const t of nc.takeovers) (takeovers.push(t), who.set(t.kind === 'content' ? t.sha256 : t.record.name, 'C'));
      return takeovers.length >= 2;
    }, 'both takeovers', 10_000);
    const takenAt = Date.now();
    // Judged by the observers' clocks: never before a full lease after A's last heartbeat, and soon after.
    expect(takenAt - lastBeat).toBeGreaterThanOrEqual(LEASE.leaseMs);
    expect(takenAt - stoppedAt).toBeLessThan(LEASE.leaseMs + 4 * LEASE.heartbeatMs + 1500);
    expect(takeovers).toHaveLength(2);
    const content = takeovers.find((t) => t.kind === 'content');
    expect(content).toEqual({ kind: 'content', sha256: alone, rel: 'in/x.pdf' });
    const batch = takeovers.find((t) => t.kind === 'batch');
    expect(batch).toEqual({ kind: 'batch', record: progressed, dropped: [] });
    const batchTaker = who.get('batch-1') === 'B' ? b : c;
    const other = batchTaker === b ? c : b;
    for (const s of inBatch) expect(await batchTaker.stillMine(s)).toBe(true);
    expect(await batchTaker.stillMineBatch('batch-1')).toBe(true);
    for (const s of inBatch) expect(await other.stillMine(s)).toBe(false);

    // A wakes: its next re-read fences (heartbeat first; it lapsed, so it keeps still for lease -
    // heartbeat, beating meanwhile, until no taker can act on an older look) and finds that
    // everything moved on.
    const before = a.calls();
    const wokeAt = performance.now();
    expect(await a.stillMine(alone)).toBe(false);
    expect(performance.now() - wokeAt).toBeGreaterThanOrEqual(LEASE.leaseMs - LEASE.heartbeatMs);
    expect(await a.stillMineBatch('batch-1')).toBe(false);
    for (const s of inBatch) expect(await a.stillMine(s)).toBe(false);
    const after = a.calls();
    expect(after.overwrite! - before.overwrite!).toBeGreaterThanOrEqual(1); // the fencing heartbeats
    // Its late progress neither overwrites the taker's record nor finishes what it no longer holds.
    await a.updateBatch({ ...progressed, run: 'run-of-A' });
    await a.finished(inBatch[0]!, 'done', null);
    const stored = async (): Promise<unknown> => JSON.parse(Buffer.from((await env.client().readFile(`${a.base}/batches/batch-1.json`)).data).toString('utf8'));
    expect(await stored()).toMatchObject({ run: null, agent: batchTaker.agentId, gen: 2 });
    await batchTaker.updateBatch({ ...progressed, run: 'run-7' });
    expect(await stored()).toMatchObject({ run: 'run-7', agent: batchTaker.agentId, gen: 2 });
    await batchTaker.finished(inBatch[0]!, 'done', null);
    await batchTaker.finished(inBatch[1]!, 'failed', 'The document could not be read.');
    for (const s of inBatch.slice(0, 2)) expect(await batchTaker.stillMine(s)).toBe(true);
    await Promise.all([b.stop(), c.stop()]);
  });

  it('finished contents are skipped by everyone with who did it and why; progress and batch records round-trip', async () => {
    const [a, b] = agents(2) as [ShareAgent, ShareAgent];
    await Promise.all([a.start(), b.start()]);
    const [x, y] = [sha('fin-x'), sha('fin-y')];
    await a.claim(x, 'scans/x.pdf', 9);
    await a.claim(y, 'scans/y.pdf', 9);
    b.watch(x, 'scans/x.pdf');
    const rec = record('fin-batch', [x, y], { run: 'run-1', serviceBatchId: '7' });
    await a.batched(rec);
    await a.updateBatch(rec);
    await a.finished(x, 'done', null);
    await a.finished(y, 'failed', 'No pages could be read.');
    expect(await b.claim(x, 'scans/x.pdf', 9)).toEqual({ kind: 'finished', holderId: a.agentId, holderName: 'agent A', outcome: 'done', reason: null });
    expect(await b.claim(y, 'scans/y.pdf', 9)).toEqual({ kind: 'finished', holderId: a.agentId, holderName: 'agent A', outcome: 'failed', reason: 'No pages could be read.' });
    const news = await b.poll(); // x was watched: its finish is news
    expect(news.finished).toEqual([{ sha256: x, holderName: 'agent A', outcome: 'done', reason: null }]);

    const read = async (path: string): Promise<unknown> => JSON.parse(Buffer.from((await env.client().readFile(`${a.base}/${path}`)).data).toString('utf8'));
    expect(await read(`claims/${y}/progress.json`)).toMatchObject({ agent: a.agentId, name: 'agent A', stage: 'failed', reason: 'No pages could be read.', batch: 'fin-batch', gen: 3 });
    expect(await read('batches/fin-batch.json')).toEqual({ ...rec, agent: a.agentId, gen: 1 });
    expect(await read(`claims/${x}/2.json`)).toMatchObject({ agent: a.agentId, state: 'batched', batch: 'fin-batch', batchGen: 1, rel: 'scans/x.pdf' });
    await Promise.all([a.stop(), b.stop()]);
  });

  it('counts its calls by kind: one conditional create per claim won', async () => {
    const [a] = agents(1) as [ShareAgent];
    await a.start();
    const base = a.calls();
    for (let i = 0; i < 5; i++) await a.claim(sha(`count-${i}`), `c${i}.pdf`, 1);
    const after = a.calls();
    expect(after.create! - base.create!).toBe(5);
    expect(after.read! + after.list! + after.exists!).toBe(base.read! + base.list! + base.exists!);
    await a.stop();
  });

  it('calls per file by design: 6 for the holder (batches of 5, two batch updates each), 3 for each other agent that sees the file', async () => {
    const [a, b] = agents(2, { leaseMs: 60_000, heartbeatMs: 5_000 }) as [ShareAgent, ShareAgent];
    await Promise.all([a.start(), b.start()]);
    const files = Array.from({ length: 20 }, (_, i) => sha(`per-file-${i}`));
    const before = { a: a.calls(), b: b.calls() };
    for (const f of files) expect((await a.claim(f, `${f}.pdf`, 1)).kind).toBe('won');
    for (const f of files) expect((await b.claim(f, `${f}.pdf`, 1)).kind).toBe('held');
    for (let i = 0; i < files.length; i += 5) {
      const rec = record(`per-file-${i}`, files.slice(i, i + 5));
      await a.batched(rec);
      for (const f of rec.files) expect(await a.stillMine(f.sha256)).toBe(true); // before each upload
      await a.updateBatch({ ...rec, files: rec.files.map((f) => ({ ...f, uploaded: true })) });
      expect(await a.stillMineBatch(rec.name)).toBe(true); // before the run start
      await a.updateBatch({ ...rec, run: 'run-x' });
      for (const f of rec.files) {
        await a.finished(f.sha256, 'done', null);
        expect(await a.stillMine(f.sha256)).toBe(true); // before the archive move
      }
    }
    const delta = (now: Record<string, number>, was: Record<string, number>) => Object.fromEntries(Object.keys(now).map((k) => [k, now[k]! - (was[k] ?? 0)]));
    const holder = delta(a.calls(), before.a);
    const other = delta(b.calls(), before.b);
    expect(holder).toEqual({ create: 20 + 4 + 20 + 20, overwrite: 4 + 8 + 20, read: 0, exists: 20 + 4, list: 0 });
    expect(other).toEqual({ create: 20, overwrite: 0, read: 20, exists: 0, list: 20 });
    const perFile = (c: Record<string, number>) => Object.values(c).reduce((x, y) => x + y, 0) / files.length;
    expect(perFile(holder)).toBe(6);
    expect(perFile(other)).toBe(3);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('a release lets another agent claim the content again', async () => {
    const [a, b] = agents(2) as [ShareAgent, ShareAgent];
    await Promise.all([a.start(), b.start()]);
    const x = sha('released');
    await a.claim(x, 'r.pdf', 1);
    expect((await b.claim(x, 'r.pdf', 1)).kind).toBe('held');
    await a.release(x);
    expect(await b.claim(x, 'r.pdf', 1)).toEqual({ kind: 'won', gen: 3 });
    expect(await a.stillMine(x)).toBe(false);
    await Promise.all([a.stop(), b.stop()]);
  });
});

describe('share files under faults', () => {
  let faulty: ClientEnv;
  beforeAll(async () => {
    // Resets after the body make creates take effect without an answer: the ambiguous case.
    faulty = await clientEnv({ faults: parseFaultSpec('5xx=0.1,reset=0.25,seed=11') });
  });
  afterAll(() => faulty.close());

  it('20 parallel conditional creates of records of one size from 20 clients: exactly one is told it created', async () => {
    for (let round = 0; round < 5; round++) {
      const path = `svc-drive/shared/race/${round}.json`;
      const all = await Promise.all(Array.from({ length: 20 }, (_, i) => {
        const files = serviceShareFiles(faulty.client('admin-token', { retry: { limit: 12, baseDelayMs: 2, maxDelayMs: 20, maxRetryAfterMs: 5000 } }));
        return files.create(path, Buffer.from(JSON.stringify({ agent: `agent-${String(i).padStart(2, '0')}` })));
      }));
      expect(all.filter((r) => r === 'created'), `round ${round}`).toHaveLength(1);
    }
  });
});

describe('default coordination folder', () => {
  it('every agent of one account derives the same folder, and only one marker batch is left in use', async () => {
    const clients = [env.client('member-token', { username: 'member' }), env.client('member-token', { username: 'member' }), env.client('member-token')];
    const folders = await Promise.all(clients.map((c) => defaultCoordinationFolder(c)));
    expect(new Set(folders).size).toBe(1);
    expect(folders[0]).toBe('svc-drive/workspaces/personal-member/docsync-shares');
    const again = await defaultCoordinationFolder(clients[0]!);
    expect(again).toBe(folders[0]);
    const markers = (await clients[0]!.listBatches({ username: 'member' })).batches.filter((b) => b.name === MARKER_BATCH);
    expect(markers.length).toBeGreaterThanOrEqual(1);
    // The folder is usable: a share there works.
    const s = createShare(serviceShareFiles(clients[0]!), { name: 'default-home', coordinationFolder: again, ...LEASE }, { id: 'm-1', name: 'm', host: 'h' });
    await s.start();
    expect((await s.claim(sha('default'), 'd.pdf', 1)).kind).toBe('won');
    await s.stop();
  });

  it('a service account without a personal workspace gets a clear error that names the remedy', async () => {
    await expect(defaultCoordinationFolder(env.client('service-token'))).rejects.toThrow(/Give the share a coordination folder/);
  });
});
