// Shared hot folders, the engine's side (issue 15): two engines in one process, each with its own
// data home and SQLite store, watch ONE real folder and share it through the real sandbox over HTTP.
// Checked on the service itself (plain HTTP, not DocSync's client): every content uploaded once and
// run once, every file finished by exactly one agent, and an agent stopped mid-way taken over.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import { Engine } from '../../../electron/engine/engine.js';
import type { ShareFactory } from '../../../electron/engine/pipeline/shared-folder.js';
import { serviceShareFiles, type ShareFiles } from '../../../electron/engine/share/files.js';
import { defaultCoordinationFolder } from '../../../electron/engine/share/default-folder.js';
import { createShare } from '../../../electron/engine/share/protocol.js';
import { ServiceClient } from '../../../electron/engine/service/index.js';
import { openStore, STORE_FILE, type FileRow, type Store } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { shareFactory } from '../../helpers/share.js';
import { waitUntil } from '../../helpers/wait.js';

const LEASE_MS = 2000;
const HEARTBEAT_MS = 400;
const SHARE = { name: 'office', leaseMs: LEASE_MS, heartbeatMs: HEARTBEAT_MS };
/** A whole flow over the real sandbox, two engines on a shared 2-core machine: more than the default 30 s under load. */
const FLOW_MS = 120_000;

interface Agent { name: string; engine: Engine; store: Store; client: ServiceClient; stopped: boolean }

