/**
 * Reading scans end to end through processFile, with real tesseract.js workers: decoding, orientation,
 * boxes, confidence, unreadable input, and the post-processed PDF of an image.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import UTIF from 'utif2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultDocument, SourceCoordinate } from '../../../shared/service/results.js';
import { OcrPool, processFile, processSource, readSource, writeDocumentPdf } from '../../../sandbox/processing/index.js';
import type { ProcessedFile } from '../../../sandbox/processing/index.js';
import { decodeImage } from '../../../sandbox/processing/ocr/images.js';
import { blankPng, DRAWN_EXPECTED, imagePdf, invoicePng, rotated, rotatedBox, tiffOf } from '../../helpers/ocr-drawings.js';
import type { DrawnValue } from '../../helpers/ocr-drawings.js';
import { expectErrorDocument, INVOICE_FIELD_NAMES, values } from '../../helpers/processed.js';

const drawing = invoicePng();
const EXPECTED = DRAWN_EXPECTED;

let dir: string;
let pool: OcrPool;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'docsync-ocr-'));
  pool = new OcrPool({ size: 2 });
});
afterAll(async () => {
  await pool.close();
  await rm(dir, { recursive: true, force: true });
});

async function put(name: string, bytes: Uint8Array): Promise<string> {
  const p = path.join(dir, name);
  await writeFile(p, bytes);
  return p;
}

async function run(name: string, bytes: Uint8Array): Promise<ProcessedFile> {
  return processFile(await put(name, bytes), name, `/input/${name}`, { passwords: {}, ocr: pool });
}

const boxOf = (doc: ResultDocument, name: string): SourceCoordinate => {
  const box = doc.fields.find((f) => f.field_name === name)?.source_coordinates?.[0];
  if (!box) throw new Error(`no box for ${name}`);
  return box;
};

/** The box lies on the drawn value: every edge within `tol` layout units. */
function expectOn(box: SourceCoordinate, drawn: DrawnValue['box'], tol = 6): void {
  expect(Math.abs(box.top_x - drawn.x0), `top_x ${box.top_x} vs ${drawn.x0}`).toBeLessThan(tol);
  expect(Math.abs(box.top_y - drawn.y0), `top_y ${box.top_y} vs ${drawn.y0}`).toBeLessThan(tol);
  expect(Math.abs(box.bottom_x - drawn.x1), `bottom_x ${box.bottom_x} vs ${drawn.x1}`).toBeLessThan(tol);
  expect(Math.abs(box.bottom_y - drawn.y1), `bottom_y ${box.bottom_y} vs ${drawn.y1}`).toBeLessThan(tol);
}


describe('decoding', () => {
  it('decodes every page of a CCITT G4 TIFF, at its size and resolution', async () => {
    const tiff = await tiffOf([drawing.png, blankPng(1000, 700), drawing.png]);
    // Really G4 (TIFF compression 4), one bit per pixel, three pages.
    const ifds = UTIF.decode(tiff);
    const tag = (ifd: (typeof ifds)[number], t: string): unknown => (ifd[t] as ArrayLike<number> | undefined)?.[0];
    expect(ifds.map((i) => [tag(i, 't259'), tag(i, 't258')])).toEqual([[4, 1], [4, 1], [4, 1]]);
    const pages = await decodeImage(tiff, 'TIFF');
    expect(pages.map((p) => [p.width, p.height, p.dpi])).toEqual([[1000, 700, 300], [1000, 700, 300], [1000, 700, 300]]);
  });

  it('reads a JPEG, known by its bytes whatever its name', async () => {
    const file = await run('scan.dat', await sharp(drawing.png).jpeg({ quality: 85 }).toBuffer());
    expect(values(file.documents[0])).toMatchObject(EXPECTED);
    expect(file.documents[0]!.page_layouts).toEqual([{ page_number: 0, width: 1000, height: 700 }]);
  });

  it('turns a JPEG upright as its EXIF orientation says, as viewers show it', async () => {
    // Orientation 6: the stored pixels must be turned 90 degrees clockwise to be shown.
    const stored = await sharp(await rotated(drawing.png, 270)).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
    const [page] = await decodeImage(stored, 'JPEG');
    expect([page!.width, page!.height]).toEqual([1000, 700]);
    const doc = (await run('exif.jpg', stored)).documents[0]!;
    expect(values(doc)).toMatchObject(EXPECTED);
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: 1000, height: 700 }]);
  });

  it('reads a multi-page G4 TIFF page by page, a blank page included', async () => {
    const file = await run('batch.tif', await tiffOf([drawing.png, blankPng(1000, 700)]));
    expect(file.page_count).toBe(2);
    const layouts = file.documents.flatMap((d) => d.page_layouts ?? []);
    expect(layouts).toEqual([
      { page_number: 0, width: 1000, height: 700 },
      { page_number: 1, width: 1000, height: 700 },
    ]);
    expect(values(file.documents[0])).toMatchObject(EXPECTED);
  });
});

