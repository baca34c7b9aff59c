/**
 * Soak under faults (issue 3, "Tests"): with the sandbox injecting `5xx=0.1,429=0.05,reset=0.02`
 * (seeded), several hundred calls through the client (batch creates, single PUTs, multipart
 * uploads, deployment runs with their waiter, results, gets and lists, reads) must each end either
 * correct or failed with a typed ServiceError, never any other exception. Afterwards, with faults
 * switched off, every file the client reported uploaded is byte-equal on the service side, and the
 * sandbox's database (the ground truth: it runs in this process) holds each batch and run the
 * client reported created exactly once, and nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError, type ServiceClient } from '../../../electron/engine/service/index.js';
import { parseFaultSpec, type FaultSpec } from '../../../sandbox/index.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { batchFilePath, clientEnv, type ClientEnv } from './env.js';

const PART = 64 * 1024;
const FAULTS = '5xx=0.1,429=0.05,reset=0.02,seed=7';
const BATCHES = 10;
const SMALL_PER_BATCH = 6;
const MULTIPART = 6;
const RUNS = 5;
const READ_ROUNDS = 6;
const wait = { initialDelayMs: 10, maxDelayMs: 50, timeoutMs: 15_000 };

let env: ClientEnv;
let client: ServiceClient;
const injector = (): { spec: FaultSpec; counts: Record<string, number> } => env.sb.faults as { spec: FaultSpec; counts: Record<string, number> };

beforeAll(async () => {
  env = await clientEnv({ faults: parseFaultSpec(FAULTS), partSize: PART });
  client = env.client('admin-token', { username: 'admin' });
});
afterAll(() => env.close());

/** Every client call made under faults, and how it ended. */
const tally = { calls: 0, ok: 0, typed: new Map<string, number>(), wrong: [] as string[], untyped: [] as string[] };

/** Makes one client call: it must either return a value that `correct` accepts, or throw a ServiceError. */
async function track<T>(op: string, fn: () => Promise<T>, correct: (v: T) => boolean): Promise<T | undefined> {
  tally.calls++;
  let v: T;
  try {
    v = await fn();
  } catch (e) {
    if (e instanceof ServiceError) {
      const key = `${op}:${e.kind}${e.status ? `:${e.status}` : ''}`;
      tally.typed.set(key, (tally.typed.get(key) ?? 0) + 1);
    } else {
      tally.untyped.push(`${op}: ${String(e)}`);
    }
    return undefined;
  }
  if (correct(v)) tally.ok++;
  else tally.wrong.push(`${op}: ${JSON.stringify(v).slice(0, 300)}`);
  return v;
}