let sb: RunningSandbox | undefined;
let root: string | undefined;
let agents: Agent[] = [];
afterEach(async () => {
  for (const a of agents) {
    if (!a.stopped) await a.engine.stop();
    a.client.close();
    a.store.close();
  }
  agents = [];
  await sb?.close();
  sb = undefined;
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

const sha256 = (b: string | Uint8Array): string => createHash('sha256').update(b).digest('hex');
const invoice = (n: number): string => invoiceText({ invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: `${n}.50`, vendor: `Vendor ${n}` });

async function setUp(sbOpts = {}): Promise<{ inbox: string; share: ShareFactory }> {
  sb = await sandbox(sbOpts);
  root = await mkdtemp(join(tmpdir(), 'docsync-shared-'));
  const inbox = join(root, 'inbox');
  await mkdir(inbox, { recursive: true });
  return { inbox, share: shareFactory() };
}

/** An engine with its own data home and store, on the shared sandbox. */
async function agent(name: string, share: ShareFactory): Promise<Agent> {
  const home = join(root as string, `home-${name}`);
  const store = openStore(join(home, STORE_FILE));
  const client = new ServiceClient({ baseUrl: (sb as RunningSandbox).url, token: 'admin-token', retry: { limit: 8, baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 5000 } });
  const engine = new Engine({ store, client, home, share, agentName: name, poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } });
  const a = { name, engine, store, client, stopped: false };
  agents.push(a);
  await engine.start();
  return a;
}

const folderSettings = (inbox: string, batching: Record<string, number> = {}) => ({
  path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, batching: { ...FAST_FOLDER.batching, maxFiles: 6, ...batching }, share: SHARE,
});

/** A share whose requests to the service go through `wrap` for the agent named `who` (the others: the usual share). */
const shareWrapped = (who: string, wrap: (files: ShareFiles) => ShareFiles): ShareFactory => async (o) => {
  if (o.agentName !== who) return shareFactory()(o);
  const coordinationFolder = o.settings.coordinationFolder || (await defaultCoordinationFolder(o.client));
  return createShare(wrap(serviceShareFiles(o.client)), { ...o.settings, coordinationFolder }, { id: o.agentId, name: o.agentName, host: hostname(), pid: process.pid });
};

const rows = (a: Agent, name: string): FileRow[] => a.store.files.list().filter((f) => f.originalName === name);
const FINAL = new Set(['done', 'failed', 'skipped']);

// ---- the service's side, read with plain HTTP ---------------------------------------------------

async function api<T>(path: string): Promise<T> {
  const res = await fetch((sb as RunningSandbox).url + path, { headers: { Authorization: 'Bearer admin-token' } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Node { full_path: string; name: string }
async function batchFiles(batchId: number): Promise<Node[]> {
  const nodes: Node[] = [];
  let token: string | undefined;
  do {
    const page = await api<{ nodes?: Node[]; has_more?: boolean; next_page_token?: string }>(`/v2/batches/${batchId}/files?page_size=50${token ? `&start_token=${encodeURIComponent(token)}` : ''}`);
    nodes.push(...(page.nodes ?? []));
    token = page.has_more ? page.next_page_token : undefined;
  } while (token);
  return nodes;
}

async function bytesSha(fullPath: string): Promise<string> {
  const res = await fetch(`${(sb as RunningSandbox).url}/v2/files/${fullPath.split('/').map(encodeURIComponent).join('/')}?expect-node-type=file`, { headers: { Authorization: 'Bearer admin-token' } });
  if (res.status !== 200) throw new Error(`GET file ${fullPath}: ${res.status}`);
  return sha256(new Uint8Array(await res.arrayBuffer()));
}

/** How often each content sits in a service batch, and in a run's batch. */
async function serviceCounts(): Promise<{ uploads: Map<string, number>; runs: Map<string, number> }> {
  const { batches } = await api<{ batches: { id: number }[] }>('/v2/batches?limit=1000');
  const shasOf = new Map<number, string[]>();
  const uploads = new Map<string, number>();
  for (const b of batches) {
    const shas = await Promise.all((await batchFiles(b.id)).map((n) => bytesSha(n.full_path)));
    shasOf.set(b.id, shas);
    for (const s of shas) uploads.set(s, (uploads.get(s) ?? 0) + 1);
  }
  const runs = new Map<string, number>();
  for (let offset = 0; ; offset += 50) {
    const page = await api<{ runs: { batch_id?: number | null }[] }>(`/v2/apps/runs?deployment_id=sandbox-invoices&limit=50&offset=${offset}`);
    for (const r of page.runs) for (const s of shasOf.get(r.batch_id ?? -1) ?? []) runs.set(s, (runs.get(s) ?? 0) + 1);
    if (page.runs.length < 50) break;
  }
  return { uploads, runs };
}

/** Every content exactly once in the service's batches and in its runs. */
async function expectOnceEach(contents: string[]): Promise<void> {
  const { uploads, runs } = await serviceCounts();
  expect([...uploads.keys()].sort()).toEqual([...contents].sort());
  expect([...uploads.entries()].filter(([, n]) => n !== 1)).toEqual([]);
  expect([...runs.keys()].sort()).toEqual([...contents].sort());
  expect([...runs.entries()].filter(([, n]) => n !== 1)).toEqual([]);
}

describe('two agents, one shared folder', () => {
  it('split 40 files between them, each content uploaded and run once; a duplicate is skipped as processed by the other agent', async () => {
    const { inbox, share } = await setUp();
    const alpha = await agent('alpha', share);
    const beta = await agent('beta', share);
    const fa = await alpha.engine.addFolder(folderSettings(inbox));
    const fb = await beta.engine.addFolder(folderSettings(inbox));
    const names = Array.from({ length: 40 }, (_, i) => `invoice-${i + 1}.txt`);
    const contents = names.map((_, i) => invoice(i + 1));
    for (const [i, n] of names.entries()) await writeFile(join(inbox, n), contents[i] as string);

    // Every file done at exactly one agent, and skipped at the other with that agent's name.
    const doneAt = (n: string): Agent[] => [alpha, beta].filter((a) => rows(a, n).some((f) => f.state === 'done'));
    const settled = (n: string): boolean => doneAt(n).length === 1 && [alpha, beta].every((a) => rows(a, n).some((f) => FINAL.has(f.state)));
    // On a timeout: each file not settled, as each agent has it (a stuck file and a slow run differ there).
    const unsettled = (): string => names.filter((n) => !settled(n)).map((n) => `${n} ${[alpha, beta].map((a) => `${a.name}=${rows(a, n).map((f) => f.state).join('+') || 'none'}`).join(' ')}`).join('; ');
    await waitUntil(() => names.every(settled), 'every file is finished by one agent and seen finished by the other', 60_000, unsettled);
    for (const n of names) {
      const holder = doneAt(n)[0] as Agent;
      const other = holder === alpha ? beta : alpha;
      expect(rows(other, n).map((f) => [f.state, f.error])).toEqual([['skipped', `Processed by agent ${holder.name}`]]);
    }
    const doneBy = (a: Agent): number => a.store.files.list({ state: 'done' }).length;
    expect(doneBy(alpha) + doneBy(beta)).toBe(40);
    // Both took a share of the work (the claims race file by file).
    expect(doneBy(alpha)).toBeGreaterThan(0);
    expect(doneBy(beta)).toBeGreaterThan(0);
    await expectOnceEach(contents.map(sha256));

    // The same content under another name: the agent that processed it knows it locally, the other
    // one learns it from the share, and neither uploads it again.
    const holder = doneAt('invoice-7.txt')[0] as Agent;
    const other = holder === alpha ? beta : alpha;
    await writeFile(join(inbox, 'copy of invoice 7.txt'), contents[6] as string);
    await waitUntil(() => [alpha, beta].every((a) => rows(a, 'copy of invoice 7.txt').some((f) => FINAL.has(f.state))), 'the copy is settled at both agents');
    expect(rows(other, 'copy of invoice 7.txt').map((f) => [f.state, f.error])).toEqual([['skipped', `Processed by agent ${holder.name}`]]);
    expect(rows(holder, 'copy of invoice 7.txt').map((f) => f.state)).toEqual(['skipped']);
    await expectOnceEach(contents.map(sha256));

    // Two files of one new content at once: one upload, one run, both files settled at both agents.
    const twin = invoice(999);
    await Promise.all([writeFile(join(inbox, 'twin-a.txt'), twin), writeFile(join(inbox, 'twin-b.txt'), twin)]);
    const twins = ['twin-a.txt', 'twin-b.txt'];
    await waitUntil(() => [alpha, beta].every((a) => twins.every((n) => rows(a, n).some((f) => FINAL.has(f.state)))), 'both twins are settled at both agents');
    expect([alpha, beta].flatMap((a) => twins.flatMap((n) => rows(a, n).filter((f) => f.state === 'done'))).length).toBe(1);
    await expectOnceEach([...contents, twin].map(sha256));

    // The fleet: both agents, each once, none stale, as each engine sees it, and as it stores it for `docsync status`.
    for (const [a, folder] of [[alpha, fa], [beta, fb]] as const) {
      const fleet = a.engine.fleet(folder.id);
      expect(fleet.map((x) => [x.name, x.self, x.stale]).sort()).toEqual([['alpha', a === alpha, false], ['beta', a === beta, false]]);
      await waitUntil(() => a.store.share.fleet().length === 2, 'the fleet is stored');
      expect(a.store.share.fleet().map((x) => [x.folderId, x.name, x.self])).toEqual([[folder.id, a.name, true], [folder.id, a === alpha ? 'beta' : 'alpha', false]]);
    }
    await Promise.all([alpha.engine.idle(20_000), beta.engine.idle(20_000)]);
    // Calls to the service's files for the share, both agents together, per file that arrived (43).
    const calls = [[alpha, fa], [beta, fb]].flatMap(([a, f]) => Object.values((a as Agent).engine.shareCalls((f as { id: number }).id))).reduce((x, y) => x + y, 0);
    console.log(`share calls: ${calls} for 43 files, ${(calls / 43).toFixed(1)} per file (two agents)`);
    expect(calls).toBeGreaterThan(43);
  }, FLOW_MS);

  it('an agent stopped mid-way (no finishing) has its claimed and batched files taken over within lease + heartbeat; no run starts twice', async () => {
    // Slow pages keep runs going for a while, so the stop finds batches uploaded and running.
    const { inbox, share } = await setUp({ pageDelayMs: 150 });
    const alpha = await agent('alpha', share);
    const beta = await agent('beta', share);
    await alpha.engine.addFolder(folderSettings(inbox, { maxFiles: 4, quietMs: 1200, minQuietMs: 1200 }));
    await beta.engine.addFolder(folderSettings(inbox, { maxFiles: 4, quietMs: 1200, minQuietMs: 1200 }));
    const names = Array.from({ length: 32 }, (_, i) => `scan-${i + 1}.txt`);
    const contents = names.map((_, i) => invoice(100 + i));
    // A first wave, until alpha has a run going; then a second wave, until alpha holds some of it
    // claimed in its open batch (which waits 1.2 s for more files): then alpha stops, finishing nothing.
    for (const [i, n] of names.slice(0, 12).entries()) await writeFile(join(inbox, n), contents[i] as string);
    await waitUntil(() => alpha.store.files.list().some((f) => f.state === 'running'), 'alpha has a run going', 30_000);
    for (const [i, n] of names.slice(12).entries()) await writeFile(join(inbox, n), contents[12 + i] as string);
    // (20 files: the claims race file by file, so alpha wins some of them.)
    await waitUntil(() => names.slice(12).some((n) => rows(alpha, n).some((f) => ['queued', 'uploading', 'uploaded'].includes(f.state))), 'alpha has claimed a file of the second wave', 30_000);
    const alphaOpen = (): FileRow[] => alpha.store.files.list().filter((f) => ['queued', 'uploading', 'uploaded', 'running'].includes(f.state));
    await alpha.engine.stop();
    alpha.stopped = true;
    const stoppedAt = Date.now();
    const leftOver = alphaOpen();
    // A run going, and files claimed but not yet in a run.
    expect(leftOver.filter((f) => f.state === 'running').length).toBeGreaterThan(0);
    expect(leftOver.filter((f) => f.state !== 'running').length).toBeGreaterThan(0);

    // Beta takes each of them over (its rows leave 'elsewhere') and finishes them.
    const left = new Set(leftOver.map((f) => f.originalName));
    await waitUntil(() => names.every((n) => rows(beta, n).some((f) => f.state === 'done') || rows(alpha, n).some((f) => f.state === 'done')), 'every file is done at one of the two', 60_000);
    for (const n of left) expect(rows(beta, n).map((f) => f.state)).toContain('done');
    // When beta first took one over: within the lease plus one heartbeat of alpha's stop, plus what
    // the takeover itself takes (its requests to the service and storing it here, on a shared 2-core
    // machine, beside other test files): allowed 1.5 s (measured 2.2-2.9 s alone, 3.4 s under the
    // whole engine suite). Waiting for a second lease (4.4 s and more) fails this.
    const takenAt = Math.min(...[...left].flatMap((n) => rows(beta, n).flatMap((f) => beta.store.files.history(f.id).filter((e) => e.fromState === 'elsewhere' && e.atMs >= stoppedAt).map((e) => e.atMs))));
    console.log(`taken over ${takenAt - stoppedAt} ms after the stop (lease ${LEASE_MS} ms, heartbeat ${HEARTBEAT_MS} ms)`);
    expect(takenAt - stoppedAt).toBeLessThanOrEqual(LEASE_MS + HEARTBEAT_MS + 1500);
    await expectOnceEach(contents.map(sha256));
    // Nothing of the taken-over files is left in the inbox's way: all are still there (keep is the default), none lost.
    expect((await readdir(inbox)).sort()).toEqual([...names].sort());
    await beta.engine.idle(20_000);
  }, FLOW_MS);

  it('an agent restarted on its data home takes its own claims and batches back: each content still uploaded and run once', async () => {
    const { inbox, share } = await setUp({ pageDelayMs: 100 });
    const alpha = await agent('alpha', share);
    const beta = await agent('beta', share);
    await alpha.engine.addFolder(folderSettings(inbox, { maxFiles: 4 }));
    await beta.engine.addFolder(folderSettings(inbox, { maxFiles: 4 }));
    const names = Array.from({ length: 16 }, (_, i) => `page-${i + 1}.txt`);
    const contents = names.map((_, i) => invoice(300 + i));
    for (const [i, n] of names.entries()) await writeFile(join(inbox, n), contents[i] as string);
    await waitUntil(() => alpha.store.files.list().some((f) => f.state === 'running' || f.state === 'uploaded'), 'alpha has a batch sent', 30_000);
    await alpha.engine.stop();
    // The same data home again (same store, same agent id), at once: well within its lease.
    const again = new Engine({ store: alpha.store, client: alpha.client, home: join(root as string, 'home-alpha'), share, agentName: 'alpha', poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } });
    alpha.engine = again;
    await again.start();
    await waitUntil(() => names.every((n) => [alpha, beta].some((a) => rows(a, n).some((f) => f.state === 'done'))), 'every file is done at one of the two', 60_000);
    await expectOnceEach(contents.map(sha256));
    await waitUntil(() => names.every((n) => [alpha, beta].every((a) => rows(a, n).some((f) => FINAL.has(f.state)))), 'every file is settled at both', 20_000);
  }, FLOW_MS);

  it('an agent stopped after the share heard a file was done but before the file was archived archives it after a restart', async () => {
    const { inbox, share } = await setUp();
    const archive = join(root as string, 'archive');
    const solo = await agent('solo', share);
    const settings = { ...folderSettings(inbox), afterSuccess: { action: 'archive', archiveDir: archive } };
    await solo.engine.addFolder(settings);
    await writeFile(join(inbox, 'late.txt'), invoice(501));
    await waitUntil(() => rows(solo, 'late.txt').some((f) => f.state === 'done'), 'late.txt is done');
    await solo.engine.stop();
    // As if the process had died between the two: the share says done, the store says running, the file is still in the inbox.
    const [row] = rows(solo, 'late.txt');
    solo.store.files.transition((row as FileRow).id, 'running');
    const archived = await readdir(archive);
    expect(archived).toEqual(['late.txt']);
    await rename(join(archive, 'late.txt'), join(inbox, 'late.txt'));
    const again = new Engine({ store: solo.store, client: solo.client, home: join(root as string, 'home-solo'), share, agentName: 'solo', poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } });
    solo.engine = again;
    await again.start();
    await waitUntil(() => solo.store.files.get((row as FileRow).id)?.state === 'done', 'late.txt is done again', 40_000);
    await waitUntil(async () => (await readdir(archive)).includes('late.txt'), 'late.txt is archived again');
    expect(await readdir(inbox)).toEqual([]);
    await expectOnceEach([sha256(invoice(501))]);
  }, FLOW_MS);

  it('two copies of one content dropped at once into a shared folder: one done, the other skipped as the same content, none left elsewhere (five times)', async () => {
    // The race the three-agent test found, made sure: the second copy's claim loses to the first's and
    // reads the claims back. Here that read-back answers only once the first copy is marked batched
    // (with what it listed before), and the re-checks before upload wait a little, so the read-back
    // lands between the two, as it did under load.
    const { inbox } = await setUp();
    const marked = new Map<string, () => void>();
    const markedOf = (folder: string): Promise<void> => new Promise((r) => marked.set(folder, r));
    const slowReadBack = shareWrapped('solo', (real) => ({
      ...real,
      create: async (p, d) => {
        const r = await real.create(p, d);
        if (p.endsWith('/2.json')) marked.get(p.slice(0, -'/2.json'.length))?.();
        return r;
      },
      overwrite: (p, d) => real.overwrite(p, d),
      read: (p) => real.read(p),
      exists: async (p) => {
        if (p.includes('/claims/') || p.includes('/batches/')) await new Promise((r) => setTimeout(r, 300));
        return real.exists(p);
      },
      calls: () => real.calls(),
      list: async (folder) => {
        const names = await real.list(folder);
        // Only the read-back of a claim made moments ago (gen 1 alone) waits; bounded, in case nothing marks it.
        if (folder.includes('/claims/') && names.length === 1) await Promise.race([markedOf(folder), new Promise((r) => setTimeout(r, 3000))]);
        return names;
      },
    }));
    const solo = await agent('solo', slowReadBack);
    await solo.engine.addFolder(folderSettings(inbox));
    for (let round = 1; round <= 5; round++) {
      const body = invoice(700 + round);
      const pair = [`pair-${round}-a.txt`, `pair-${round}-b.txt`];
      await Promise.all(pair.map((n) => writeFile(join(inbox, n), body)));
      await waitUntil(() => pair.every((n) => rows(solo, n).some((f) => FINAL.has(f.state))), `both copies of round ${round} are settled`, 40_000);
      const settled = pair.flatMap((n) => rows(solo, n));
      expect(settled.map((f) => f.state).sort()).toEqual(['done', 'skipped']);
      const done = settled.find((f) => f.state === 'done') as FileRow;
      expect(settled.find((f) => f.state === 'skipped')?.error).toBe(`Already processed: same content as ${done.originalName}\n${done.path}`);
    }
    expect(solo.store.files.list({ state: 'elsewhere' })).toEqual([]);
    await expectOnceEach(Array.from({ length: 5 }, (_, i) => sha256(invoice(701 + i))));
  }, FLOW_MS);

  it('an agent paused past its lease while its run goes on leaves the files its taker finished: skipped as processed by the taker, never done here', async () => {
    // The pause: every request of b's share waits (its heartbeat stops, as under SIGSTOP), while its
    // engine's run polling goes on; b's follower sees the run complete and reaches the share only on resume.
    let paused = false;
    let resume: () => void = () => undefined;
    let gate = Promise.resolve();
    const pausable = shareWrapped('b', (real) => new Proxy(real, {
      get: (t, k) => {
        const v = Reflect.get(t, k) as unknown;
        if (typeof v !== 'function') return v;
        return async (...args: unknown[]) => {
          while (paused) await gate;
          return (v as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    }));
    const { inbox } = await setUp({ pageDelayMs: 300 });
    const b = await agent('b', pausable);
    const c = await agent('c', pausable);
    await b.engine.addFolder(folderSettings(inbox, { maxFiles: 4 }));
    const names = Array.from({ length: 4 }, (_, i) => `paused-${i + 1}.txt`);
    const contents = names.map((_, i) => invoice(800 + i));
    for (const [i, n] of names.entries()) await writeFile(join(inbox, n), contents[i] as string);
    await waitUntil(() => names.every((n) => rows(b, n).some((f) => f.state === 'running')), 'b has its run going', 30_000);
    // c joins: the files are b's (elsewhere at c); then b is paused.
    await c.engine.addFolder(folderSettings(inbox, { maxFiles: 4 }));
    await waitUntil(() => names.every((n) => rows(c, n).some((f) => f.state === 'elsewhere')), 'c sees the files held by b', 20_000);
    gate = new Promise((r) => (resume = r));
    paused = true;
    await waitUntil(() => names.every((n) => rows(c, n).some((f) => f.state === 'done')), 'c took the batch over and finished it', 60_000);
    // b's run completed meanwhile: its follower waits on the share.
    paused = false;
    resume();
    await waitUntil(() => names.every((n) => rows(b, n).some((f) => FINAL.has(f.state))), 'b settled the files', 30_000);
    for (const n of names) expect(rows(b, n).map((f) => [f.state, f.error])).toEqual([['skipped', 'Processed by agent c']]);
    expect(b.store.files.list({ state: 'done' })).toEqual([]);
    await expectOnceEach(contents.map(sha256));
  }, FLOW_MS);

  it('a folder without a share is not touched by shares: no claim, no fleet, files done as before', async () => {
    const { inbox } = await setUp();
    let made = 0;
    const counting: ShareFactory = (o) => {
      made++;
      return shareFactory()(o);
    };
    const solo = await agent('solo', counting);
    const folder = await solo.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER });
    await writeFile(join(inbox, 'a.txt'), invoice(1));
    await waitUntil(() => solo.store.files.list().some((f) => f.state === 'done'), 'a.txt is done');
    await writeFile(join(inbox, 'b.txt'), invoice(1));
    await waitUntil(() => solo.store.files.list().filter((f) => FINAL.has(f.state)).length === 2, 'both files settled');
    expect(solo.store.files.list().map((f) => f.state).sort()).toEqual(['done', 'skipped']);
    expect(solo.store.files.list().find((f) => f.state === 'skipped')?.error).toMatch(/^Already processed: same content as/);
    expect(made).toBe(0);
    expect(solo.engine.fleet(folder.id)).toEqual([]);
    expect(solo.store.files.list().every((f) => f.handledBy === null)).toBe(true);
  }, FLOW_MS);
});
