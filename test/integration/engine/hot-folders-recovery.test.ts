// Hot folders that survive the world (issue 4, "Hot folders", "Pipeline", "Tests"): a restart with files added
// while the engine was stopped, a service that fails often (`--faults 5xx=0.1,429=0.05,reset=0.02`), and a run
// that stops for review. Real sandbox over HTTP, real folders, real SQLite.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../electron/engine/engine.js';
import { openStore, STORE_FILE, type Store } from '../../../electron/engine/store/index.js';
import { parseFaultSpec } from '../../../sandbox/index.js';
import { engineEnv, FAST_FOLDER, type EngineEnv } from '../../helpers/engine.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { caller } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

let env: EngineEnv | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await env?.close();
  env = undefined;
});

const invoice = (n: number, total = `${n}.50`): string =>
  invoiceText({ invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total, vendor: `Vendor ${n}` });
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');


describe('restart: "a full rescan on start ... catches files added while the app was closed"', () => {
  it('files added while the engine was stopped are found by the first scan of a new engine on the same store; done files are not processed again', async () => {
    env = await engineEnv();
    const e = env;
    const inbox = e.dir('inbox');
    await mkdir(inbox, { recursive: true });
    await e.engine.start();
    await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER });
    await writeFile(join(inbox, 'before.txt'), invoice(1));
    await waitUntil(() => e.engine.store.files.countByState().done === 1, 'before.txt is done');
    const [before] = e.engine.store.files.list();
    const historyBefore = e.engine.store.files.history(before!.id);

    // Stop, close the database, add files, then a new engine on a reopened store.
    await e.engine.stop();
    e.engine.store.close();
    await writeFile(join(inbox, 'while-stopped-1.txt'), invoice(2));
    await writeFile(join(inbox, 'while-stopped-2.txt'), invoice(3));
    const store: Store = openStore(join(e.home, STORE_FILE));
    const engine = new Engine({ store, client: e.engine.client, home: e.home, poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } });
    cleanups.push(() => store.close(), () => engine.stop());
    await engine.start();
    await waitUntil(() => store.files.countByState().done === 3, 'the files added while stopped are done');
    await engine.idle(10_000);
    // Kept and unchanged, the first file is left alone through more rescans (rescanIntervalMs is 1 s).
    await new Promise((r) => setTimeout(r, 1300));

    const rows = store.files.list();
    expect(rows.map((f) => f.originalName).sort()).toEqual(['before.txt', 'while-stopped-1.txt', 'while-stopped-2.txt']);
    expect(rows.every((f) => f.state === 'done')).toBe(true);
    expect(store.files.history(before!.id)).toEqual(historyBefore);
    const added = rows.filter((f) => f.id !== before!.id);
    expect(new Set(added.map((f) => f.batchId)).size).toBe(1);
    expect(added[0]!.batchId).not.toBe(before!.batchId);
    expect(store.runs.listRuns()).toHaveLength(2);
    expect((await e.engine.client.listRuns({ deployment_id: 'sandbox-invoices' })).runs).toHaveLength(2);
  });
});