describe('boxes and confidence', () => {
  it('gives each value the box of its words, in pixels, on page 0', async () => {
    const doc = (await run('invoice.png', drawing.png)).documents[0]!;
    expect(doc.page_numbers).toEqual([1]);
    for (const [field, key] of [['invoice_number', 'invoiceNumber'], ['invoice_date', 'invoiceDate'], ['due_date', 'dueDate'], ['total_amount', 'total'], ['Vendor_Name', 'vendor']] as const) {
      const box = boxOf(doc, field);
      expect(box.page_number).toBe(0);
      expectOn(box, drawing.values[key]!.box);
    }
  });

  it('reports confidence.ocr as the mean OCR confidence of the value\'s words', async () => {
    const p = await put('conf.png', drawing.png);
    const source = await readSource(p, 'conf.png', { passwords: {}, ocr: pool });
    if ('error' in source.read) throw new Error(source.read.error);
    const doc = processSource(source, 'conf.png', '/input/conf.png').documents[0]!;
    // Vendor "Northwind Traders" is two words: its confidence is the mean of theirs.
    const line = source.read.pages[0]!.lines.find((l) => l.text.startsWith('Northwind'))!;
    const confs = line.spans.slice(0, 2).map((s) => s.conf!);
    const vendor = doc.fields.find((f) => f.field_name === 'Vendor_Name')!;
    // Both are rounded to hundredths.
    expect(Math.abs(vendor.confidence!.ocr - (confs[0]! + confs[1]!) / 2)).toBeLessThanOrEqual(0.0051);
    for (const f of doc.fields) {
      if (f.value === '') expect(f.confidence?.ocr).toBe(0);
      else expect(f.confidence!.ocr).toBeGreaterThan(0.5);
      expect(f.confidence!.ocr).toBeLessThanOrEqual(1);
    }
  });
});

describe('orientation', () => {
  it.each([90, 180, 270] as const)('reads a page scanned turned %i degrees and reports it as scanned', async (deg) => {
    const file = await run(`turned-${deg}.png`, await rotated(drawing.png, deg));
    const doc = file.documents[0]!;
    expect(values(doc)).toMatchObject(EXPECTED);
    const [w, h] = deg === 180 ? [1000, 700] : [700, 1000];
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: w, height: h }]);
    expectOn(boxOf(doc, 'invoice_number'), rotatedBox(drawing.values.invoiceNumber!.box, deg, drawing.width, drawing.height));
    expectOn(boxOf(doc, 'total_amount'), rotatedBox(drawing.values.total!.box, deg, drawing.width, drawing.height));
  });
});

describe('a page larger than OCR is given', () => {
  it('is read from a smaller copy, with boxes in the page\'s own pixels', async () => {
    // 7000 x 4900: over MAX_OCR_PIXELS (a letter page at 600 dpi).
    const big = await sharp(drawing.png).resize({ width: 7000, kernel: 'nearest' }).png({ compressionLevel: 1 }).toBuffer();
    const doc = (await run('big.png', big)).documents[0]!;
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: 7000, height: 4900 }]);
    expect(values(doc)).toMatchObject(EXPECTED);
    const b = drawing.values.invoiceNumber!.box;
    expectOn(boxOf(doc, 'invoice_number'), { x0: b.x0 * 7, y0: b.y0 * 7, x1: b.x1 * 7, y1: b.y1 * 7 }, 6 * 7);
  }, 120_000);
});

describe('image-only PDF', () => {
  it('renders the page, reads it, and reports page and boxes in PDF points', async () => {
    const file = await run('scan.pdf', await imagePdf([drawing.png], 200));
    const doc = file.documents[0]!;
    expect(values(doc)).toMatchObject(EXPECTED);
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: 360, height: 252 }]);
    const pt = (b: DrawnValue['box']): DrawnValue['box'] => ({ x0: (b.x0 * 72) / 200, y0: (b.y0 * 72) / 200, x1: (b.x1 * 72) / 200, y1: (b.y1 * 72) / 200 });
    expectOn(boxOf(doc, 'invoice_number'), pt(drawing.values.invoiceNumber!.box), 3);
  });
});

describe('unreadable input', () => {
  it('says a damaged image is damaged, for each kind', async () => {
    const png = drawing.png;
    const truncated = await run('cut.png', png.subarray(0, Math.floor(png.length / 2)));
    expectErrorDocument(truncated, /^unreadable image: the PNG file is damaged or incomplete/);
    const tiff = Buffer.concat([Buffer.from([0x49, 0x49, 42, 0]), Buffer.alloc(64, 0xee)]);
    expectErrorDocument(await run('junk.tif', tiff), /^unreadable image: the TIFF file is damaged or incomplete/);
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(64, 7)]);
    expectErrorDocument(await run('junk.jpg', jpeg), /^unreadable image: the JPEG file is damaged or incomplete/);
  });

  it('says an empty page has no text, with its page layout', async () => {
    const doc = expectErrorDocument(await run('blank.png', blankPng(800, 600)), /^no text: OCR found no readable text in the image on its page/);
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: 800, height: 600 }]);
    expect(doc.page_numbers).toEqual([1]);
  });
});

describe('post-processed PDF of an image', () => {
  it('holds the page images at their resolution, from the read given (no second OCR)', async () => {
    const p = await put('two.tif', await tiffOf([drawing.png, drawing.png], 'lzw'));
    const source = await readSource(p, 'two.tif', { passwords: {}, ocr: pool });
    const doc = processSource(source, 'two.tif', '/input/two.tif').documents[0]!;
    expect(doc.page_numbers).toEqual([1, 2]);
    // A closed pool would fail any OCR: the PDF comes from the read it is given.
    const closed = new OcrPool({ size: 1 });
    await closed.close();
    const out = path.join(dir, 'two.pdf');
    await writeDocumentPdf(p, 'two.tif', doc, out, { passwords: {}, ocr: closed, source });
    const pdf = await PDFDocument.load(new Uint8Array(await readFile(out)));
    // 1000 x 700 pixels at 300 dpi: 240 x 168 points.
    expect(pdf.getPages().map((pg) => pg.getSize())).toEqual([{ width: 240, height: 168 }, { width: 240, height: 168 }]);
  });
});
