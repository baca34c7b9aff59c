// Hot folders end to end (issue 4, "Hot folders" and "Pipeline"): a real folder on disk, the real sandbox over
// HTTP, a real SQLite store. Large files, files still being written, renamed or deleted, duplicates, batching,
// and where a file goes after success or failure.
import { appendFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SINGLE_PUT_MAX } from '../../../electron/engine/pipeline/uploader.js';
import type { FileRow, MultipartSession } from '../../../electron/engine/store/index.js';
import { engineEnv, FAST_FOLDER, type EngineEnv } from '../../helpers/engine.js';
import { corruptPdf, encryptPdf, invoicePdf, invoiceText } from '../../helpers/pdf-fixtures.js';
import { waitUntil } from '../../helpers/wait.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const invoice = (n: number, total = `${n}.50`): string =>
  invoiceText({ invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total, vendor: `Vendor ${n}` });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A started engine watching a fresh inbox with the given settings (FAST_FOLDER underneath). */
async function hotFolder(settings: Record<string, unknown> = {}, sbOpts = {}): Promise<{ e: EngineEnv; inbox: string }> {
  env = await engineEnv(sbOpts);
  const inbox = env.dir('inbox');
  await mkdir(inbox, { recursive: true });
  await env.engine.start();
  await env.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, ...settings });
  return { e: env, inbox };
}

const files = (e: EngineEnv): FileRow[] => e.engine.store.files.list();
const byName = (e: EngineEnv, name: string): FileRow[] => files(e).filter((f) => f.originalName === name);

/** Names and sizes of the files in a service batch (what the service holds, not what the store says). */
async function serviceBatchFiles(e: EngineEnv, batchId: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const n of e.engine.client.iterateBatchFiles(batchId)) out.set(n.name ?? '', n.metadata?.size ?? -1);
  return out;
}

/** Every file name uploaded to any service batch. */
async function allServiceFileNames(e: EngineEnv): Promise<string[]> {
  const names: string[] = [];
  for (const b of (await e.engine.client.listBatches({})).batches) names.push(...(await serviceBatchFiles(e, b.id)).keys());
  return names.sort();
}

describe('a deployment with another namespace segment (issue 11)', () => {
  it('the folder\'s PDF passwords go under the client\'s segment, so an encrypted PDF opens; the run record is kept whole', async () => {
    env = await engineEnv({ namespace: 'acme' }, {}, { namespace: 'acme' });
    const e = env;
    const inbox = e.dir('inbox');
    await mkdir(inbox, { recursive: true });
    await e.engine.start();
    await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, run: { pdfPasswords: { 'Locked Invoice': 'pw-7' } } });
    const pdf = await encryptPdf(await invoicePdf({ invoiceNumber: 'INV-77', invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: '$7.00', vendor: 'Vault' }), 'pw-7');
    await writeFile(join(inbox, 'Locked Invoice.pdf'), pdf);
    await waitUntil(() => e.engine.store.files.countByState().done === 1, 'the encrypted PDF is done', 30_000);
    const [f] = files(e);
    const fields = Object.fromEntries(e.engine.store.results.resultsOfFile(f!.id)[0]!.documents[0]!.fields.map((x) => [x.name, x.value]));
    expect(fields.invoice_number).toBe('INV-77');
    const run = e.engine.store.runs.listRuns()[0]!;
    expect(run.record).toMatchObject({ id: run.serviceRunId, status: 'COMPLETE', extra: {} });
    expect(run.record).not.toHaveProperty('recovered');
  });
});

describe('large files: "single PUT up to the service\'s suggested 10 MB, multipart above"', () => {
  it('an 11 MiB invoice goes up in 64 KiB parts, the store records the completed session with every part, and the run completes', async () => {
    const { e, inbox } = await hotFolder({}, { partSize: 64 * 1024 });
    // A text invoice padded with blank lines (the sandbox reads plain text; blank lines carry no text).
    const body = invoice(11) + `${' '.repeat(1023)}\n`.repeat(11 * 1024);
    expect(Buffer.byteLength(body)).toBeGreaterThan(SINGLE_PUT_MAX);
    await writeFile(join(inbox, 'big.txt'), body);
    await waitUntil(() => e.engine.store.files.countByState().done === 1, 'the large file is done', 60_000);

    const [f] = files(e);
    expect(f?.state).toBe('done');
    expect(f?.size).toBe(Buffer.byteLength(body));
    const sessionIds = e.engine.store.db.prepare('SELECT id FROM multipart_sessions WHERE file_id = ?').all(f!.id) as { id: number }[];
    expect(sessionIds).toHaveLength(1);
    const s = e.engine.store.files.multipart(sessionIds[0]!.id) as MultipartSession;
    expect(s.completedMs).not.toBeNull();
    expect(s.abortedMs).toBeNull();
    expect(s.partSize).toBe(64 * 1024);
    const expectedParts = Math.ceil(f!.size / (64 * 1024));
    expect(s.parts.map((p) => p.partNum)).toEqual(Array.from({ length: expectedParts }, (_, i) => i + 1));
    expect(s.parts.reduce((n, p) => n + p.size, 0)).toBe(f!.size);

    // The service holds the whole file, byte for byte, and extracted the invoice from it.
    const read = await e.engine.client.readFile(f!.servicePath as string);
    expect(read.data.equals(Buffer.from(body))).toBe(true);
    const fields = Object.fromEntries(e.engine.store.results.resultsOfFile(f!.id)[0]!.documents[0]!.fields.map((x) => [x.name, x.value]));
    expect(fields.invoice_number).toBe('INV-11');
  });
});

