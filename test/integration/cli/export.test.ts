// Search and export as people use them (issue 12), through the command against the sandbox: two
// real runs; "INV-30" and "1,250" find what the invoices print; the wide CSV; an export of what a
// folder and a date range select across runs.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchHit } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { buildIfNeeded, cliEnv, expectOneLineError, type Cli } from './cli-env.js';

let sb: RunningSandbox;
let cli: Cli;
const runIds: string[] = [];
const day = (d: Date): string => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const today = day(new Date());
const tomorrow = day(new Date(Date.now() + 86_400_000));

beforeAll(async () => {
  await buildIfNeeded();
  sb = await sandbox();
  cli = await cliEnv({ url: sb.url, token: 'admin-token' });
  const docs = cli.dir('');
  await writeFile(join(docs, 'inv-3003.pdf'), await invoicePdf({ invoiceNumber: 'INV-3003', invoiceDate: 'March 1, 2026', dueDate: 'March 31, 2026', total: '$1,250.00', vendor: 'Acme Tools Ltd' }));
  await writeFile(join(docs, 'inv-4100.pdf'), await invoicePdf({ invoiceNumber: 'INV-4100', invoiceDate: 'March 2, 2026', dueDate: 'April 1, 2026', total: '$80.00', vendor: 'Bolt Co' }));
  for (const f of ['inv-3003.pdf', 'inv-4100.pdf']) {
    const r = await cli.run(['upload', f, '--deployment', 'sandbox-invoices', '--wait', '--json']);
    expect(r.code, r.stderr).toBe(0);
    runIds.push((JSON.parse(r.stdout) as { serviceRunId: string }[])[0]!.serviceRunId);
  }
}, 120_000);
afterAll(async () => {
  await sb?.close();
  await cli?.close();
});

type Shown = {
  files: { file: string; documents: { class_name: string; page_numbers: number[]; fields: { name: string; value: string }[] }[] }[];
  caseFields: { name: string; value: string | null; valid: boolean | null }[];
};
/** A CSV without quoted cells (these invoices give none) as rows of cells. */
const rowsOf = (csv: string): string[][] => csv.trimEnd().split('\r\n').map((l) => l.split(','));

describe('search finds what the invoice prints', () => {
  it('"INV-30" finds INV-3003, and "1,250" its total', async () => {
    const byNumber = await cli.json<SearchHit[]>(['search', 'INV-30']);
    expect(byNumber.filter((h) => h.kind === 'field').map((h) => [h.fieldName, h.value])).toEqual([['invoice_number', 'INV-3003']]);
    const byTotal = await cli.json<SearchHit[]>(['search', '1,250']);
    expect(byTotal.map((h) => [h.fieldName, h.serviceRunId])).toEqual([['total_amount', runIds[0]]]);
  });

  it('"1,25" (half typed), "1 250" and "1\'250" find the same total', async () => {
    for (const q of [['1,25'], ['1', '250'], ["1'250"], ['1.250,00']]) {
      const hits = await cli.json<SearchHit[]>(['search', ...q]);
      expect(hits.map((h) => [h.fieldName, h.value, h.serviceRunId]), q.join(' ')).toEqual([['total_amount', '1250.00', runIds[0]]]);
    }
  });
});

