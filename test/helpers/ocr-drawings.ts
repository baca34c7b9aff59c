/**
 * Small invoice images drawn with @napi-rs/canvas for the OCR unit tests, with where each value was
 * drawn. (Scanned-looking fixtures with noise and skew are test/helpers/scans.ts's job.)
 */
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';

export interface DrawnValue {
  text: string;
  /** Top-left pixel box of the drawn text in the upright drawing. */
  box: { x0: number; y0: number; x1: number; y1: number };
}

export interface Drawing {
  png: Buffer;
  width: number;
  height: number;
  values: Record<string, DrawnValue>;
}

export const DRAWN_INVOICE = {
  vendor: 'Northwind Traders',
  invoiceNumber: 'INV-4821',
  invoiceDate: '2026-03-15',
  dueDate: '2026-04-14',
  total: '$1,234.50',
} as const;

/** The fields the sandbox should read from DRAWN_INVOICE, as it returns them. */
export const DRAWN_EXPECTED = {
  invoice_number: DRAWN_INVOICE.invoiceNumber,
  invoice_date: DRAWN_INVOICE.invoiceDate,
  due_date: DRAWN_INVOICE.dueDate,
  total_amount: '1234.50',
  currency: 'USD',
  Vendor_Name: DRAWN_INVOICE.vendor,
};

/** A one-page invoice, black on white, 1000 x 700 pixels. */
export function invoicePng(v: Partial<typeof DRAWN_INVOICE> = {}): Drawing {
  const d = { ...DRAWN_INVOICE, ...v };
  const width = 1000;
  const height = 700;
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#000';
  g.font = '32px sans-serif';
  g.textBaseline = 'alphabetic';
  const values: Record<string, DrawnValue> = {};
  const put = (text: string, x: number, y: number, key?: string): void => {
    g.fillText(text, x, y);
    if (!key) return;
    const m = g.measureText(text);
    values[key] = { text, box: { x0: x, y0: y - m.actualBoundingBoxAscent, x1: x + m.width, y1: y + m.actualBoundingBoxDescent } };
  };
  put(d.vendor, 60, 80, 'vendor');
  put('INVOICE', 60, 160);
  put('Invoice Number:', 60, 240);
  put(d.invoiceNumber, 420, 240, 'invoiceNumber');
  put('Invoice Date:', 60, 300);
  put(d.invoiceDate, 420, 300, 'invoiceDate');
  put('Due Date:', 60, 360);
  put(d.dueDate, 420, 360, 'dueDate');
  put('Total Due:', 60, 460);
  put(d.total, 420, 460, 'total');
  return { png: canvas.toBuffer('image/png'), width, height, values };
}

/** A white page with nothing on it. */
export function blankPng(width = 800, height = 600): Buffer {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, width, height);
  return canvas.toBuffer('image/png');
}

/** The drawing turned clockwise by `degrees`, as a scanner would have written a page fed sideways. */
export async function rotated(png: Buffer, degrees: 90 | 180 | 270): Promise<Buffer> {
  return sharp(png).rotate(degrees).png().toBuffer();
}

/** Where a box of the upright drawing lies on the drawing turned clockwise by `degrees`. */
export function rotatedBox(b: DrawnValue['box'], degrees: 0 | 90 | 180 | 270, width: number, height: number): DrawnValue['box'] {
  switch (degrees) {
    case 0:
      return b;
    case 90:
      return { x0: height - b.y1, y0: b.x0, x1: height - b.y0, y1: b.x1 };
    case 180:
      return { x0: width - b.x1, y0: height - b.y1, x1: width - b.x0, y1: height - b.y0 };
    case 270:
      return { x0: b.y0, y0: width - b.x1, x1: b.y1, y1: width - b.x0 };
  }
}

/** Pages (of one size) as one TIFF at 300 dpi: bilevel CCITT G4, what scanners write, unless `compression` says otherwise. */
export async function tiffOf(pages: Buffer[], compression: 'ccittfax4' | 'lzw' = 'ccittfax4'): Promise<Buffer> {
  const raws = await Promise.all(pages.map((p) => sharp(p).greyscale().raw().toBuffer({ resolveWithObject: true })));
  const { width, height } = raws[0]!.info;
  if (raws.some((r) => r.info.width !== width || r.info.height !== height)) throw new Error('tiffOf: pages must share one size');
  // libvips writes a multi-page TIFF from pages stacked top to bottom, with the page height given.
  const stacked = Buffer.concat(raws.map((r) => r.data));
  return sharp(stacked, { raw: { width, height: height * pages.length, channels: 1, pageHeight: height } })
    // G4 needs a one-band b-w image; libvips refuses it from plain grey.
    .toColourspace('b-w')
    .tiff({ compression, ...(compression === 'ccittfax4' ? { bitdepth: 1 as const } : {}), xres: 300 / 25.4, yres: 300 / 25.4 })
    .toBuffer();
}

/** A PDF with no text layer: each page only shows an image, at `dpi` (a scanner's PDF). */
export async function imagePdf(pages: Buffer[], dpi = 150): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (const png of pages) {
    const img = await doc.embedPng(png);
    const w = (img.width * 72) / dpi;
    const h = (img.height * 72) / dpi;
    doc.addPage([w, h]).drawImage(img, { x: 0, y: 0, width: w, height: h });
  }
  return Buffer.from(await doc.save());
}
