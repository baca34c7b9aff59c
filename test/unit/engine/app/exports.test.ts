/**
 * Exports as spreadsheets use them (issue 12): the wide CSV (one row per document, one column per
 * field) and exports of what is selected across runs (a folder, a date range), over a real store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRun, exportSelection, exportText, selectedRuns } from '../../../../electron/engine/app/exports.js';
import type { Store } from '../../../../electron/engine/store/index.js';
import { parseResultsPage } from '../../../../shared/service/index.js';
import { dayBounds } from '../../../../shared/day-range.js';
import { resultsPage, tempStore, type TempStore } from '../store/fixtures.js';

let t: TempStore;
let s: Store;
let clock = 0;
const DAY = 86_400_000;
const NOV_1 = dayBounds('2026-11-01')!.startMs;
let folderA = 0;
let folderB = 0;
/** A run with stored results, started at `at`, from a hot folder (or added by hand: null). */
function run(id: string, at: number, folderId: number | null, page = resultsPage()): number {
  clock = at;
  const batchId = s.runs.addBatch({ folderId }).id;
  const r = s.runs.addRun({ serviceRunId: id, batchId }).id;
  s.results.storeResultsPage(r, page, parseResultsPage(page), 0);
  return r;
}
const field = (field_name: string, value: string | null) => ({ field_name, value, type: 'TEXT' });
const onlyFile = (file: string, fields: ReturnType<typeof field>[]) =>
  resultsPage({ files: [{ original_file_name: file, input_file_path: null, documents: [{ class_name: 'Invoice', page_numbers: [1], fields }] }], case_info: { fields: [] } });

beforeAll(() => {
  t = tempStore();
  s = t.open({ now: () => clock });
  folderA = s.folders.add({ path: '/scans/a', deploymentId: 'd1' }).id;
  folderB = s.folders.add({ path: '/scans/b', deploymentId: 'd1' }).id;
  run('run_a1', NOV_1 + 9 * 3_600_000, folderA, onlyFile('a1.pdf', [field('invoice_number', 'INV-1'), field('Vendor_Name', 'Acme, "Tools" Ltd')]));
  run('run_b1', NOV_1 + DAY + 10 * 3_600_000, folderB, onlyFile('b1.pdf', [field('invoice_number', 'INV-2'), field('total_amount', '1250.00')]));
  run('run_a2', NOV_1 + 2 * DAY + 11 * 3_600_000, folderA, onlyFile('a2.pdf', [field('total_amount', '=1+1'), field('invoice_number', 'INV-3')]));
  run('run_hand', NOV_1 + 2 * DAY + 12 * 3_600_000, null, onlyFile('hand.pdf', [field('invoice_number', 'INV-4')]));
});
afterAll(() => t.cleanup());

describe('the wide CSV', () => {
  /** The wide CSV of one page stored as one run, in a store of its own. */
  function wideOf(page: Record<string, unknown>): string {
    const own = tempStore();
    try {
      const st = own.open();
      const r = st.runs.addRun({ serviceRunId: 'run_one' }).id;
      st.results.storeResultsPage(r, page, parseResultsPage(page), 0);
      return exportText('csv-wide', st.results.filesOfRun(r), new Map());
    } finally {
      own.cleanup();
    }
  }

  it('one row per document, one column per field named as the service names it; pages as the service counts them', () => {
    expect(wideOf(resultsPage())).toBe([
      'file,document,class,pages,supplier_name,invoice_number,total_amount,due_date,merchant',
      'Rechnung Müller 2026-03.pdf,1,Invoice,1 2,Müller Bürobedarf GmbH,INV-2026-0042,1234.50,ERROR,',
      'scan_0007.pdf,1,Receipt,1,,,,,Café Olé',
      'scan_0007.pdf,2,Cover Letter,2 3,,,,,',
      '',
    ].join('\r\n'));
  });

  it('cells are quoted as RFC 4180 says; a field a document has twice gets both values, one per line; values are written as stored', () => {
    const page = onlyFile('twice.pdf', [field('_1st_Line_Item', 'Desk, oak'), field('_1st_Line_Item', 'Chair "Ergo"'), field('note', null)]);
    expect(wideOf(page)).toBe('file,document,class,pages,_1st_Line_Item,note\r\ntwice.pdf,1,Invoice,1,"Desk, oak\nChair ""Ergo""",\r\n');
  });
});

