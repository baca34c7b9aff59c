/**
 * Scans through a real sandbox over HTTP: an image file and an image-only PDF uploaded to a batch,
 * run by the invoice deployment, read by OCR (real tesseract.js workers), results fetched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, sandbox, waitFor } from '../../helpers/sandbox.js';
import { DRAWN_EXPECTED, imagePdf, invoicePng, rotated, tiffOf } from '../../helpers/ocr-drawings.js';
import { closeAndClean, fileNamed, makeBatch, results, startDeploymentRun, values, waitRun, type Call } from './run-helpers.js';

const drawing = invoicePng();
let sb: RunningSandbox;
let admin: Call;
let run: any;
let body: any;

beforeAll(async () => {
  sb = await sandbox({ ocrWorkers: 1 });
  admin = caller(sb.url, 'admin-token');
  const batchId = await makeBatch(admin, {
    // Names without the usual extensions: files are known by their bytes.
    'scan-0001': drawing.png,
    'scan-0002.pdf': await imagePdf([drawing.png]),
    'scan-0003.tif': await tiffOf([drawing.png, await rotated(drawing.png, 180)]),
  });
  run = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batchId, settings: { runtime_config: { generate_post_process_pdf: true } } });
  run = await waitRun(admin, run.id, ['COMPLETE', 'FAILED', 'CANCELLED'], 60_000);
  body = await results(admin, run.id, { include_source_info: true, include_confidence_scores: true });
}, 90_000);

afterAll(async () => {
  await closeAndClean(sb);
  // The pool is closed with the sandbox: no worker is left to keep the process alive.
  expect(sb.core.ocr.workers).toBe(0);
});

const expected = DRAWN_EXPECTED;

describe('a run over scans', () => {
  it('completes', () => {
    expect(run.status).toBe('COMPLETE');
  });

  it('reads a PNG: fields, page_layouts in pixels, boxes on the values, OCR confidence', () => {
    const [doc, ...rest] = fileNamed(body, 'scan-0001').documents;
    expect(rest).toEqual([]);
    expect(doc.class_name).toBe('Invoice');
    expect(doc.page_numbers).toEqual([1]);
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: drawing.width, height: drawing.height }]);
    expect(values(doc)).toMatchObject(expected);
    const number = doc.fields.find((f: any) => f.field_name === 'invoice_number');
    const [box] = number.source_coordinates;
    const drawn = drawing.values.invoiceNumber!.box;
    expect(box.page_number).toBe(0);
    // Within a few pixels of where the value was drawn.
    expect(Math.abs(box.top_x - drawn.x0)).toBeLessThan(6);
    expect(Math.abs(box.bottom_x - drawn.x1)).toBeLessThan(6);
    expect(Math.abs(box.top_y - drawn.y0)).toBeLessThan(6);
    expect(Math.abs(box.bottom_y - drawn.y1)).toBeLessThan(6);
    expect(number.confidence.ocr).toBeGreaterThan(0.5);
    expect(number.confidence.ocr).toBeLessThanOrEqual(1);
  });

  it('reads an image-only PDF: page_layouts in points, boxes in points', () => {
    const [doc] = fileNamed(body, 'scan-0002.pdf').documents;
    expect(values(doc)).toMatchObject(expected);
    // Drawn at 150 dpi: 1000 x 700 pixels are 480 x 336 points.
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: 480, height: 336 }]);
    const total = doc.fields.find((f: any) => f.field_name === 'total_amount').source_coordinates[0];
    const drawn = drawing.values.total!.box;
    expect(Math.abs(total.top_x - (drawn.x0 * 72) / 150)).toBeLessThan(4);
    expect(Math.abs(total.top_y - (drawn.y0 * 72) / 150)).toBeLessThan(4);
  });

  it('reads a two-page G4 TIFF whose second page was scanned upside down', () => {
    const file = fileNamed(body, 'scan-0003.tif');
    const pages = file.documents.flatMap((d: any) => d.page_layouts);
    expect(pages).toEqual([
      { page_number: 0, width: 1000, height: 700 },
      { page_number: 1, width: 1000, height: 700 },
    ]);
    expect(values(file.documents[0])).toMatchObject(expected);
    // Both pages are the same invoice: one document of two pages, counted from 1.
    expect(file.documents.map((d: any) => d.page_numbers)).toEqual([[1, 2]]);
  });

  it('writes the post-processed PDF of an image with the scanned page in it', async () => {
    const [doc] = fileNamed(body, 'scan-0001').documents;
    expect(doc.post_processed_pdf_path).toEqual(expect.any(String));
    const res = await fetch(`${sb.url}/v2/files/${doc.post_processed_pdf_path}?expect-node-type=file`, { headers: { Authorization: 'Bearer admin-token' } });
    expect(res.status).toBe(200);
    const pdf = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()));
    expect(pdf.getPageCount()).toBe(1);
    // No dpi in a canvas PNG: 72 dpi, one point per pixel.
    expect(pdf.getPage(0).getSize()).toEqual({ width: drawing.width, height: drawing.height });
  });
});

describe('while OCR runs', () => {
  let busy: RunningSandbox;
  afterAll(async () => closeAndClean(busy));

  it('the sandbox still answers API calls', async () => {
    busy = await sandbox({ ocrWorkers: 1 });
    const call = caller(busy.url, 'admin-token');
    // Eight pages for one worker: seconds of OCR in which to call.
    const pages = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? rotated(drawing.png, 180) : Promise.resolve(drawing.png))));
    const batchId = await makeBatch(call, { 'stack.tif': await tiffOf(pages) });
    const started = await startDeploymentRun(call, 'sandbox-invoices', { batch_id: batchId });
    await waitFor(async () => busy.core.ocr.active > 0, 'OCR to start', 30_000);
    const answers = await Promise.all([call('GET', `/v2/apps/runs/${started.id}`), call('GET', '/v2/batches'), call('GET', '/sandbox/health')]);
    // Answered while the page was still being read: the calls did not wait for OCR.
    expect(busy.core.ocr.active).toBeGreaterThan(0);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[0]!.body.status).toBe('RUNNING');
    expect(answers[2]!.body.ocr).toEqual({ max_workers: 1, workers: 1, busy: 1 });
    const done = await waitRun(call, started.id, ['COMPLETE', 'FAILED', 'CANCELLED'], 60_000);
    expect(done.status).toBe('COMPLETE');
  }, 90_000);
});
