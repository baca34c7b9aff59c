// Issue 11: a file that changes after the service stored its upload but before the engine's recheck.
// The engine deletes the old version from the batch and waits for the deletion job before it starts
// the run; a deletion job that fails (the sandbox's /sandbox/jobs/fail) gets the batch given up, its
// other files re-uploaded into a fresh batch. Either way no run ever reads the old bytes.
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordBatch } from '../../../electron/engine/pipeline/intake.js';
import { pipelineContext } from '../../../electron/engine/pipeline/context.js';
import { engineEnv, FAST_FOLDER, type EngineEnv } from '../../helpers/engine.js';
import { numberedInvoice } from '../../helpers/pdf-fixtures.js';
import { caller } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const invoice = numberedInvoice;

/**
 * A hot folder with a.pdf (INV-1) and b.pdf (INV-2). a.pdf is rewritten (INV-300, another size) the
 * moment its last byte has been handed to the socket: the service stores the old version, the
 * engine's recheck then finds the new one.
 */
async function changeRightAfterUpload(e: EngineEnv): Promise<{ a: string; b: string; batchId: number }> {
  const inbox = e.dir('inbox');
  await mkdir(inbox, { recursive: true });
  const a = join(inbox, 'a.pdf');
  const b = join(inbox, 'b.pdf');
  await writeFile(a, await invoice(1));
  await writeFile(b, await invoice(2));
  const newer = await invoice(300);
  let changed = false;
  let batchId = -1;
  e.engine.on('progress', (p) => {
    const f = e.engine.store.files.get(p.fileId);
    if (changed || p.sent !== p.total || f?.path !== a) return;
    changed = true;
    batchId = f.batchId as number;
    writeFileSync(a, newer);
  });
  await e.engine.start();
  await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER });
  await waitUntil(() => changed, 'a.pdf was rewritten right after its upload');
  const done = (p: string): boolean => e.engine.store.files.byPath(p)?.state === 'done';
  await waitUntil(() => done(a) && done(b), 'the new a.pdf and b.pdf are done', 60_000);
  return { a, b, batchId };
}

/** What the store shows: results of local files only, the new version's, never the old one's. */
function expectOnlyCurrentVersions(e: EngineEnv, a: string): void {
  const store = e.engine.store;
  const resultFiles = store.runs.listRuns().flatMap((r) => store.results.filesOfRun(r.id));
  expect(resultFiles.filter((rf) => rf.fileId === null)).toEqual([]);
  expect(store.search('INV-1', 10).map((h) => h.value)).not.toContain('INV-1');
  expect(store.search('INV-300', 10).map((h) => h.value)).toContain('INV-300');
  const latest = store.files.byPath(a);
  const fields = store.results.resultsOfFile(latest!.id)[0]!.documents[0]!.fields;
  expect(fields.find((x) => x.name === 'invoice_number')?.value).toBe('INV-300');
}

describe('a file that changes after its upload, before the recheck', () => {
  it('is deleted from the batch and the deletion job waited for before the run starts: the run has only the new version', async () => {
    env = await engineEnv();
    const { a } = await changeRightAfterUpload(env);
    expectOnlyCurrentVersions(env, a);
  });

  it('when the deletion job fails, that batch is never run; its other files go up again in a fresh batch', async () => {
    env = await engineEnv();
    const sb = caller(env.sb.url);
    expect((await sb('POST', '/sandbox/jobs/fail', { kind: 'delete-batch-file', message: 'storage is read-only' })).status).toBe(200);
    const { a, b, batchId } = await changeRightAfterUpload(env);
    expectOnlyCurrentVersions(env, a);

    const store = env.engine.store;
    // The batch that had the old bytes is given up locally and never got a run.
    const given = store.runs.batch(batchId)!;
    expect(given.deletedMs).not.toBeNull();
    expect(store.runs.runForBatch(batchId)).toBeUndefined();
    // b.pdf went up twice: into the given-up batch, then (queued again) into the fresh one, which ran.
    const bRow = store.files.byPath(b)!;
    expect(store.files.history(bRow.id).filter((ev) => ev.toState === 'uploaded')).toHaveLength(2);
    expect(bRow.batchId).not.toBe(batchId);
    // On the service: no run ever had that batch as input, and the batch itself was asked away.
    const runs = (await sb<{ runs: { batch_id?: number | null }[] }>('GET', '/v2/apps/runs?limit=100')).body.runs;
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.map((r) => r.batch_id)).not.toContain(Number(given.serviceBatchId));
    await waitUntil(async () => (await sb('GET', `/v2/batches/${given.serviceBatchId}`)).status === 404, 'the given-up batch is deleted on the service');
  });

  it('after a crash mid-batch, a file still marked uploading that changed meanwhile has its old bytes removed before the run', async () => {
    env = await engineEnv();
    const store = env.engine.store;
    const inbox = env.dir('inbox');
    await mkdir(inbox, { recursive: true });
    const a = join(inbox, 'a.pdf');
    const b = join(inbox, 'b.pdf');
    await writeFile(a, await invoice(1));
    await writeFile(b, await invoice(2));
    // What a process killed during the upload leaves: a closed batch, its service batch, both files
    // 'uploading', and the old a.pdf already stored by the service.
    const ids: number[] = [];
    for (const p of [a, b]) {
      const st = await stat(p);
      const row = store.files.add({ path: p, size: st.size, mtimeMs: st.mtimeMs, originalName: p.slice(inbox.length + 1), state: 'queued' });
      ids.push(row.id);
    }
    const ctx = pipelineContext({ store, client: env.engine.client, home: env.home, serviceId: env.engine.serviceId }, () => undefined);
    const batchId = recordBatch(ctx, null, { target: { type: 'deployment', id: 'sandbox-invoices' }, run: { tags: [], customKeys: {}, postProcessPdf: false, pdfPasswords: {} } }, ids);
    // Created on the service, not yet recorded here: the restart finds it by its unique name.
    const service = await env.engine.client.createBatch({ name: store.runs.batch(batchId)!.name as string });
    for (const id of ids) store.files.transition(id, 'uploading');
    await env.engine.client.putBatchFile(service.id, 'a.pdf', a);
    // While the engine was down, a.pdf changed.
    await writeFile(a, await invoice(300));

    await env.engine.start();
    await waitUntil(() => store.files.get(ids[1]!)?.state === 'done', 'b.pdf is done', 30_000);
    expect(store.files.get(ids[0]!)?.state).toBe('discovered');
    const resultFiles = store.runs.listRuns().flatMap((r) => store.results.filesOfRun(r.id));
    expect(resultFiles.map((rf) => rf.fileId)).toEqual([ids[1]]);
    expect(store.search('INV-1', 10).map((h) => h.value)).not.toContain('INV-1');
  });
});