describe('faults: "a run under --faults 5xx=0.1,429=0.05,reset=0.02 ends with every file processed once"', () => {
  it('30 files through a failing service: each file done once, its bytes on the service exactly once, one run per batch', async () => {
    // retryafter=0 keeps the injected 429s from announcing a whole second (an HTTP-date still rounds up to one).
    env = await engineEnv({ faults: parseFaultSpec('5xx=0.1,429=0.05,reset=0.02,retryafter=0,seed=11'), partSize: 1024 * 1024 });
    const e = env;
    const inbox = e.dir('inbox');
    await mkdir(inbox, { recursive: true });
    await e.engine.start();
    await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, batching: { quietMs: 300, maxFiles: 8, maxBytes: 1 << 30 } });
    const local = new Map<string, string>();
    for (let i = 1; i <= 30; i++) {
      // The last one is over the single-PUT limit: its 1 MiB parts meet the faults too.
      const body = i < 30 ? invoice(100 + i) : invoice(100 + i) + `${' '.repeat(1023)}\n`.repeat(10.5 * 1024);
      local.set(`f-${i}.txt`, sha(body));
      await writeFile(join(inbox, `f-${i}.txt`), body);
    }
    await waitUntil(() => e.engine.store.files.countByState().done === 30, 'all 30 files done', 90_000);
    await e.engine.idle(30_000);
    const faults = e.sb.faults!;
    const injected = { ...faults.counts };
    Object.assign(faults.spec, parseFaultSpec('')); // a fault-free view for the checks
    // Which requests fail depends on timing; that many failed is certain (about one request in six fails).
    expect(injected['5xx'] + injected['429'] + injected.reset).toBeGreaterThanOrEqual(10);

    // The store: one row per file, each done once, with exactly one stored result.
    const rows = e.engine.store.files.list();
    expect(rows).toHaveLength(30);
    for (const f of rows) {
      expect(f.state).toBe('done');
      expect(e.engine.store.files.history(f.id).filter((h) => h.toState === 'done')).toHaveLength(1);
      expect(e.engine.store.results.resultsOfFile(f.id)).toHaveLength(1);
    }

    // The service: every file's bytes exactly once over all batches.
    const client = e.engine.client;
    const seen = new Map<string, number>();
    let onService = 0;
    const batchesWithFiles = new Set<number>();
    for (const b of (await client.listBatches({})).batches) {
      for await (const n of client.iterateBatchFiles(b.id)) {
        const bytes = (await client.readFile(n.full_path as string)).data;
        seen.set(sha(bytes), (seen.get(sha(bytes)) ?? 0) + 1);
        onService++;
        batchesWithFiles.add(b.id);
      }
    }
    expect(onService).toBe(30);
    const sessions = e.engine.store.db.prepare('SELECT count(*) AS n FROM multipart_sessions WHERE completed_ms IS NOT NULL').get() as { n: number };
    expect(sessions.n).toBe(1);
    for (const [name, digest] of local) expect([name, seen.get(digest)]).toEqual([name, 1]);

    // One run per batch, and the store knows exactly those runs.
    const runs = (await client.listRuns({ deployment_id: 'sandbox-invoices', limit: 1000 })).runs;
    const perBatch = new Map<number, number>();
    for (const r of runs) perBatch.set(r.batch_id as number, (perBatch.get(r.batch_id as number) ?? 0) + 1);
    expect([...perBatch.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(perBatch.keys())).toEqual(batchesWithFiles);
    expect(runs.every((r) => r.status === 'COMPLETE')).toBe(true);
    expect(e.engine.store.runs.listRuns().map((r) => r.serviceRunId).sort()).toEqual(runs.map((r) => r.id).sort());
  });
});

describe('review: "a run STOPPED_AT_CHECKPOINT is shown as waiting for review and polled slowly"', () => {
  it('an invoice failing validation waits for review with its file running; after approval through the sandbox the file is done', async () => {
    env = await engineEnv();
    const e = env;
    const inbox = e.dir('inbox');
    await mkdir(inbox, { recursive: true });
    await e.engine.start();
    await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices-review', ...FAST_FOLDER });
    await writeFile(join(inbox, 'tbd.txt'), invoice(200, 'TBD'));
    await waitUntil(() => e.engine.store.runs.listRuns()[0]?.reviewWaiting === true, 'the run waits for review');

    const [run] = e.engine.store.runs.listRuns();
    expect(run?.status).toBe('STOPPED_AT_CHECKPOINT');
    expect(e.engine.status().activeRuns).toBe(1);
    // Still waiting a few polls later (reviewMs is 200 ms): the file stays running, nothing is stored yet.
    await new Promise((r) => setTimeout(r, 600));
    const [file] = e.engine.store.files.list();
    expect(file?.state).toBe('running');
    expect(e.engine.store.runs.run(run!.id)?.reviewWaiting).toBe(true);
    expect(e.engine.store.results.resultsOfFile(file!.id)).toHaveLength(0);

    const call = caller(e.sb.url, 'admin-token');
    const answer = await call('POST', `/sandbox/runs/${run!.serviceRunId}/review`, { action: 'approve' });
    expect(answer.status).toBe(200);
    await waitUntil(() => e.engine.store.files.get(file!.id)?.state === 'done', 'the file is done after approval');

    const after = e.engine.store.runs.run(run!.id);
    expect(after?.status).toBe('COMPLETE');
    expect(after?.reviewWaiting).toBe(false);
    const fields = e.engine.store.results.resultsOfFile(file!.id)[0]!.documents[0]!.fields;
    expect(fields.find((x) => x.name === 'total_amount')?.value).toBe('TBD');
    expect(fields.find((x) => x.name === 'total_amount')?.valid).toBe(false);
  });
});
