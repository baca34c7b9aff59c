/**
 * Results kept for offline use (issue 4, "Local store"): the raw JSON of each page and the
 * normalised files, documents, fields and case fields, written in one transaction; downloaded
 * artifacts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inflateRawSync } from 'node:zlib';
import type { Store } from '../../../../electron/engine/store/index.js';
import { FIELD_ROWS } from '../../../../electron/engine/store/results.js';
import { parseResultsPage } from '../../../../shared/service/index.js';
import { ftsRows } from '../../../helpers/fts-rows.js';
import { EDIT_TEXT, resultsPage, tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
let s: Store;
beforeEach(() => {
  t = tempStore();
  s = t.open();
});
afterEach(() => t.cleanup());

const count = (table: string) => (s.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
/**
 * Rows in the search indexes (their own row totals), after indexing what waits
 * (search-units.ts) and checking they match the tables they index.
 */
const indexed = () => {
  s.results.indexForSearch();
  for (const t of ['field_search', 'document_search']) s.searchDb.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 1)`).run();
  return ftsRows(s.searchDb, 'field_search') + ftsRows(s.searchDb, 'document_search');
};
const ingest = (runId: number, raw = resultsPage(), offset = 0) => s.results.storeResultsPage(runId, raw, parseResultsPage(raw), offset);

describe('storeResultsPage: raw page and normalised rows', () => {
  it('stores the body as received when the client hands it over, byte for byte, instead of serialising the page again', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    const raw = resultsPage();
    // Spacing as a service may send it, which serialising the parsed page would not reproduce.
    const text = JSON.stringify(raw, null, 2).replace('"batch_id": "17"', '"batch_id":   "17"');
    s.results.storeResultsPage(run.id, raw, parseResultsPage(raw), 0, text);
    // Deflated (migration 018): the bytes inflate to the text as received.
    const row = s.db.prepare<[], { raw_json: string; raw_deflated: Buffer }>('SELECT raw_json, raw_deflated FROM result_pages').get()!;
    expect(row.raw_json).toBe('');
    expect(inflateRawSync(row.raw_deflated).toString('utf8')).toBe(text);
    expect(row.raw_deflated.length).toBeLessThan(Buffer.byteLength(text) / 2);
    expect(s.results.rawPages(run.id)).toEqual([{ fileOffset: 0, raw }]);
    expect(s.results.filesOfRun(run.id).flatMap((f) => f.documents.flatMap((d) => d.fields.map((x) => x.value)))).toHaveLength(5);
  });

  it('stores the page as received and every file, document, field and case field of it', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    const raw = resultsPage();
    const stored = ingest(run.id, raw);
    expect(stored).toMatchObject({ documents: 3, fields: 5, caseFields: 2 });
    expect(stored.resultFileIds).toHaveLength(2);
    expect(s.results.rawPages(run.id)).toEqual([{ fileOffset: 0, raw }]);

    const files = s.results.filesOfRun(run.id);
    expect(files.map((f) => f.originalFileName)).toEqual(['Rechnung Müller 2026-03.pdf', 'scan_0007.pdf']);
    const invoice = files[0]!.documents[0]!;
    expect(invoice).toMatchObject({
      className: 'Invoice', pageNumbers: [1, 2], finalResultPass: false, classificationConfidence: 0.88, reviewCompleted: false,
      postProcessedPdfPath: 'svc-drive/workspaces/team/batches/17/out/Rechnung_Muller_2026-03.pdf',
    });
    expect(invoice.fields.map((f) => f.name)).toEqual(['supplier_name', 'invoice_number', 'total_amount', 'due_date']);
    expect(invoice.fields[0]).toMatchObject({ value: 'Müller Bürobedarf GmbH', type: 'TEXT', isError: false, valid: true });
    expect(invoice.fields[2]).toMatchObject({
      value: '1234.50', type: 'NUMBER', confidenceModel: 0.61, confidenceOcr: 0.9, valid: false, isError: false,
      sourceCoordinates: [{ top_x: 0.1, top_y: 0.2, bottom_x: 0.4, bottom_y: 0.25, page_number: 1 }],
      alerts: [{ alert_level: 'FAILURE', msg: 'confidence below 0.8', blocked: false, type: 'min_confidence', locations: [{ field_name: 'total_amount' }] }],
    });
    expect(invoice.fields[2]!.editHistory).toEqual([
      { timestamp: Date.UTC(2026, 10, 1, 9, 30), timestamp_text: EDIT_TEXT, user_id: 'u-7', modifications: [{ message: 'value changed from 1234.00' }] },
    ]);
    expect(files[1]!.documents.map((d) => [d.className, d.pageNumbers, d.fields.length, d.postProcessedPdfPath])).toEqual([
      ['Receipt', [1], 1, null], ['Cover Letter', [2, 3], 0, null],
    ]);

    expect(s.results.errorFields(run.id).map((f) => [f.name, f.value, f.errorMsg])).toEqual([['due_date', 'ERROR', 'no date found on the page']]);
    expect(s.results.caseFields(run.id)).toEqual([
      { id: expect.any(Number), name: 'case_total', value: '1234.50', chosenField: { record_index: 0, refined_phrase_name: 'total_amount' }, errorMsg: null, valid: true, failures: [], inputFields: [{ record_index: 0, refined_phrase_name: 'total_amount' }] },
      { id: expect.any(Number), name: 'case_due', value: null, chosenField: null, errorMsg: 'no input', valid: false, failures: [{ type: 'required', msg: 'due date missing' }], inputFields: [] },
    ]);
  });

  it('stores fields past one statement (FIELD_ROWS) in order, with ascending ids, lists and error flags per field', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    const raw = resultsPage();
    const files = raw.files as { documents: { fields: Record<string, unknown>[] }[] }[];
    const n = FIELD_ROWS * 2 + 7;
    // One document with more fields than a statement holds, each field told apart by its value and lists.
    files[0]!.documents[0]!.fields = Array.from({ length: n }, (_, i) => ({
      field_name: `f${i}`, value: i % 10 === 3 ? 'ERROR' : `v-${i}`, type: 'TEXT', confidence: { model: i / n, ocr: null },
      source_coordinates: i % 2 ? [{ top_x: i, top_y: 0, bottom_x: i + 1, bottom_y: 1, page_number: 0 }] : [],
      edit_history: [], validations: { valid: i % 3 === 0, alerts: i % 5 === 0 ? [{ alert_level: 'WARNING', msg: `a${i}`, blocked: false, type: 't', locations: [] }] : [] },
    }));
    expect(ingest(run.id, raw)).toMatchObject({ fields: n + 1 });
    const fields = s.results.filesOfRun(run.id)[0]!.documents[0]!.fields;
    expect(fields.map((f) => f.name)).toEqual(Array.from({ length: n }, (_, i) => `f${i}`));
    expect(fields.every((f, i) => i === 0 || f.id > fields[i - 1]!.id)).toBe(true);
    fields.forEach((f, i) => {
      expect(f).toMatchObject({ value: i % 10 === 3 ? 'ERROR' : `v-${i}`, isError: i % 10 === 3, valid: i % 3 === 0, confidenceModel: i / n, confidenceOcr: null });
      expect(f.sourceCoordinates).toHaveLength(i % 2);
      expect(f.alerts.map((a) => a.msg)).toEqual(i % 5 === 0 ? [`a${i}`] : []);
      expect(f.editHistory).toEqual([]);
    });
    // An empty list is stored as '[]', as before (the column's default).
    expect(s.db.prepare("SELECT count(*) FROM fields WHERE alerts_json = '[]' AND edit_history_json = '[]'").pluck().get()).toBe(n - Math.ceil(n / 5) + 1);
  });

  it("keeps one copy of the run's case fields, though every results page carries them (the newest page's)", () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    ingest(run.id, resultsPage(), 0);
    ingest(run.id, resultsPage(), 2);
    expect(s.results.filesOfRun(run.id)).toHaveLength(4);
    expect(s.results.caseFields(run.id).map((c) => c.name)).toEqual(['case_total', 'case_due']);
    // A later page without case fields (the block not asked for) leaves the stored ones.
    ingest(run.id, resultsPage({ case_info: { fields: [] } }), 4);
    expect(s.results.caseFields(run.id).map((c) => c.name)).toEqual(['case_total', 'case_due']);
  });

  it('keeps what the service sent in its own terms: pages from 1, boxes from 0, open alert levels, object locations, chosen_field objects whole', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    const raw = resultsPage({
      case_info: { fields: [{ name: 'c', value: 'v', input_fields: [{ record_index: 2, refined_phrase_name: 'total_amount', weight: 1 }], chosen_field: { record_index: 2, refined_phrase_name: 'total_amount', why: 'highest confidence' } }] },
    });
    const [, , total] = (raw.files as { documents: { fields: Record<string, unknown>[] }[] }[])[0]!.documents[0]!.fields;
    total!.validations = { valid: false, alerts: [{ alert_level: 'Needs-Review', msg: 'm', blocked: false, type: 't', locations: [{ field_name: 'total_amount', page: 1 }] }] };
    ingest(run.id, raw);
    const doc = s.results.filesOfRun(run.id)[0]!.documents[0]!;
    expect(doc.pageNumbers).toEqual([1, 2]);
    expect(doc.fields[2]!.sourceCoordinates[0]!.page_number).toBe(1);
    expect(doc.fields[2]!.alerts).toEqual([{ alert_level: 'Needs-Review', msg: 'm', blocked: false, type: 't', locations: [{ field_name: 'total_amount', page: 1 }] }]);
    expect(s.results.caseFields(run.id)[0]).toMatchObject({
      chosenField: { record_index: 2, refined_phrase_name: 'total_amount', why: 'highest confidence' },
      inputFields: [{ record_index: 2, refined_phrase_name: 'total_amount', weight: 1 }],
    });
  });

  it('lists the documents with a post-processed PDF of a run, in service order, without the others', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    const other = s.runs.addRun({ serviceRunId: 'run_9c1d' });
    ingest(run.id, resultsPage({ has_more: true }), 0);
    ingest(run.id, resultsPage(), 2);
    ingest(other.id, resultsPage(), 0);
    const pdf = 'svc-drive/workspaces/team/batches/17/out/Rechnung_Muller_2026-03.pdf';
    const withPdf = s.results.filesOfRun(run.id).flatMap((f) => f.documents).filter((d) => d.postProcessedPdfPath !== null);
    expect(withPdf).toHaveLength(2);
    expect(s.results.postProcessedPdfsOfRun(run.id)).toEqual(withPdf.map((d) => ({ documentId: d.id, path: pdf })));
  });

  it('links a result file to the local file that was uploaded to its input_file_path', () => {
    const f = s.files.add({ path: '/in/scan_0007.pdf', size: 10, mtimeMs: 1, originalName: 'scan_0007.pdf' });
    s.files.assign(f.id, { safeName: 'scan_0007.pdf', batchId: null, servicePath: 'svc-drive/workspaces/team/batches/17/scan_0007.pdf' });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    ingest(run.id);
    expect(s.results.filesOfRun(run.id).map((r) => r.fileId)).toEqual([null, f.id]);
    expect(s.results.resultsOfFile(f.id).map((r) => r.documents.map((d) => d.className))).toEqual([['Receipt', 'Cover Letter']]);
  });

  it('pages are kept in file_offset order; storing a page again replaces it instead of doubling rows', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    const p0 = resultsPage({ has_more: true });
    const p2 = resultsPage({ files: [{ original_file_name: 'third.pdf', input_file_path: 'svc-drive/x/third.pdf', documents: [] }] });
    ingest(run.id, p2, 2);
    ingest(run.id, p0, 0);
    expect(s.results.filesOfRun(run.id).map((f) => f.originalFileName)).toEqual(['Rechnung Müller 2026-03.pdf', 'scan_0007.pdf', 'third.pdf']);
    const before = [count('result_pages'), count('result_files'), count('documents'), count('fields'), count('case_fields'), indexed()];
    ingest(run.id, p0, 0);
    expect([count('result_pages'), count('result_files'), count('documents'), count('fields'), count('case_fields'), indexed()]).toEqual(before);
    expect(s.results.rawPages(run.id).map((p) => p.fileOffset)).toEqual([0, 2]);
  });

  it('a page that cannot be stored leaves nothing behind (one transaction)', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    ingest(run.id);
    const before = [count('result_pages'), count('fields'), indexed()];
    const parsed = parseResultsPage(resultsPage());
    // a field name the schema refuses (NOT NULL) half-way through the page
    (parsed.files[1]!.documents[0]!.fields[0] as { field_name: unknown }).field_name = null;
    expect(() => s.results.storeResultsPage(run.id, resultsPage(), parsed, 0)).toThrow(/NOT NULL/);
    expect([count('result_pages'), count('fields'), indexed()]).toEqual(before);
    expect(s.results.filesOfRun(run.id)).toHaveLength(2);
    expect(() => ingest(999)).toThrow(/FOREIGN KEY/);
  });

  it('deleting a run removes its results and their search rows', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    ingest(run.id);
    expect(indexed()).toBe(5 + 3);
    s.db.prepare('DELETE FROM runs WHERE id = ?').run(run.id);
    expect([count('result_pages'), count('result_files'), count('documents'), count('fields'), count('case_fields'), indexed()]).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('artifacts: downloads that resume', () => {
  it('records service path, local path, bytes written and completion; incomplete ones are listed after a restart', () => {
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' });
    const a = s.results.addArtifact({ runId: run.id, servicePath: 'svc-drive/out/a.pdf', localPath: '/data/out/a.pdf' });
    expect(s.results.addArtifact({ servicePath: 'svc-drive/out/a.pdf', localPath: '/data/out/a.pdf' })).toMatchObject({ id: a.id, runId: run.id });
    s.results.setArtifactProgress(a.id, 4096, false);
    s.close();
    const again = t.open();
    expect(again.results.incompleteArtifacts()).toMatchObject([{ id: a.id, size: 4096, complete: false, localPath: '/data/out/a.pdf' }]);
    again.results.setArtifactProgress(a.id, 8000, true);
    expect(again.results.incompleteArtifacts()).toEqual([]);
    expect(again.results.artifactsOfRun(run.id)).toMatchObject([{ size: 8000, complete: true }]);
  });
});
