/**
 * The scan generator itself: real files decoded back with sharp, utif2 and pdfjs, and every field's
 * box checked against the ink of the delivered page.
 */
import sharp from 'sharp';
import UTIF from 'utif2';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPdfjs } from '../../../sandbox/processing/pdfjs.js';
import { scanSet, scannedInvoice } from '../../helpers/scans.js';
import type { Scan } from '../../helpers/scans.js';
import { iou } from '../../helpers/scans/geometry.js';
import type { Box } from '../../helpers/scans/geometry.js';
import { expectedFields } from '../../helpers/scans/oracle.js';
import { renderPages } from '../../helpers/scans/render.js';
import type { Gray } from '../../helpers/scans/render.js';
import { randomInvoice, seeded } from '../../helpers/scans/random.js';
import { PAGE_HEIGHT, PAGE_WIDTH, invoicePdf } from '../../helpers/pdf-fixtures.js';
import type { InvoiceOptions } from '../../helpers/pdf-fixtures.js';

const INVOICE: InvoiceOptions = {
  invoiceNumber: 'INV-1001', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$1,234.50',
  vendor: 'Acme Supplies Ltd.', currency: 'USD', lineItem: 'Widget assembly',
};

/** Page `n` of a scan as grey pixels in its page_layout units (PDF pages rendered at `k` px per point). */
async function pageOf(scan: Scan, n: number, k = 2): Promise<{ g: Gray; k: number }> {
  if (scan.format === 'pdf') return { g: (await renderPages(scan.bytes, 72 * k))[n]!, k };
  const { data, info } = await sharp(scan.bytes, { page: n }).flatten({ background: '#fff' }).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { g: { data, width: info.width, height: info.height }, k: 1 };
}

/** Share of dark pixels (< 128) inside box `b` scaled by `k`. */
function ink(g: Gray, b: Box, k: number): number {
  let dark = 0;
  let all = 0;
  for (let y = Math.max(0, Math.floor(b.y0 * k)); y < Math.min(g.height, Math.ceil(b.y1 * k)); y++) {
    for (let x = Math.max(0, Math.floor(b.x0 * k)); x < Math.min(g.width, Math.ceil(b.x1 * k)); x++) {
      all++;
      if (g.data[y * g.width + x]! < 128) dark++;
    }
  }
  return all === 0 ? 0 : dark / all;
}

interface Crop {
  data: Buffer;
  w: number;
  h: number;
}

/** Box `box` of `g` with a margin of 3 px, turned by `turn` clockwise. */
async function crop(g: Gray, box: Box, turn: number): Promise<Crop> {
  const left = Math.round(box.x0) - 3;
  const top = Math.round(box.y0) - 3;
  const { data, info } = await sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } })
    .extract({ left, top, width: Math.round(box.x1) + 3 - left, height: Math.round(box.y1) + 3 - top })
    .rotate(turn % 360)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, w: info.width, h: info.height };
}

/** Best share of equal pixels of two crops over shifts of up to 2 px. */
function bestMatch(a: Crop, b: Crop): number {
  let best = 0;
  for (let dy = -2; dy <= 2; dy++) {
    for (let dx = -2; dx <= 2; dx++) {
      let same = 0;
      let all = 0;
      for (let y = 2; y < a.h - 2; y++) {
        for (let x = 2; x < a.w - 2; x++) {
          all++;
          if (Math.abs(a.data[y * a.w + x]! - b.data[(y + dy) * b.w + x + dx]!) < 64) same++;
        }
      }
      best = Math.max(best, same / all);
    }
  }
  return best;
}