describe('docsync export --wide and across runs', () => {
  it('--wide: one row per document, one column per field as the service names them, values as stored', async () => {
    const out = cli.dir('wide.csv');
    const r = await cli.run(['export', runIds[0]!, '--format', 'csv', '--wide', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const shown = await cli.json<Shown>(['results', runIds[0]!]);
    const doc = shown.files[0]!.documents[0]!;
    const rows = rowsOf(await readFile(out, 'utf8'));
    // The run's case fields follow, one column each, headed "case: NAME".
    expect(rows[0]).toEqual(['file', 'document', 'class', 'pages', ...doc.fields.map((f) => f.name), ...shown.caseFields.map((c) => `case: ${c.name}`)]);
    expect(rows[0]).toContain('Vendor_Name');
    expect(rows[0]).toContain('case: total_invoiced');
    expect(rows.slice(1)).toEqual([['inv-3003.pdf', '1', doc.class_name, doc.page_numbers.join(' '), ...doc.fields.map((f) => f.value), ...shown.caseFields.map((c) => c.value ?? '')]]);
    expect(rows[1]![rows[0]!.indexOf('case: total_invoiced')]).toBe('1250.00');
  });

  it('--folder "by hand" with --since/--until today: both runs, each row naming its run; another day: none', async () => {
    const out = cli.dir('today.csv');
    const r = await cli.run(['export', '--folder', 'by hand', '--since', today, '--until', today, '--format', 'csv', '--wide', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote 2 files of 2 runs to /);
    const rows = rowsOf(await readFile(out, 'utf8'));
    expect(rows[0]!.slice(0, 5)).toEqual(['run', 'file', 'document', 'class', 'pages']);
    expect(rows.slice(1).map((c) => [c[0], c[1]])).toEqual([[runIds[0], 'inv-3003.pdf'], [runIds[1], 'inv-4100.pdf']]);
    const number = rows[0]!.indexOf('invoice_number');
    expect(rows.slice(1).map((c) => c[number])).toEqual(['INV-3003', 'INV-4100']);

    const json = cli.dir('since.json');
    expect((await cli.run(['export', '--since', today, '--format', 'json', '--out', json])).code).toBe(0);
    expect((JSON.parse(await readFile(json, 'utf8')) as { files: { run: string }[] }).files.map((f) => f.run)).toEqual(runIds);
    expectOneLineError(await cli.run(['export', '--since', tomorrow, '--format', 'csv', '--out', cli.dir('none.csv')]), /no run with stored results matches/, 2);
  });

  it('case fields: rows of scope "case" after the documents in the long CSV, each naming its run; case_fields in JSON', async () => {
    const out = cli.dir('cases.csv');
    expect((await cli.run(['export', '--since', today, '--format', 'csv', '--out', out])).code).toBe(0);
    const rows = rowsOf(await readFile(out, 'utf8'));
    expect(rows[0]).toEqual(['run', 'scope', 'file', 'document', 'class', 'pages', 'field', 'value', 'type', 'confidence', 'valid', 'error']);
    const totals = rows.filter((r) => r[1] === 'case' && r[6] === 'total_invoiced').map((r) => [r[0], r[7], r[10]]);
    expect(totals).toEqual([[runIds[0], '1250.00', 'true'], [runIds[1], '80.00', 'true']]);
    // Each run's case rows right after its own documents' rows.
    const scopes = rows.slice(1).map((r) => `${r[0] === runIds[0] ? 1 : 2} ${r[1]}`);
    expect([...new Set(scopes)]).toEqual(['1 document', '1 case', '2 document', '2 case']);

    const json = cli.dir('cases.json');
    expect((await cli.run(['export', runIds[1]!, '--format', 'json', '--out', json])).code).toBe(0);
    const exported = JSON.parse(await readFile(json, 'utf8')) as { files: { file: string }[]; case_fields: { name: string; value: string | null }[] };
    const shown = await cli.json<Shown>(['results', runIds[1]!]);
    expect(exported.files.map((f) => f.file)).toEqual(['inv-4100.pdf']);
    expect(exported.case_fields.map((c) => [c.name, c.value])).toEqual(shown.caseFields.map((c) => [c.name, c.value]));
    expect(exported.case_fields.find((c) => c.name === 'vendors')?.value).toBe('Bolt Co');
  });

  it('refuses what it cannot do in one line each', async () => {
    const out = cli.dir('x.csv');
    expectOneLineError(await cli.run(['export', runIds[0]!, '--format', 'json', '--wide', '--out', out]), /--wide is a CSV layout: use it with --format csv/, 2);
    expectOneLineError(await cli.run(['export', '--since', '30.11.2026', '--format', 'csv', '--out', out]), /--since must be a day written YYYY-MM-DD, like 2026-11-30; got "30.11.2026"/, 2);
    expectOneLineError(await cli.run(['export', '--since', today, '--until', '2020-01-01', '--format', 'csv', '--out', out]), /--until is before --since/, 2);
    expectOneLineError(await cli.run(['export', '--folder', cli.dir('nowhere'), '--format', 'csv', '--out', out]), /is not a hot folder/, 2);
    expectOneLineError(await cli.run(['export', runIds[0]!, '--since', today, '--format', 'csv', '--out', out]), /give a run id or --folder\/--since\/--until, not both/, 2);
  });
});
