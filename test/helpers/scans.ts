/**
 * Scanned-looking invoices generated in the test itself (no binary fixtures): invoicePdf's layout
 * rendered at 150-300 dpi, then skewed, turned, blurred and noised, and written as PNG, JPEG,
 * multi-page CCITT G4 TIFF or image-only PDF. Each scan carries the field values the service should
 * return and where each value is printed, in the units of the page's page_layout.
 */
import { invoicePdf } from './pdf-fixtures.js';
import type { InvoiceOptions } from './pdf-fixtures.js';
import { imagePdf, jpeg, png, tiffG4 } from './scans/encode.js';
import { noise, skew, turn } from './scans/distort.js';
import { scaleBox, skewBox, turnBox } from './scans/geometry.js';
import type { Box } from './scans/geometry.js';
import { expectedFields } from './scans/oracle.js';
import { randomInvoice, seeded, seedOf } from './scans/random.js';
import { renderPages } from './scans/render.js';

export type ScanFormat = 'png' | 'jpeg' | 'tiff' | 'pdf';

export interface ScanOptions {
  /** Default 200. */
  dpi?: number;
  /** 0..1, default 0: blur, grey noise and dust specks. */
  noise?: number;
  /** Clockwise, in degrees; a fraction of a degree to a degree or two looks like a real scan. */
  skewDeg?: number;
  /** Clockwise quarter turn of every page, as a page fed sideways or upside down. */
  rotate?: 0 | 90 | 180 | 270;
  /** JPEG quality for 'jpeg', and for the page images of 'pdf' (a 'pdf' without it embeds PNG). Default 75 for 'jpeg'. */
  jpegQuality?: number;
  /** Pages of the file: the invoice, then continuation pages. Default 1 + invoice.extraPages. */
  pages?: number;
}

export interface ScanField {
  /** The sandbox's field name. */
  name: string;
  /** The value the service should return. */
  value: string;
  /** 0-based page of the file. */
  page: number;
  /** Top-left origin, in the units of that page's page_layout: pixels as delivered (after rotation) for images, PDF points for PDFs. */
  box: Box;
  /** Other places the same value is printed, in the same units (the total also stands in the line item's Amount cell). */
  alsoAt?: Box[];
}

export interface Scan {
  /** File name with extension. */
  name: string;
  format: ScanFormat;
  bytes: Buffer;
  pages: { width: number; height: number }[];
  fields: ScanField[];
  /** How it was made, in words, for reports: "200 dpi, skew 0.7°, noise 0.3, JPEG quality 70". */
  made: string;
}

const EXT: Record<ScanFormat, string> = { png: 'png', jpeg: 'jpg', tiff: 'tif', pdf: 'pdf' };

export async function scannedInvoice(invoice: InvoiceOptions, format: ScanFormat, opts: ScanOptions = {}): Promise<Scan> {
  const dpi = opts.dpi ?? 200;
  const deg = opts.skewDeg ?? 0;
  const t = opts.rotate ?? 0;
  const o: InvoiceOptions = opts.pages === undefined ? invoice : { ...invoice, extraPages: Math.max(0, opts.pages - 1) };
  const pdf = await invoicePdf(o);
  const random = seeded(seedOf(JSON.stringify([o, format, opts])));
  const rendered = await renderPages(pdf, dpi);
  const pages = [];
  for (const page of rendered) pages.push(await noise(await turn(await skew(page, deg), t), opts.noise ?? 0, random));
  const first = rendered[0]!;
  const skewed = { width: first.width, height: first.height, ...(deg === 0 ? {} : await skewedSize(first, deg)) };
  // Points -> rendered pixels -> skewed -> turned; back to points for a PDF.
  const place = (b: Box): Box => {
    let px = scaleBox(b, dpi / 72);
    if (deg !== 0) px = skewBox(px, first.width, first.height, deg, skewed.width, skewed.height);
    px = turnBox(px, skewed.width, skewed.height, t);
    return format === 'pdf' ? scaleBox(px, 72 / dpi) : px;
  };
  const fields = (await expectedFields(o, pdf)).map((f) => ({ name: f.name, value: f.value, page: 0, box: place(f.box), alsoAt: f.alsoAt.map(place) }));
  const sizes = pages.map((p) => (format === 'pdf' ? { width: (p.width * 72) / dpi, height: (p.height * 72) / dpi } : { width: p.width, height: p.height }));
  const bytes =
    format === 'png' ? await png(pages[0]!, dpi)
    : format === 'jpeg' ? await jpeg(pages[0]!, dpi, opts.jpegQuality ?? 75)
    : format === 'tiff' ? await tiffG4(pages, dpi)
    : await imagePdf(pages, dpi, opts.jpegQuality);
  // PNG and JPEG hold one page: a longer invoice keeps only its first.
  const kept = format === 'png' || format === 'jpeg' ? sizes.slice(0, 1) : sizes;
  return { name: `${invoice.invoiceNumber.replace(/[^A-Za-z0-9-]+/g, '_')}.${EXT[format]}`, format, bytes, pages: kept, fields, made: describe(format, opts, kept.length) };
}