describe(`several hundred client calls under faults ${FAULTS} (issue 3)`, () => {
  it('every call is correct or a typed ServiceError; uploads byte-equal; no duplicate batches or runs', async () => {
    const t0 = Date.now();
    // Local fixtures (no service calls).
    const small = await Promise.all(
      Array.from({ length: BATCHES * SMALL_PER_BATCH }, (_, i) =>
        i % SMALL_PER_BATCH === 0
          ? env.file(`s${i}.txt`, Buffer.from(invoiceText({ invoiceNumber: `S-${i}`, invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: `$${i}.00`, vendor: 'Soak' })))
          : env.file(`s${i}.bin`, 500 + ((i * 977) % 20_000)),
      ),
    );
    const big = await Promise.all(Array.from({ length: MULTIPART }, (_, i) => env.file(`m${i}.bin`, (2 + (i % 3)) * PART + 37 * i + 1)));

    // 1. Batches, each with a unique name.
    const created = new Map<string, number>();
    await Promise.all(
      Array.from({ length: BATCHES }, async (_, i) => {
        const name = `soak-${i}`;
        const r = await track('createBatch', () => client.createBatch({ name, workspace: 'team' }), (b) => Number.isInteger(b.id) && b.id > 0);
        if (r) created.set(name, r.id);
      }),
    );
    const batchIds = [...created.values()];

    // 2. Uploads: small files by single PUT, bigger ones by multipart (2-4 parts each).
    const uploaded: { batch: number; name: string; data: Buffer }[] = [];
    await Promise.all(
      small.map(async (f, i) => {
        const batch = batchIds[Math.floor(i / SMALL_PER_BATCH) % batchIds.length];
        if (batch === undefined) return;
        const name = f.path.split('/').pop() as string;
        const r = await track('putBatchFile', () => client.putBatchFile(batch, name, f.path), (x) => x.size === f.data.length);
        if (r) uploaded.push({ batch, name, data: f.data });
      }),
    );
    await Promise.all(
      big.map(async (f, i) => {
        const batch = batchIds[i % batchIds.length];
        if (batch === undefined) return;
        const name = `m${i}.bin`;
        const parts = Math.ceil(f.data.length / PART);
        const r = await track('uploadMultipart', () => client.uploadMultipart(batch, name, f.path, { concurrency: 2 }), (x) => x.size === f.data.length && x.parts.length === parts);
        if (r) uploaded.push({ batch, name, data: f.data });
      }),
    );

    // 3. Deployment runs (unique tag each), waited on, then their results.
    const runs = new Map<string, string>();
    await Promise.all(
      Array.from({ length: RUNS }, async (_, i) => {
        const batch = batchIds[i % batchIds.length];
        if (batch === undefined) return;
        const tag = `soak-run-${i}`;
        const run = await track('startDeploymentRun', () => client.startDeploymentRun('sandbox-invoices', { batch_id: batch, settings: { tags: [tag] } }), (r) => r.batch_id === batch && (r.tags ?? []).includes(tag));
        if (!run) return;
        runs.set(tag, run.id);
        const done = await track('waitForRun', () => client.waitForRun(run.id, wait), (w) => w.run.id === run.id && w.state === 'complete');
        if (done) await track('getResults', () => client.getResults(run.id), (p) => p.page.id === run.id && p.page.status === 'COMPLETE');
        await track('getRun', () => client.getRun(run.id), (r) => r.id === run.id && r.status === 'COMPLETE');
      }),
    );

    // 4. Gets, lists and reads, a few rounds.
    for (let round = 0; round < READ_ROUNDS; round++) {
      await track('listBatches', () => client.listBatches({ workspace: 'team' }), (l) => batchIds.every((id) => l.batches.some((b) => b.id === id)));
      await Promise.all(
        [...created].map(async ([name, id]) => {
          await track('getBatch', () => client.getBatch(id), (b) => b.id === id && b.name === name);
          const mine = uploaded.filter((u) => u.batch === id).map((u) => u.name);
          await track('listBatchFiles', () => client.listBatchFiles(id, { page_size: 100 }), (l) => mine.every((n) => l.nodes.some((x) => x.name === n)));
        }),
      );
    }
    const infos = new Map((await Promise.all(batchIds.map((id) => client.getBatch(id).catch(() => undefined)))).flatMap((b) => (b ? [[b.id, b] as const] : [])));
    await Promise.all(
      uploaded.map(async (u) => {
        const b = infos.get(u.batch);
        if (b) await track('readFile', () => client.readFile(batchFilePath(b, u.name)), (r) => r.data.equals(u.data));
      }),
    );

    // Faults off: everything below sees the service as it is.
    const counts = { ...injector().counts };
    Object.assign(injector().spec, parseFaultSpec(''));
    const elapsed = Date.now() - t0;
    console.log(`soak: ${tally.calls} client calls in ${elapsed} ms; ok ${tally.ok}; typed errors ${JSON.stringify(Object.fromEntries(tally.typed))}; faults injected ${JSON.stringify(counts)}; uploads ${uploaded.length}; runs ${runs.size}`);

    // Every call ended correct or with a ServiceError.
    expect(tally.untyped).toEqual([]);
    expect(tally.wrong).toEqual([]);
    expect(tally.calls).toBeGreaterThanOrEqual(280);
    expect(tally.ok + [...tally.typed.values()].reduce((a, b) => a + b, 0)).toBe(tally.calls);
    // The faults really happened, of every kind.
    expect(counts['5xx']).toBeGreaterThan(20);
    expect(counts['429']).toBeGreaterThan(5);
    expect(counts.reset).toBeGreaterThan(0);
    // Retries carried almost everything through.
    expect(tally.ok).toBeGreaterThan(tally.calls * 0.9);
    expect(uploaded.length).toBeGreaterThan((BATCHES * SMALL_PER_BATCH + MULTIPART) * 0.9);

    // Every file the client reported uploaded is byte-equal on the service side (GET /v2/files).
    for (const u of uploaded) {
      const b = infos.get(u.batch) ?? (await client.getBatch(u.batch));
      const back = await client.readFile(batchFilePath(b, u.name));
      expect(back.data.equals(u.data), `${b.id}/${u.name}`).toBe(true);
    }

    // No duplicate batches: each reported create exists exactly once; nothing else was made.
    const rows = env.sb.core.db.prepare("SELECT id, name FROM batches WHERE name LIKE 'soak-%'").all() as { id: number; name: string }[];
    expect(rows.map((r) => `${r.name}=${r.id}`).sort()).toEqual([...created].map(([n, id]) => `${n}=${id}`).sort());
    // No duplicate runs: each reported start exists exactly once, with its tag and batch; nothing else.
    const runRows = env.sb.core.db.prepare('SELECT id, tags FROM runs').all() as { id: string; tags: string }[];
    expect(runRows.map((r) => `${(JSON.parse(r.tags) as string[]).join(',')}=${r.id}`).sort()).toEqual([...runs].map(([tag, id]) => `${tag}=${id}`).sort());
    expect(elapsed).toBeLessThan(30_000);
  }, 60_000);
});
