// One data home, two services (issue 11): an engine on service A, then one on service B over the
// same SQLite store. Two real sandboxes over HTTP; B accepts only its own token, so anything sent
// to the wrong service is refused rather than quietly accepted.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../electron/engine/engine.js';
import { ServiceClient } from '../../../electron/engine/service/index.js';
import { openStore, STORE_FILE, type Store } from '../../../electron/engine/store/index.js';
import type { RunningSandbox, SandboxOptions } from '../../../sandbox/index.js';
import { numberedInvoice } from '../../helpers/pdf-fixtures.js';
import { batchNames, B_TOKEN, secondSandbox } from '../../helpers/second-service.js';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

const TARGET = { type: 'deployment', id: 'sandbox-invoices' } as const;
const invoice = numberedInvoice;

interface Two {
  a: RunningSandbox;
  b: RunningSandbox;
  root: string;
  store: Store;
  engine(sb: RunningSandbox, token: string): Engine;
  close(): Promise<void>;
}

async function twoServices(aOpts: Partial<SandboxOptions> = {}): Promise<Two> {
  const a = await sandbox(aOpts);
  const b = await secondSandbox();
  const root = await mkdtemp(join(tmpdir(), 'docsync-switch-'));
  const home = join(root, 'home');
  const store = openStore(join(home, STORE_FILE));
  const made: { engine: Engine; client: ServiceClient }[] = [];
  return {
    a, b, root, store,
    engine(sb, token) {
      const client = new ServiceClient({ baseUrl: sb.url, token, retry: { limit: 4, baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 2000 } });
      const engine = new Engine({ store, client, home, poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } });
      made.push({ engine, client });
      return engine;
    },
    async close() {
      for (const m of made) {
        await m.engine.stop();
        m.client.close();
      }
      store.close();
      await a.close();
      await b.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

let env: Two | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const batchName = (store: Store, fileId: number): string => store.runs.batch(store.files.get(fileId)!.batchId!)!.name!;

describe('switching services with one data home', () => {
  it('files processed on A, then new files on B: B gets a clean batch of its own, A keeps its one, both results are searchable', async () => {
    env = await twoServices();
    const { a, b, store, root } = env;
    // The same name on both: batch 1 on each service, so the same service path on each.
    await mkdir(join(root, 'a'));
    await mkdir(join(root, 'b'));
    await writeFile(join(root, 'a', 'inv.pdf'), await invoice(1));
    await writeFile(join(root, 'b', 'inv.pdf'), await invoice(2));

    const onA = env.engine(a, 'admin-token');
    const [first] = await onA.uploadFiles([join(root, 'a', 'inv.pdf')], TARGET);
    await onA.idle(30_000);
    await onA.stop();
    expect(store.files.get(first!.id)?.state).toBe('done');

    const onB = env.engine(b, B_TOKEN);
    await onB.start();
    const [second] = await onB.uploadFiles([join(root, 'b', 'inv.pdf')], TARGET);
    await onB.idle(30_000);
    // Before: `UNIQUE constraint failed: batches.service_batch_id` (both services number batches from 1).
    expect(store.files.get(second!.id)).toMatchObject({ state: 'done', error: null });

    expect(await batchNames(a, 'admin-token')).toEqual([batchName(store, first!.id)]);
    expect(await batchNames(b, B_TOKEN)).toEqual([batchName(store, second!.id)]);
    // Each run is where the store says it is.
    const runOf = (fileId: number) => store.runs.runForBatch(store.files.get(fileId)!.batchId!)!;
    expect((await caller(a.url, 'admin-token')('GET', `/v2/apps/runs/${runOf(first!.id).serviceRunId}`)).status).toBe(200);
    expect((await caller(b.url, B_TOKEN)('GET', `/v2/apps/runs/${runOf(second!.id).serviceRunId}`)).status).toBe(200);
    expect(runOf(first!.id).serviceId).not.toBe(runOf(second!.id).serviceId);
    // A's results stay searchable beside B's, each hit with the run (and so the service) it came from.
    expect(store.search('INV-1').find((h) => h.value === 'INV-1')).toMatchObject({ runId: runOf(first!.id).id, fileId: first!.id });
    expect(store.search('INV-2').find((h) => h.value === 'INV-2')).toMatchObject({ runId: runOf(second!.id).id, fileId: second!.id });
    expect(store.files.get(second!.id)!.servicePath).toBe(store.files.get(first!.id)!.servicePath);
    expect(store.results.resultsOfFile(first!.id).map((r) => r.runId)).toEqual([runOf(first!.id).id]);
  });

  it('a batch in flight on A (one file uploaded, one halfway through its multipart parts, no run yet) goes to B from the start', async () => {
    env = await twoServices();
    const { a, b, store, root } = env;
    await writeFile(join(root, 'small.pdf'), await invoice(3));
    // Over the single-upload limit (10 MiB): multipart, 64 KiB parts on the test sandbox.
    await writeFile(join(root, 'big.txt'), `INVOICE\nInvoice Number: INV-4\n${'x'.repeat(10 * 1024 * 1024 + 200_000)}`);

    const onA = env.engine(a, 'admin-token');
    let stopping: Promise<void> | undefined;
    const maybeStop = (): void => {
      const [small, big] = store.files.list();
      const session = big && store.files.openMultipart(big.id, onA.serviceId ?? null);
      // Stopped between the two: no run is started for a batch whose upload was interrupted.
      if (!stopping && small?.state === 'uploaded' && (session?.parts.length ?? 0) >= 2) stopping = onA.stop();
    };
    onA.on('file', maybeStop);
    onA.on('progress', maybeStop);
    const rows = await onA.uploadFiles([join(root, 'small.pdf'), join(root, 'big.txt')], TARGET);
    await waitUntil(() => stopping !== undefined, 'the first file uploaded and parts of the second sent to A');
    await stopping;
    expect(rows.map((r) => store.files.get(r.id)!.state)).toEqual(['uploaded', 'uploading']);
    const onAHad = await batchNames(a, 'admin-token');
    expect(onAHad).toEqual([batchName(store, rows[0]!.id)]);

    const onB = env.engine(b, B_TOKEN);
    await onB.start();
    await waitUntil(() => rows.every((r) => ['done', 'failed'].includes(store.files.get(r.id)!.state)), 'both files finished on B', 60_000);
    expect(rows.map((r) => [store.files.get(r.id)!.originalName, store.files.get(r.id)!.state])).toEqual([['small.pdf', 'done'], ['big.txt', 'done']]);

    // B holds one batch, with both files, whole; A was not touched after the switch and has no run.
    expect(await batchNames(b, B_TOKEN)).toEqual([batchName(store, rows[0]!.id)]);
    const bBatch = store.runs.batch(store.files.get(rows[0]!.id)!.batchId!)!;
    const files = await caller(b.url, B_TOKEN)<{ nodes: { name?: string; metadata?: { size?: number } }[] }>('GET', `/v2/batches/${bBatch.serviceBatchId}/files`);
    expect(files.status).toBe(200);
    const listed = files.body.nodes.map((n) => [n.name, n.metadata?.size]).sort();
    expect(listed).toEqual([['big.txt', rows[1]!.size], ['small.pdf', rows[0]!.size]]);
    expect(await batchNames(a, 'admin-token')).toEqual(onAHad);
    expect((await caller(a.url, 'admin-token')<{ runs: unknown[] }>('GET', '/v2/apps/runs')).body.runs).toEqual([]);
    // The session on A is given up locally, never resumed against B.
    expect(store.files.openMultipart(rows[1]!.id, onA.serviceId ?? null)).toBeUndefined();
  }, 120_000); // a 10 MiB multipart upload, a stop and a whole run on B, with a 60 s wait inside: the default 30 s ran out once under the full suite

  it('a batch created on the service that the store cannot record is deleted there again; retries leave no stray batch', async () => {
    env = await twoServices();
    const { b, store, root } = env;
    await writeFile(join(root, 'inv-5.pdf'), await invoice(5));
    const onB = env.engine(b, B_TOKEN);
    await onB.start();
    // Local rows that already claim B's next two batch ids: recording the batches B creates fails.
    for (const id of ['1', '2']) store.runs.setBatchService(store.runs.addBatch({ name: `claimed-${id}` }).id, id, null, onB.serviceId);

    const [f] = await onB.uploadFiles([join(root, 'inv-5.pdf')], TARGET);
    await waitUntil(() => store.files.get(f!.id)!.state === 'failed', 'the first attempt failed');
    expect(store.files.get(f!.id)!.error).toMatch(/batch 1 could not be recorded in the local store, so it was deleted there again/);
    await onB.retryFile(f!.id);
    await waitUntil(() => store.files.get(f!.id)!.state === 'failed', 'the second attempt failed');
    await onB.retryFile(f!.id);
    await waitUntil(() => store.files.get(f!.id)!.state === 'done', 'the third attempt done', 30_000);

    // Only the batch that was recorded is left on B (deletions finish after the sandbox's job delay).
    const kept = batchName(store, f!.id);
    await waitUntil(async () => (await batchNames(b, B_TOKEN)).join() === kept, `B holds only ${kept}`, 10_000);
  });

  it('a run still going on A is not asked about on B (there it does not exist); back on A it is followed to the end', async () => {
    // Slow pages on A: the run is still RUNNING when the user switches.
    env = await twoServices({ pageDelayMs: 1500 });
    const { a, b, store, root } = env;
    await writeFile(join(root, 'inv-6.pdf'), await invoice(6));
    await writeFile(join(root, 'inv-7.pdf'), await invoice(7));
    const onA = env.engine(a, 'admin-token');
    const [six] = await onA.uploadFiles([join(root, 'inv-6.pdf')], TARGET);
    await waitUntil(() => store.files.get(six!.id)!.state === 'running', 'inv-6 running on A');
    await onA.stop();

    const onB = env.engine(b, B_TOKEN);
    await onB.start();
    const [seven] = await onB.uploadFiles([join(root, 'inv-7.pdf')], TARGET);
    await waitUntil(() => store.files.get(seven!.id)!.state === 'done', 'inv-7 done on B');
    await new Promise((r) => setTimeout(r, 500));
    // Before: polled on B, answered 404, and failed as "no longer exists on the service".
    const runA = store.runs.runForBatch(store.files.get(six!.id)!.batchId!)!;
    expect(runA.status).not.toBe('FAILED');
    expect(store.files.get(six!.id)!.state).toBe('running');
    await onB.stop();

    const backOnA = env.engine(a, 'admin-token');
    await backOnA.start();
    await waitUntil(() => store.files.get(six!.id)!.state === 'done', 'inv-6 done once back on A', 30_000);
    expect(store.runs.run(runA.id)).toMatchObject({ status: 'COMPLETE', resultsStoredMs: expect.any(Number) });
  });
});
