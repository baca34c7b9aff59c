// `docsync upload --wait` against the sandbox, then the store's view of it through files, runs,
// results, search, export and status, each with --json (issue 4, "The docsync command").
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileRow, RunRow, SearchHit } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { corruptPdf, invoicePdf } from '../../helpers/pdf-fixtures.js';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { buildIfNeeded, cliEnv, expectOneLineError, type Cli } from './cli-env.js';

let sb: RunningSandbox;
let cli: Cli;
let docs: string;
beforeAll(async () => {
  await buildIfNeeded();
  sb = await sandbox();
  cli = await cliEnv({ url: sb.url, token: 'admin-token' });
  docs = cli.dir('');
  for (const n of [101, 102, 103]) {
    await writeFile(join(docs, `inv-${n}.pdf`), await invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: 'March 1, 2026', dueDate: 'March 31, 2026', total: `$${n}.50`, vendor: `Vendor ${n} Ltd` }));
  }
  await writeFile(join(docs, 'broken.pdf'), await corruptPdf());
}, 120_000);
afterAll(async () => {
  await sb?.close();
  await cli?.close();
});

type UploadRow = FileRow & { serviceRunId: string | null };
let runId = '';

describe('docsync upload', () => {
  it('upload --wait sends the files as one batch, follows the run and prints each file done', async () => {
    const r = await cli.run(['upload', 'inv-101.pdf', 'inv-102.pdf', 'inv-103.pdf', '--deployment', 'sandbox-invoices', '--wait', '--tag', 'cli', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as UploadRow[];
    expect(rows.map((f) => [f.originalName, f.state])).toEqual([['inv-101.pdf', 'done'], ['inv-102.pdf', 'done'], ['inv-103.pdf', 'done']]);
    expect(new Set(rows.map((f) => f.batchId)).size).toBe(1);
    expect(new Set(rows.map((f) => f.serviceRunId)).size).toBe(1);
    runId = rows[0]?.serviceRunId as string;
    // The service has that run, complete, with the tag given on the command line.
    const run = await caller(sb.url)<{ status: string; tags?: string[] }>('GET', `/v2/apps/runs/${runId}`);
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('COMPLETE');
    expect(run.body.tags).toContain('cli');
  });

  it('a file whose run fails makes upload --wait exit 1 and print the failure', async () => {
    const r = await cli.run(['upload', 'broken.pdf', '--deployment', 'sandbox-invoices', '--wait']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^\d+\s+failed\s+\S+\s+.*broken\.pdf\s+The service could not read this file: a damaged PDF \(\d+ of \d+ fields failed\)$/m);
  });

  it('upload of a missing file, or without a deployment, is a one-line error and uploads nothing', async () => {
    expectOneLineError(await cli.run(['upload', 'missing.pdf', '--deployment', 'sandbox-invoices']), /missing\.pdf does not exist/, 2);
    expectOneLineError(await cli.run(['upload', 'inv-101.pdf']), /a deployment or an app is required/, 2);
    expect(await cli.json<FileRow[]>(['files'])).toHaveLength(4);
  });
});

describe('the store, read back through the command', () => {
  it('files --json lists every file; --state failed only the failed one', async () => {
    const all = await cli.json<FileRow[]>(['files']);
    expect(all.map((f) => [f.originalName, f.state])).toEqual([['inv-101.pdf', 'done'], ['inv-102.pdf', 'done'], ['inv-103.pdf', 'done'], ['broken.pdf', 'failed']]);
    const failed = await cli.json<FileRow[]>(['files', '--state', 'failed']);
    expect(failed.map((f) => f.originalName)).toEqual(['broken.pdf']);
    expect(failed[0]?.error).toMatch(/^The service could not read this file: .*\ninvoice_number: file is not a readable PDF/);
  });

  it('runs --json lists both runs, newest first, with their status and file count', async () => {
    const runs = await cli.json<(RunRow & { files: number })[]>(['runs']);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ serviceRunId: runId, status: 'COMPLETE', deploymentId: 'sandbox-invoices', files: 3 });
    expect(runs[0]?.files).toBe(1);
    expect(runs[1]?.resultsStoredMs).toBeGreaterThan(0);
  });

  it('results RUN_ID --json gives each file with its documents and extracted fields', async () => {
    const res = await cli.json<{ run: RunRow; files: { file: string; documents: { class_name: string; fields: { name: string; value: string }[] }[] }[] }>(['results', runId]);
    expect(res.run.serviceRunId).toBe(runId);
    expect(res.files.map((f) => f.file).sort()).toEqual(['inv-101.pdf', 'inv-102.pdf', 'inv-103.pdf']);
    const f102 = res.files.find((f) => f.file === 'inv-102.pdf');
    const fields = Object.fromEntries(f102!.documents[0]!.fields.map((x) => [x.name, x.value]));
    expect(fields.invoice_number).toBe('INV-102');
    const text = await cli.run(['results', runId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/invoice_number\s+INV-103/);
  });

  it('results without a run id shows the latest run that has results', async () => {
    const latest = await cli.json<{ run: RunRow }>(['results']);
    expect(latest.run.resultsStoredMs).toBeGreaterThan(0);
    const runs = await cli.json<RunRow[]>(['runs']);
    expect(latest.run.serviceRunId).toBe(runs.find((r) => r.resultsStoredMs)?.serviceRunId);
    expectOneLineError(await cli.run(['results', 'no-such-run']), /no run "no-such-run"/, 2);
  });

  it('search --json finds a field value and tells which run and file it came from', async () => {
    const hits = await cli.json<SearchHit[]>(['search', 'INV-103']);
    const hit = hits.find((h) => h.value === 'INV-103');
    expect(hit).toMatchObject({ serviceRunId: runId, fieldName: 'invoice_number', fileName: 'inv-103.pdf' });
    expect(await cli.json(['search', 'zzznothing'])).toEqual([]);
  });

  it('export writes CSV and JSON atomically, with the same content as the stored results', async () => {
    const csvPath = cli.dir('out.csv');
    const r = await cli.run(['export', runId, '--format', 'csv', '--out', csvPath]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote 3 files of run /);
    const csv = await readFile(csvPath, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('scope,file,document,class,pages,field,value,type,confidence,valid,error');
    expect(csv).toMatch(/^document,inv-101\.pdf,1,[^,]*,1,invoice_number,INV-101,/m);

    const jsonPath = cli.dir('out.json');
    expect((await cli.run(['export', runId, '--format', 'json', '--out', jsonPath])).code).toBe(0);
    const exported = JSON.parse(await readFile(jsonPath, 'utf8')) as { files: unknown[]; case_fields: { name: string; value: string | null }[] };
    const shown = await cli.json<{ files: unknown[]; caseFields: { name: string; value: string | null }[] }>(['results', runId]);
    expect(exported.files).toEqual(shown.files);
    expect(shown.caseFields.length).toBeGreaterThan(0);
    expect(exported.case_fields.map((c) => [c.name, c.value])).toEqual(shown.caseFields.map((c) => [c.name, c.value]));
    // No temporary file is left next to the outputs.
    expect((await readdir(docs)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('export refuses a bad format, a missing --out, and a folder that does not exist', async () => {
    expectOneLineError(await cli.run(['export', runId, '--format', 'xml', '--out', 'x']), /--format must be csv or json; got "xml"/, 2);
    expectOneLineError(await cli.run(['export', runId, '--format', 'csv']), /--out FILE is required/, 2);
    expectOneLineError(await cli.run(['export', runId, '--format', 'csv', '--out', cli.dir('no/such/dir/x.csv')]), /cannot write .*ENOENT/, 2);
  });

  it('status --json counts the files per state and has no active runs left', async () => {
    const s = await cli.json<{ counts: Record<string, number>; activeRuns: unknown[] }>(['status']);
    expect(s.counts).toMatchObject({ done: 3, failed: 1, queued: 0, uploading: 0, running: 0 });
    expect(s.activeRuns).toEqual([]);
  });
});

describe('docsync retry', () => {
  it('retry of a file that is not failed is refused in one line', async () => {
    const done = (await cli.json<FileRow[]>(['files', '--state', 'done']))[0]!;
    // Named as the user knows it, with the id they typed beside it.
    const r = await cli.run(['retry', String(done.id)]);
    expect(r.stderr.trimEnd()).toBe(`docsync: "${done.originalName}" is done; only a failed file can be retried (file id ${done.id})`);
    expect(r.code).toBe(2);
    expectOneLineError(await cli.run(['retry', '999999']), /^docsync: no file with id 999999 \(see: docsync files --state failed\)$/, 2);
    expectOneLineError(await cli.run(['retry', 'abc']), /give one file id/, 2);
  });

  it('retry FILE_ID sends a failed file again in a new run and follows it to the end', async () => {
    const [broken] = await cli.json<FileRow[]>(['files', '--state', 'failed']);
    const r = await cli.run(['retry', String(broken!.id), '--json']);
    // The bytes are still corrupt: it fails again, in a new run, and the command says so with exit 1.
    expect(r.code, r.stderr).toBe(1);
    const [row] = JSON.parse(r.stdout) as UploadRow[];
    expect(row).toMatchObject({ id: broken!.id, state: 'failed' });
    expect(row?.batchId).not.toBe(broken!.batchId);
    expect(await cli.json<RunRow[]>(['runs'])).toHaveLength(3);
  });
});
