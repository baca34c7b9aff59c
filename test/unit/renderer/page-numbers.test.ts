/**
 * Page numbers through every layer (issue 11): the sandbox sends a document's page_numbers from 1
 * and source_coordinates / page_layouts from 0, as the service does; the parser and the store keep
 * that meaning; the UI's views show the page as a person counts it and open page index
 * page_number - 1; the source viewer draws a box on the page its source_coordinates name; the CSV
 * and JSON exports keep the service's numbers.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentView, pageLayouts } from '../../../electron/engine/app/views.js';
import { resultsCsv, resultsJson } from '../../../electron/engine/pipeline/outputs.js';
import { processFile } from '../../../sandbox/processing/index.js';
import { shapeFile } from '../../../sandbox/runs/shape.js';
import { parseResultsPage } from '../../../shared/service/index.js';
import type { DocumentView } from '../../../shared/ui/views.js';
import { formatPages } from '../../../renderer/src/lib/run-format.js';
import { boxPage, boxRect, boxUnits, fieldPage } from '../../../renderer/src/lib/source-box.js';
import { INVOICE_LAYOUT, MULTI_CLASS, PAGE_HEIGHT, PAGE_WIDTH, coverInvoiceReceiptPdf } from '../../helpers/pdf-fixtures.js';
import { tempStore, type TempStore } from '../engine/store/fixtures.js';

const ALL = { include_review_results: true, include_confidence_scores: true, include_validation_results: true, include_source_info: true };

let dir: string;
let t: TempStore;
let docs: DocumentView[];
let csv: string;
let json: { documents: { class_name: string | null; page_numbers: number[]; fields: { name: string; value: string | null; source_coordinates: { page_number: number }[] }[] }[] }[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'docsync-pages-'));
  const pdf = path.join(dir, 'packet.pdf');
  await writeFile(pdf, await coverInvoiceReceiptPdf());
  // What the sandbox sends for the file (every include_* block on) ...
  const file = shapeFile(await processFile(pdf, 'packet.pdf', 'svc-drive/in/packet.pdf', { passwords: {} }), ALL);
  const raw = JSON.parse(JSON.stringify({ id: 'run_p', status: 'COMPLETE', batch_id: '7', files: [file], keys: [{ custom: {} }], case_info: { fields: [] }, has_more: false }));
  // ... read, stored, and turned into the UI's views.
  t = tempStore();
  const s = t.open();
  const run = s.runs.addRun({ serviceRunId: 'run_p' });
  s.results.storeResultsPage(run.id, raw, parseResultsPage(raw), 0);
  const files = s.results.filesOfRun(run.id);
  const layouts = pageLayouts(s, run.id);
  docs = files[0]!.documents.map((d, i) => documentView(d, layouts.get(`0:${i}`) ?? []));
  csv = resultsCsv(files);
  json = JSON.parse(resultsJson(files));
});
afterAll(async () => {
  t.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('a three-page file: cover (page 1), invoice (page 2), receipt (page 3)', () => {
  it('the service\'s page_numbers count from 1; the viewer\'s page indexes from 0', () => {
    expect(docs.map((d) => [d.className, d.pageNumbers, d.pageIndexes])).toEqual([
      ['Other', [1], [0]],
      ['Invoice', [2], [1]],
      ['Receipt', [3], [2]],
    ]);
  });

  it('labels are as a person counts pages', () => {
    expect(docs.map((d) => formatPages(d.pageNumbers))).toEqual(['page 1', 'page 2', 'page 3']);
    expect(docs.map((d) => formatPages(d.pageNumbers, 'short'))).toEqual(['p. 1', 'p. 2', 'p. 3']);
  });

  it('a field of the invoice opens page index 1 ("Page 2"), with its page layout, and its box where the value is drawn', () => {
    const invoice = docs[1]!;
    const total = invoice.fields.find((f) => f.name === 'total_amount')!;
    expect(total.boxes).toHaveLength(1);
    const page = fieldPage(total.boxes, invoice.pageIndexes);
    expect(page).toBe(1);
    expect(`Page ${page + 1} of 3`).toBe('Page 2 of 3');
    expect(boxPage(total.boxes[0]!, invoice.pageIndexes)).toBe(1);
    const layout = invoice.pageLayouts.find((l) => l.page === page);
    expect(layout).toEqual({ page: 1, width: PAGE_WIDTH, height: PAGE_HEIGHT });
    const r = boxRect(total.boxes[0]!, { width: PAGE_WIDTH, height: PAGE_HEIGHT }, 1, boxUnits(total.boxes), layout)!;
    expect(r.x).toBeCloseTo(INVOICE_LAYOUT.amountDue.valueX, 0);
    expect(r.y).toBeGreaterThan(PAGE_HEIGHT - INVOICE_LAYOUT.amountDue.y - 12);
    expect(r.y).toBeLessThan(PAGE_HEIGHT - INVOICE_LAYOUT.amountDue.y);
  });

  it('a field without a box opens the document\'s first page: page index 1 for the invoice, not 2', () => {
    expect(fieldPage([], docs[1]!.pageIndexes)).toBe(1);
    expect(fieldPage([], docs[2]!.pageIndexes)).toBe(2);
  });

  it('the receipt\'s boxes are on page index 2', () => {
    const receipt = docs[2]!;
    expect(receipt.fields.find((f) => f.name === 'merchant')?.boxes[0]?.page).toBe(2);
    expect(receipt.pageLayouts.map((l) => l.page)).toEqual([2]);
  });

  it('the CSV export writes pages as the service numbers them (from 1)', () => {
    const rows = csv.trim().split('\r\n').map((l) => l.split(','));
    const pages = new Map(rows.slice(1).map((r) => [r[2], r[3]]));
    expect(pages).toEqual(new Map([['Other', '1'], ['Invoice', '2'], ['Receipt', '3']]));
  });

  it('the JSON export keeps page_numbers from 1 and source_coordinates from 0', () => {
    const [other, invoice, receipt] = json[0]!.documents;
    expect([other!.page_numbers, invoice!.page_numbers, receipt!.page_numbers]).toEqual([[1], [2], [3]]);
    const number = invoice!.fields.find((f) => f.name === 'invoice_number')!;
    expect(number.value).toBe(MULTI_CLASS.invoice.invoiceNumber);
    expect(number.source_coordinates[0]?.page_number).toBe(1);
  });
});