describe('stability: "a file is taken only when stable ... a file that changed is re-queued, never uploaded torn"', () => {
  it('a file written in many small appends over 1.5 s (each gap shorter than the 300 ms threshold) is uploaded once, complete', async () => {
    const { e, inbox } = await hotFolder({ stabilityMs: 300 });
    const path = join(inbox, 'slow.txt');
    const full = invoice(21) + 'x'.repeat(30 * 1000);
    const step = 1000;
    await writeFile(path, full.slice(0, step));
    for (let at = step; at < full.length; at += step) {
      await sleep(50);
      await appendFile(path, full.slice(at, at + step));
    }
    await waitUntil(() => e.engine.store.files.countByState().done === 1, 'the slow file is done');
    await e.engine.idle(10_000);

    const rows = byName(e, 'slow.txt');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.size).toBe(full.length);
    const meta = await e.engine.client.statPath(rows[0]!.servicePath as string);
    expect(meta?.size).toBe(full.length);
    expect((await e.engine.client.readFile(rows[0]!.servicePath as string)).data.toString()).toBe(full);
    expect(await allServiceFileNames(e)).toEqual(['slow.txt']);
    expect(e.engine.store.runs.listRuns()).toHaveLength(1);
  });

  it('a file that changes after it was taken but before its upload goes back to settling and only its final version is uploaded', async () => {
    // A long quiet period keeps the stable file waiting in an open batch while it is appended to.
    const { e, inbox } = await hotFolder({ stabilityMs: 150, batching: { minQuietMs: 1500, quietMs: 1500, maxFiles: 100, maxBytes: 1 << 30 } });
    const path = join(inbox, 'late.txt');
    await writeFile(path, invoice(22));
    await waitUntil(() => byName(e, 'late.txt').some((f) => f.state === 'queued'), 'the first version is queued');
    await appendFile(path, '\nLate addendum: signed copy attached.\n');
    const finalSize = (await stat(path)).size;
    await waitUntil(() => byName(e, 'late.txt').some((f) => f.state === 'done'), 'the file is done');
    await e.engine.idle(10_000);

    const done = byName(e, 'late.txt').filter((f) => f.state === 'done');
    expect(done).toHaveLength(1);
    expect(done[0]!.size).toBe(finalSize);
    expect((await e.engine.client.statPath(done[0]!.servicePath as string))?.size).toBe(finalSize);
    // Every other row of the path is finished too (none left waiting forever), and nothing else went up.
    for (const f of byName(e, 'late.txt')) expect(['done', 'skipped']).toContain(f.state);
    expect(await allServiceFileNames(e)).toEqual(['late.txt']);
    const counts = e.engine.store.files.countByState();
    expect(counts.queued + counts.stable + counts.discovered + counts.uploading).toBe(0);
  });

  it('a file that changes after its batch closed is caught by the check right before upload; the new version is uploaded, the old row ends', async () => {
    const { e, inbox } = await hotFolder();
    e.engine.pause(); // batches close but nothing is uploaded
    const path = join(inbox, 'edited.txt');
    await writeFile(path, invoice(23));
    await waitUntil(() => byName(e, 'edited.txt').some((f) => f.state === 'queued' && f.batchId !== null), 'the first version is in a closed batch');
    await appendFile(path, '\nEdited after the batch closed.\n');
    const finalSize = (await stat(path)).size;
    await waitUntil(() => byName(e, 'edited.txt').some((f) => f.size === finalSize && f.state === 'queued'), 'the new version is taken');
    e.engine.resume();
    await waitUntil(() => byName(e, 'edited.txt').some((f) => f.state === 'done'), 'the file is done');
    await e.engine.idle(10_000);

    const rows = byName(e, 'edited.txt');
    expect(rows.filter((f) => f.state === 'done').map((f) => f.size)).toEqual([finalSize]);
    const old = rows.find((f) => f.size !== finalSize);
    expect(old?.state).toBe('skipped');
    expect(old?.error).toMatch(/changed before upload; its newer version is uploaded instead$/);
    expect(await allServiceFileNames(e)).toEqual(['edited.txt']);
    expect((await e.engine.client.statPath(rows.find((f) => f.state === 'done')!.servicePath as string))?.size).toBe(finalSize);
  });
});