function describe(format: ScanFormat, o: ScanOptions, pages: number): string {
  const parts = [`${format === 'tiff' ? 'G4 TIFF' : format === 'pdf' ? 'image-only PDF' : format.toUpperCase()}`, `${o.dpi ?? 200} dpi`];
  if (pages > 1) parts.push(`${pages} pages`);
  if (o.skewDeg) parts.push(`skew ${o.skewDeg}°`);
  if (o.rotate) parts.push(`turned ${o.rotate}°`);
  if (o.noise) parts.push(`noise ${o.noise}`);
  if (format === 'jpeg' || (format === 'pdf' && o.jpegQuality !== undefined)) parts.push(`JPEG quality ${o.jpegQuality ?? 75}`);
  return parts.join(', ');
}

async function skewedSize(g: { width: number; height: number }, deg: number): Promise<{ width: number; height: number }> {
  // The same canvas sharp grows for the turned page; measured on a blank page of the same size.
  const blank = { data: Buffer.alloc(g.width * g.height, 255), width: g.width, height: g.height };
  const s = await skew(blank, deg);
  return { width: s.width, height: s.height };
}

/** The distortions of scanSet, cycled; each scan gets its own invoice content. */
const RECIPES: { format: ScanFormat; opts: ScanOptions }[] = [
  { format: 'png', opts: { dpi: 300 } },
  { format: 'jpeg', opts: { dpi: 200, jpegQuality: 70, noise: 0.3, skewDeg: 0.7 } },
  { format: 'tiff', opts: { dpi: 200, pages: 3, noise: 0.2 } },
  { format: 'pdf', opts: { dpi: 200, jpegQuality: 75, pages: 2, skewDeg: -0.5 } },
  { format: 'png', opts: { dpi: 150, rotate: 90, noise: 0.2 } },
  { format: 'jpeg', opts: { dpi: 240, jpegQuality: 55, skewDeg: -1, noise: 0.4 } },
  { format: 'png', opts: { dpi: 200, rotate: 180 } },
  { format: 'tiff', opts: { dpi: 300, pages: 2, skewDeg: 0.4 } },
  { format: 'pdf', opts: { dpi: 150, noise: 0.3 } },
  { format: 'jpeg', opts: { dpi: 150, jpegQuality: 80, rotate: 270 } },
  { format: 'png', opts: { dpi: 240, skewDeg: 1.2, noise: 0.5 } },
  { format: 'jpeg', opts: { dpi: 300, jpegQuality: 50, noise: 0.25 } },
  { format: 'tiff', opts: { dpi: 200, pages: 2, rotate: 180, noise: 0.2 } },
  { format: 'pdf', opts: { dpi: 200, pages: 2, rotate: 90, jpegQuality: 70 } },
];

/**
 * `count` scans (default 24) of varied invoices and distortions, the same on every run: PNGs and
 * JPEGs, multi-page G4 TIFFs, image-only PDFs, pages turned 90/180/270 (in single images, a TIFF and
 * a PDF), skew, noise.
 */
export async function scanSet(count = 24): Promise<Scan[]> {
  const random = seeded(13);
  const scans: Scan[] = [];
  for (let i = 0; i < count; i++) {
    const { format, opts } = RECIPES[i % RECIPES.length]!;
    const scan = await scannedInvoice(randomInvoice(random), format, opts);
    scans.push({ ...scan, name: `scan-${String(i + 1).padStart(2, '0')}-${scan.name}` });
  }
  return scans;
}