describe('scannedInvoice', () => {
  it('renders at the asked dpi and records it in a PNG', async () => {
    for (const dpi of [150, 300]) {
      const scan = await scannedInvoice(INVOICE, 'png', { dpi });
      const meta = await sharp(scan.bytes).metadata();
      expect(meta.format).toBe('png');
      expect([meta.width, meta.height]).toEqual([(PAGE_WIDTH * dpi) / 72, (PAGE_HEIGHT * dpi) / 72]);
      expect(meta.density).toBe(dpi);
      expect(scan.pages).toEqual([{ width: meta.width, height: meta.height }]);
    }
  });

  it('writes a JPEG as JPEG', async () => {
    const scan = await scannedInvoice(INVOICE, 'jpeg', { dpi: 200, jpegQuality: 60, noise: 0.3 });
    expect(scan.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const meta = await sharp(scan.bytes).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.density).toBe(200);
    expect(scan.name).toBe('INV-1001.jpg');
  });

  it('writes every page into one bilevel CCITT G4 TIFF', async () => {
    const scan = await scannedInvoice(INVOICE, 'tiff', { dpi: 200, pages: 3, noise: 0.2 });
    const meta = await sharp(scan.bytes).metadata();
    expect(meta.format).toBe('tiff');
    expect(meta.pages).toBe(3);
    const ifds = UTIF.decode(scan.bytes);
    expect(ifds).toHaveLength(3);
    for (const ifd of ifds) {
      expect(ifd.t259).toEqual([4]); // Compression: CCITT T.6 (Group 4)
      expect(ifd.t258).toEqual([1]); // BitsPerSample: bilevel
      expect(ifd.t256).toEqual([1700]); // ImageWidth at 200 dpi
      expect(ifd.t257).toEqual([2200]); // ImageLength
    }
    expect(scan.pages).toEqual([1700, 1700, 1700].map((width) => ({ width, height: 2200 })));
  });

  it('writes a PDF of images with no text layer, pages in points', async () => {
    const scan = await scannedInvoice(INVOICE, 'pdf', { dpi: 150, pages: 2, jpegQuality: 70 });
    const pdfjs = await loadPdfjs();
    const doc = await pdfjs.getDocument({ data: new Uint8Array(scan.bytes), verbosity: 0 }).promise;
    try {
      expect(doc.numPages).toBe(2);
      for (let n = 1; n <= 2; n++) {
        const page = await doc.getPage(n);
        expect((await page.getTextContent()).items).toEqual([]);
        const vp = page.getViewport({ scale: 1 });
        expect([vp.width, vp.height]).toEqual([PAGE_WIDTH, PAGE_HEIGHT]);
      }
    } finally {
      await doc.destroy();
    }
    expect(scan.pages).toEqual([{ width: PAGE_WIDTH, height: PAGE_HEIGHT }, { width: PAGE_WIDTH, height: PAGE_HEIGHT }]);
  });

  it('turns a page by a quarter turn, boxes with it', async () => {
    const upright = await scannedInvoice(INVOICE, 'png', { dpi: 150 });
    const a = (await pageOf(upright, 0)).g;
    for (const rotate of [90, 180, 270] as const) {
      const scan = await scannedInvoice(INVOICE, 'png', { dpi: 150, rotate });
      const b = (await pageOf(scan, 0)).g;
      expect([b.width, b.height]).toEqual(rotate === 180 ? [a.width, a.height] : [a.height, a.width]);
      expect(b.data.equals(a.data)).toBe(false);
      // The crop at a turned box, turned back, is the crop at the upright box (give or take the
      // pixel that rounding a box edge may move it by).
      for (const [i, f] of scan.fields.entries()) {
        const back = await crop(b, f.box, 360 - rotate);
        const want = await crop(a, upright.fields[i]!.box, 0);
        expect(back.w * back.h).toBe(want.w * want.h);
        expect(bestMatch(back, want), `${f.name} at ${rotate}`).toBeGreaterThan(0.97);
      }
    }
  });

  it('skews by a fraction of a degree on a white canvas that grows to hold the page', async () => {
    const scan = await scannedInvoice(INVOICE, 'png', { dpi: 200, skewDeg: 0.8 });
    const { g } = await pageOf(scan, 0);
    expect(g.width).toBeGreaterThan(1700);
    expect(g.height).toBeGreaterThan(2200);
    // Corners stay white: the canvas is filled, not black.
    expect(g.data[0]).toBeGreaterThan(250);
    expect(g.data[g.data.length - 1]).toBeGreaterThan(250);
  });

  it('knows where each value is printed: layout boxes agree with the sandbox text-layer boxes', async () => {
    const r = seeded(7);
    for (let i = 0; i < 8; i++) {
      const o = randomInvoice(r);
      const fields = await expectedFields(o, await invoicePdf(o));
      expect(fields.map((f) => f.name).sort()).toEqual(['Vendor_Name', '_1st_Line_Item', 'currency', 'due_date', 'invoice_date', 'invoice_number', 'total_amount']);
      for (const f of fields) expect(iou(f.box, f.textLayerBox!), `${f.name} of ${o.invoiceNumber}`).toBeGreaterThan(0.5);
    }
  });
});

describe('scanSet', () => {
  let set: Scan[];
  beforeAll(async () => {
    set = await scanSet();
  }, 180_000);

  it('holds at least 20 varied scans with all formats and distortions, named apart', () => {
    expect(set.length).toBeGreaterThanOrEqual(20);
    expect(new Set(set.map((s) => s.name)).size).toBe(set.length);
    expect(new Set(set.map((s) => s.format))).toEqual(new Set(['png', 'jpeg', 'tiff', 'pdf']));
    expect(set.some((s) => s.format === 'tiff' && s.pages.length > 1)).toBe(true);
    // Pages turned sideways, in an image and in a PDF.
    expect(set.some((s) => s.format === 'png' && s.pages[0]!.width > s.pages[0]!.height)).toBe(true);
    expect(set.some((s) => s.format === 'pdf' && s.pages.length > 1 && s.pages.every((p) => p.width > p.height))).toBe(true);
    expect(new Set(set.map((s) => s.fields.find((f) => f.name === 'Vendor_Name')?.value)).size).toBeGreaterThan(5);
    expect(new Set(set.map((s) => s.fields.find((f) => f.name === 'total_amount')?.value)).size).toBe(set.length);
    for (const s of set) expect(s.fields.length, s.name).toBe(7);
  });

  // Measured: at least 17 % of a value's box is ink; a box turned the wrong way round keeps 8 %.
  it('puts every box on ink of its page', async () => {
    for (const s of set) {
      const { g, k } = await pageOf(s, 0);
      for (const f of s.fields) {
        expect(f.page).toBe(0);
        for (const b of [f.box, ...(f.alsoAt ?? [])]) expect(ink(g, b, k), `${f.name} of ${s.name}`).toBeGreaterThan(0.12);
      }
    }
  }, 120_000);

  it('is the same on every run', async () => {
    const again = await scanSet(3);
    expect(again.map((s) => s.bytes)).toEqual(set.slice(0, 3).map((s) => s.bytes));
  }, 60_000);
});