describe('files that move before upload', () => {
  // A long quiet period (2 s) leaves time to act after a file was taken and before its batch closes.
  const waiting = { batching: { minQuietMs: 2000, quietMs: 2000, maxFiles: 100, maxBytes: 1 << 30 } };

  it('a file renamed before upload is processed under its new name; the old path is never uploaded', async () => {
    const { e, inbox } = await hotFolder(waiting);
    await writeFile(join(inbox, 'draft.txt'), invoice(31));
    await waitUntil(() => byName(e, 'draft.txt').some((f) => f.state === 'queued'), 'draft.txt is queued');
    await rename(join(inbox, 'draft.txt'), join(inbox, 'final.txt'));
    await waitUntil(() => byName(e, 'final.txt').some((f) => f.state === 'done'), 'final.txt is done');
    await e.engine.idle(10_000);

    expect(byName(e, 'draft.txt').map((f) => f.state)).toEqual(['skipped']);
    expect(byName(e, 'draft.txt')[0]!.error).toMatch(/deleted or moved before it was uploaded/);
    expect(await allServiceFileNames(e)).toEqual(['final.txt']);
  });

  it('a file deleted before upload is never uploaded and no run is started for nothing', async () => {
    const { e, inbox } = await hotFolder(waiting);
    await writeFile(join(inbox, 'gone.txt'), invoice(32));
    await waitUntil(() => byName(e, 'gone.txt').some((f) => f.state === 'queued'), 'gone.txt is queued');
    await rm(join(inbox, 'gone.txt'));
    await waitUntil(() => byName(e, 'gone.txt').some((f) => f.state === 'skipped'), 'gone.txt is skipped', 10_000);
    await e.engine.idle(10_000);

    expect(byName(e, 'gone.txt')[0]!.error).toMatch(/deleted or moved before it was uploaded/);
    expect(await allServiceFileNames(e)).toEqual([]);
    expect((await e.engine.client.listRuns({ deployment_id: 'sandbox-invoices' })).runs).toHaveLength(0);
    expect(e.engine.store.runs.listRuns()).toHaveLength(0);
  });
});

describe('duplicates: "files already processed with identical content (sha256) are skipped unless the folder says otherwise"', () => {
  it('the same content under a second name is skipped with a reason naming the first', async () => {
    const { e, inbox } = await hotFolder();
    await writeFile(join(inbox, 'a.txt'), invoice(41));
    await waitUntil(() => byName(e, 'a.txt')[0]?.state === 'done', 'a.txt is done');
    await writeFile(join(inbox, 'copy of a.txt'), invoice(41));
    await waitUntil(() => byName(e, 'copy of a.txt')[0]?.state === 'skipped', 'the copy is skipped');
    await e.engine.idle(10_000);

    const copy = byName(e, 'copy of a.txt')[0]!;
    // One line a person reads in the row (not an error), the first file's path behind it.
    expect(copy.error).toBe(`Already processed: same content as a.txt\n${join(inbox, 'a.txt')}`);
    expect(copy.batchId).toBeNull();
    expect(await allServiceFileNames(e)).toEqual(['a.txt']);
    expect(e.engine.store.runs.listRuns()).toHaveLength(1);
  });

  it('with reprocessDuplicates both copies are processed', async () => {
    const { e, inbox } = await hotFolder({ reprocessDuplicates: true });
    await writeFile(join(inbox, 'a.txt'), invoice(42));
    await waitUntil(() => byName(e, 'a.txt')[0]?.state === 'done', 'a.txt is done');
    await writeFile(join(inbox, 'copy of a.txt'), invoice(42));
    await waitUntil(() => byName(e, 'copy of a.txt')[0]?.state === 'done', 'the copy is done');

    expect(await allServiceFileNames(e)).toEqual(['a.txt', 'copy of a.txt']);
    expect(e.engine.store.runs.listRuns()).toHaveLength(2);
  });
});

