// The engine end to end: a real hot folder, the real sandbox over HTTP, a real SQLite store.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { engineEnv, FAST_FOLDER, type EngineEnv } from '../../helpers/engine.js';
import { numberedInvoice, corruptPdf } from '../../helpers/pdf-fixtures.js';
import { waitUntil } from '../../helpers/wait.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const invoice = numberedInvoice;

describe('hot folder to results', () => {
  it('files dropped into a hot folder are uploaded in one batch, run, and their results stored and searchable', async () => {
    env = await engineEnv();
    const inbox = env.dir('inbox');
    const archive = env.dir('archive');
    const out = env.dir('out');
    await mkdir(inbox, { recursive: true });
    await env.engine.start();
    await env.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, afterSuccess: { action: 'archive', archiveDir: archive }, outputDir: out });
    for (let i = 1; i <= 3; i++) await writeFile(join(inbox, `inv-${i}.pdf`), await invoice(i));
    await writeFile(join(inbox, 'scan.part'), 'still downloading');
    await waitUntil(() => env!.engine.store.files.countByState().done === 3, 'three files done');
    const files = env.engine.store.files.list({ state: 'done' });
    expect(new Set(files.map((f) => f.batchId)).size).toBe(1);
    const runs = env.engine.store.runs.listRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0]?.status).toBe('COMPLETE');
    const results = env.engine.store.results.resultsOfFile(files[0]!.id);
    const fields = Object.fromEntries(results[0]!.documents[0]!.fields.map((x) => [x.name, x.value]));
    expect(fields.invoice_number).toMatch(/^INV-[123]$/);
    expect(env.engine.store.search('INV-2', 10).map((h) => h.value)).toContain('INV-2');
    expect((await readdir(archive)).sort()).toEqual(['inv-1.pdf', 'inv-2.pdf', 'inv-3.pdf']);
    expect((await readdir(inbox)).sort()).toEqual(['scan.part']);
    expect((await readdir(out)).sort()).toEqual(['inv-1.csv', 'inv-1.json', 'inv-2.csv', 'inv-2.json', 'inv-3.csv', 'inv-3.json']);
    expect(await readFile(join(out, 'inv-2.csv'), 'utf8')).toContain('invoice_number,INV-2');
  });

  it('a run with post-processed PDFs: each document\'s PDF is downloaded once its results are stored', async () => {
    env = await engineEnv();
    const inbox = env.dir('inbox');
    await mkdir(inbox, { recursive: true });
    await env.engine.start();
    await env.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, run: { postProcessPdf: true } });
    for (let i = 1; i <= 2; i++) await writeFile(join(inbox, `inv-${i}.pdf`), await invoice(i));
    await waitUntil(() => env!.engine.store.files.countByState().done === 2, 'two files done');
    const [run] = env.engine.store.runs.listRuns();
    const docs = env.engine.store.results.filesOfRun(run!.id).flatMap((f) => f.documents);
    expect(docs).toHaveLength(2);
    const artifacts = env.engine.store.results.artifactsOfRun(run!.id);
    expect(artifacts.map((a) => [a.documentId, a.servicePath, a.complete])).toEqual(docs.map((d) => [d.id, d.postProcessedPdfPath, true]));
    for (const a of artifacts) expect((await readFile(a.localPath)).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('a file with ERROR fields fails and goes to the error folder with a .error.txt; retry brings it back and sends it again', async () => {
    env = await engineEnv();
    const inbox = env.dir('inbox');
    const errors = env.dir('errors');
    await mkdir(inbox, { recursive: true });
    await env.engine.start();
    await env.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, afterFailure: { errorDir: errors } });
    await writeFile(join(inbox, 'broken.pdf'), await corruptPdf());
    await waitUntil(() => env!.engine.store.files.countByState().failed === 1, 'the corrupt file failed');
    const [f] = env.engine.store.files.list({ state: 'failed' });
    // One sentence first (what the UI's row shows), then the service's words per field.
    expect(f?.error).toMatch(/^The service could not read this file: a damaged PDF \((\d+) of \1 fields failed\)\ninvoice_number: file is not a readable PDF/);
    expect((await readdir(errors)).sort()).toEqual(['broken.pdf', 'broken.pdf.error.txt']);
    expect(await readFile(join(errors, 'broken.pdf.error.txt'), 'utf8')).toMatch(/ERROR|not a readable PDF/);

    // Retry puts it back, sends it in a new batch and run; it fails again (the bytes are still corrupt).
    const again = await env.engine.retryFile(f!.id);
    expect(again.state).toBe('queued');
    await waitUntil(() => env!.engine.store.runs.listRuns().length === 2 && env!.engine.store.files.get(f!.id)?.state === 'failed', 'the retry failed again');
    expect(env.engine.store.files.history(f!.id).map((e) => e.toState)).toEqual(
      ['discovered', 'stable', 'queued', 'uploading', 'uploaded', 'running', 'failed', 'queued', 'uploading', 'uploaded', 'running', 'failed'],
    );
  });

  it('a manual upload of files runs with the chosen deployment', async () => {
    env = await engineEnv();
    const dir = env.dir('manual');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'a.pdf'), await invoice(7));
    await env.engine.start();
    const rows = await env.engine.uploadFiles([dir], { type: 'deployment', id: 'sandbox-invoices' });
    expect(rows).toHaveLength(1);
    await env.engine.idle(20_000);
    expect(env.engine.store.files.get(rows[0]!.id)?.state).toBe('done');
  });
});