describe('exports across runs', () => {
  const runsOf = (sel: Parameters<typeof selectedRuns>[1]) => selectedRuns(s, sel).map((r) => r.serviceRunId);

  it('a folder, the files added by hand, or everything; oldest run first', () => {
    expect(runsOf({ folderId: folderA })).toEqual(['run_a1', 'run_a2']);
    expect(runsOf({ folderId: folderB })).toEqual(['run_b1']);
    expect(runsOf({ folderId: null })).toEqual(['run_hand']);
    expect(runsOf({})).toEqual(['run_a1', 'run_b1', 'run_a2', 'run_hand']);
  });

  it('a date range of whole local days, both ends included, with or without a folder', () => {
    const nov2 = dayBounds('2026-11-02')!;
    const nov3 = dayBounds('2026-11-03')!;
    expect(runsOf({ sinceMs: nov2.startMs, untilMs: nov3.endMs })).toEqual(['run_b1', 'run_a2', 'run_hand']);
    expect(runsOf({ sinceMs: nov2.startMs, untilMs: nov2.endMs })).toEqual(['run_b1']);
    expect(runsOf({ folderId: folderA, sinceMs: nov2.startMs })).toEqual(['run_a2']);
    expect(runsOf({ untilMs: nov2.startMs })).toEqual(['run_a1']);
    expect(runsOf({ sinceMs: dayBounds('2026-12-01')!.startMs })).toEqual([]);
  });

  it('every row (or JSON file) says which run it came from; the wide CSV has the columns of every run', () => {
    const wide = exportSelection(s, { folderId: folderA }, 'csv-wide');
    expect(wide).toMatchObject({ runs: 2, files: 2 });
    expect(wide.text).toBe([
      'run,file,document,class,pages,invoice_number,Vendor_Name,total_amount',
      'run_a1,a1.pdf,1,Invoice,1,INV-1,"Acme, ""Tools"" Ltd",',
      'run_a2,a2.pdf,1,Invoice,1,INV-3,,=1+1',
      '',
    ].join('\r\n'));
    const long = exportSelection(s, { folderId: folderB }, 'csv').text.split('\r\n');
    expect(long[0]).toBe('run,scope,file,document,class,pages,field,value,type,confidence,valid,error');
    expect(long[2]).toBe('run_b1,document,b1.pdf,1,Invoice,1,total_amount,1250.00,TEXT,,,');
    const json = JSON.parse(exportSelection(s, { folderId: null }, 'json').text) as { files: { run: string; file: string }[]; case_fields: unknown[] };
    expect(json.files.map((f) => [f.run, f.file])).toEqual([['run_hand', 'hand.pdf']]);
    expect(json.case_fields).toEqual([]);
  });

  it('a day that does not exist is no day', () => {
    expect(dayBounds('2026-02-31')).toBeNull();
    expect(dayBounds('31.12.2026')).toBeNull();
    expect(dayBounds('2026-11-30')!.endMs - dayBounds('2026-11-30')!.startMs).toBeGreaterThanOrEqual(23 * 3_600_000);
  });
});