describe('batching: "files that arrive together go into one batch; a batch closes after a quiet period ... or at a maximum file count"', () => {
  it('files arriving together form one batch and one run', async () => {
    const { e, inbox } = await hotFolder();
    for (let i = 1; i <= 4; i++) await writeFile(join(inbox, `t-${i}.txt`), invoice(50 + i));
    await waitUntil(() => e.engine.store.files.countByState().done === 4, 'four files done');
    expect(new Set(files(e).map((f) => f.batchId)).size).toBe(1);
    const runs = (await e.engine.client.listRuns({ deployment_id: 'sandbox-invoices' })).runs;
    expect(runs).toHaveLength(1);
    expect((await serviceBatchFiles(e, runs[0]!.batch_id as number)).size).toBe(4);
  });

  it('with maxFiles 2, five files arriving together make three batches (2 + 2 + 1), each with its own run', async () => {
    const { e, inbox } = await hotFolder({ batching: { quietMs: 300, maxFiles: 2, maxBytes: 1 << 30 } });
    for (let i = 1; i <= 5; i++) await writeFile(join(inbox, `m-${i}.txt`), invoice(60 + i));
    await waitUntil(() => e.engine.store.files.countByState().done === 5, 'five files done');
    await e.engine.idle(10_000);
    const perBatch = new Map<number | null, number>();
    for (const f of files(e)) perBatch.set(f.batchId, (perBatch.get(f.batchId) ?? 0) + 1);
    const sizes = [...perBatch.values()].sort();
    expect(sizes).toEqual([1, 2, 2]);
    const runs = (await e.engine.client.listRuns({ deployment_id: 'sandbox-invoices' })).runs;
    expect(runs).toHaveLength(3);
    expect(new Set(runs.map((r) => r.batch_id)).size).toBe(3);
  });
});

describe('after processing: "keep, move to an archive folder, delete ... error folder with a .error.txt ... output folder JSON and CSV"', () => {
  it('delete-after removes a processed file; a failed one goes to the error folder with a .error.txt; outputs are written for both', async () => {
    env = await engineEnv();
    const e = env;
    const inbox = e.dir('inbox');
    const errors = e.dir('errors');
    const out = e.dir('out');
    await mkdir(inbox, { recursive: true });
    await e.engine.start();
    await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, afterSuccess: { action: 'delete' }, afterFailure: { errorDir: errors }, outputDir: out });
    await writeFile(join(inbox, 'good.pdf'), await invoicePdf({ invoiceNumber: 'INV-71', invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: '71.50', vendor: 'Vendor 71' }));
    await writeFile(join(inbox, 'bad.pdf'), await corruptPdf());
    await waitUntil(() => { const c = e.engine.store.files.countByState(); return c.done === 1 && c.failed === 1; }, 'one done, one failed');
    await e.engine.idle(10_000);

    expect(await readdir(inbox)).toEqual([]);
    expect((await readdir(errors)).sort()).toEqual(['bad.pdf', 'bad.pdf.error.txt']);
    const why = await readFile(join(errors, 'bad.pdf.error.txt'), 'utf8');
    expect(why).toMatch(/^bad\.pdf could not be processed\./);
    expect(why).toContain(byName(e, 'bad.pdf')[0]!.error as string);
    expect((await readdir(out)).sort()).toEqual(['bad.csv', 'bad.json', 'good.csv', 'good.json']);
    const json = JSON.parse(await readFile(join(out, 'good.json'), 'utf8')) as { file: string; documents: { fields: { name: string; value: string }[] }[] }[];
    expect(json[0]?.file).toBe('good.pdf');
    expect(json[0]?.documents[0]?.fields.find((x) => x.name === 'total_amount')?.value).toBe('71.50');
    const csv = (await readFile(join(out, 'good.csv'), 'utf8')).split('\r\n');
    expect(csv[0]).toBe('file,document,class,pages,field,value,type,confidence,valid,error');
    expect(csv.some((l) => l.startsWith('good.pdf,1,') && l.includes(',invoice_number,INV-71,'))).toBe(true);
  });

  it('keep leaves a processed file where it was found', async () => {
    const { e, inbox } = await hotFolder({ afterSuccess: { action: 'keep' } });
    await writeFile(join(inbox, 'kept.txt'), invoice(72));
    await waitUntil(() => byName(e, 'kept.txt')[0]?.state === 'done', 'kept.txt is done');
    await sleep(300);
    expect(await readdir(inbox)).toEqual(['kept.txt']);
    // Kept and unchanged, it is not taken again by later scans.
    await sleep(1200);
    expect(files(e)).toHaveLength(1);
    expect(e.engine.store.runs.listRuns()).toHaveLength(1);
  });
});