describe('case fields in exports (issue 12)', () => {
  // Two runs of one folder, each with its own case fields (the fixture's case_total and case_due; the second with other values).
  let c: TempStore;
  let cs: Store;
  let first = 0;
  beforeAll(() => {
    c = tempStore();
    let at = NOV_1;
    cs = c.open({ now: () => at });
    const folder = cs.folders.add({ path: '/scans/c', deploymentId: 'd1' }).id;
    const store = (id: string, page: Record<string, unknown>): number => {
      at += 3_600_000;
      const r = cs.runs.addRun({ serviceRunId: id, batchId: cs.runs.addBatch({ folderId: folder }).id }).id;
      cs.results.storeResultsPage(r, page, parseResultsPage(page), 0);
      return r;
    };
    first = store('run_c1', resultsPage());
    const second = onlyFile('c2.pdf', [field('invoice_number', 'INV-9')]);
    store('run_c2', { ...second, case_info: { fields: [{ name: 'case_total', value: '9.00', input_fields: [], chosen_field: null, edit_history: [], validations: { valid: true, failures: [] } }] } });
  });
  afterAll(() => c.cleanup());

  it('the long CSV: each row has a scope; the run\'s case fields follow its documents, with why one is not valid', () => {
    const rows = exportRun(cs, first, 'csv').text.trimEnd().split('\r\n');
    expect(rows[0]).toBe('scope,file,document,class,pages,field,value,type,confidence,valid,error');
    expect(rows.slice(1, -2).every((r) => r.startsWith('document,'))).toBe(true);
    expect(rows.slice(-2)).toEqual(['case,,,,,case_total,1234.50,,,true,', 'case,,,,,case_due,,,,false,no input; due date missing']);
  });

  it('the wide CSV: a column "case: NAME" per case field, its value on each of the run\'s documents', () => {
    const rows = exportRun(cs, first, 'csv-wide').text.trimEnd().split('\r\n').map((r) => r.split(','));
    expect(rows[0]!.slice(-2)).toEqual(['case: case_total', 'case: case_due']);
    expect(rows.slice(1).map((r) => [r[0], r.at(-2), r.at(-1)])).toEqual([
      ['Rechnung Müller 2026-03.pdf', '1234.50', ''], ['scan_0007.pdf', '1234.50', ''], ['scan_0007.pdf', '1234.50', ''],
    ]);
  });

  it('across runs each run\'s case values stay with its own documents and rows; JSON has them as case_fields', () => {
    const wide = exportSelection(cs, {}, 'csv-wide').text.trimEnd().split('\r\n').map((r) => r.split(','));
    const total = wide[0]!.indexOf('case: case_total');
    expect(wide.slice(1).map((r) => [r[0], r[total]])).toEqual([['run_c1', '1234.50'], ['run_c1', '1234.50'], ['run_c1', '1234.50'], ['run_c2', '9.00']]);
    const long = exportSelection(cs, {}, 'csv').text.trimEnd().split('\r\n');
    expect(long.filter((r) => r.split(',')[1] === 'case')).toEqual([
      'run_c1,case,,,,,case_total,1234.50,,,true,', 'run_c1,case,,,,,case_due,,,,false,no input; due date missing', 'run_c2,case,,,,,case_total,9.00,,,true,',
    ]);
    // The first run's case rows come right after its documents, before the second run's.
    expect(long.indexOf('run_c1,case,,,,,case_due,,,,false,no input; due date missing')).toBeLessThan(long.findIndex((r) => r.startsWith('run_c2,document,')));
    const json = JSON.parse(exportSelection(cs, {}, 'json').text) as { files: { run: string }[]; case_fields: { run: string; name: string; value: string | null; valid: boolean | null; error_msg: string | null; failures: unknown[] }[] };
    expect(json.files.map((f) => f.run)).toEqual(['run_c1', 'run_c1', 'run_c2']);
    expect(json.case_fields).toEqual([
      expect.objectContaining({ run: 'run_c1', name: 'case_total', value: '1234.50', valid: true, error_msg: null }),
      expect.objectContaining({ run: 'run_c1', name: 'case_due', value: null, valid: false, error_msg: 'no input', failures: [{ type: 'required', msg: 'due date missing' }] }),
      expect.objectContaining({ run: 'run_c2', name: 'case_total', value: '9.00' }),
    ]);
  });
});
