// Issue 13 end to end, in Debian's Chromium against a real `docsync serve` and its built-in sandbox
// (which reads images with OCR): a scanned multi-page CCITT G4 TIFF and a scanned JPEG are written
// into a hot folder, reach Done, and in Results a field's box is drawn over the words it came from,
// on the right page, where the generator printed them (scaled to the page as displayed).
import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invoicePdf, receiptPdf, type InvoiceOptions } from '../helpers/pdf-fixtures.js';
import { scannedInvoice, type ScanField } from '../helpers/scans.js';
import { tiffG4 } from '../helpers/scans/encode.js';
import { scaleBox } from '../helpers/scans/geometry.js';
import { expectedFields } from '../helpers/scans/oracle.js';
import { renderPages } from '../helpers/scans/render.js';
import { SCREENS, fillQuickFolder, goTo, startUi, shootBoth, type UiSession } from './served-ui.js';

test.describe.configure({ mode: 'serial' });

const DPI = 200;
const TIFF_NAME = 'fax-2026-05.tif';
const INVOICE: InvoiceOptions = { invoiceNumber: 'INV-5120', invoiceDate: 'May 4, 2026', dueDate: 'June 3, 2026', total: '$1,284.50', vendor: 'Harbor Supply Co' };
const JPEG_INVOICE: InvoiceOptions = { invoiceNumber: 'INV-7731', invoiceDate: 'April 18, 2026', dueDate: 'May 18, 2026', total: '$96.40', vendor: 'Northwind Paper' };

interface Scanned {
  name: string;
  bytes: Buffer;
  /** Each page's size in pixels (its page_layout). */
  pages: { width: number; height: number }[];
  fields: ScanField[];
  /** Each page's ink by horizontal band, read from the file by sharp: which page the viewer drew. */
  bands: number[][];
}

const BANDS = 80;

/** Share of dark pixels in each of BANDS horizontal bands of a greyscale page. */
function bandsOf(g: { data: Buffer; width: number; height: number }): number[] {
  const out = new Array<number>(BANDS).fill(0);
  for (let y = 0; y < g.height; y++) {
    let dark = 0;
    for (let x = 0; x < g.width; x++) if ((g.data[y * g.width + x] ?? 255) < 128) dark++;
    const b = Math.min(BANDS - 1, Math.floor((y / g.height) * BANDS));
    out[b] = (out[b] ?? 0) + dark / (g.width * (g.height / BANDS));
  }
  return out;
}

/** The bands of every page of an image file, decoded by sharp (libvips), not by the code under test. */
async function fileBands(bytes: Buffer, pages: number): Promise<number[][]> {
  const out: number[][] = [];
  for (let page = 0; page < pages; page++) {
    const { data, info } = await sharp(bytes, { page }).greyscale().raw().toBuffer({ resolveWithObject: true });
    out.push(bandsOf({ data, width: info.width, height: info.height }));
  }
  return out;
}

/**
 * A fax as an office scanner sends it: page 1 a receipt, page 2 an invoice, page 3 its continuation,
 * one G4 TIFF. The sandbox makes a Receipt document of page 1 and an Invoice of pages 2-3, so the
 * invoice's fields are boxed on page 2 (index 1), in that page's pixels.
 */
async function faxTiff(): Promise<Scanned> {
  const receipt = await renderPages(await receiptPdf({ merchant: 'Corner Cafe', date: 'May 2, 2026', total: '$12.75', paymentMethod: 'Visa' }), DPI);
  const pdf = await invoicePdf({ ...INVOICE, extraPages: 1 });
  const pages = [...receipt, ...(await renderPages(pdf, DPI))];
  const fields = (await expectedFields(INVOICE, pdf)).map((f) => ({ name: f.name, value: f.value, page: 1, box: scaleBox(f.box, DPI / 72) }));
  const bytes = await tiffG4(pages, DPI);
  return { name: TIFF_NAME, bytes, pages: pages.map((p) => ({ width: p.width, height: p.height })), fields, bands: await fileBands(bytes, pages.length) };
}

let ui: UiSession | undefined;
let page: Page;
let tiff: Scanned;
let jpeg: Scanned;

const source = (): Locator => page.getByRole('region', { name: 'Source page' });
const fieldOf = (s: Scanned, name: string): ScanField => {
  const f = s.fields.find((x) => x.name === name);
  if (!f) throw new Error(`the generator has no ${name}`);
  return f;
};

async function openResultsOf(name: string): Promise<void> {
  await goTo(page, 'Activity');
  const queue = page.getByRole('grid', { name: 'Queue' });
  await queue.getByRole('button', { name: `Show details of ${name}` }).click();
  await queue.getByRole('button', { name: 'Open results' }).click();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeAttached();
  await page.getByRole('tree').getByText(name).first().click();
  await expect(page.getByRole('region', { name: `File ${name}` })).toBeVisible();
}

/**
 * The selected box, in CSS px from the drawn page's top-left corner, against the generator's box
 * scaled from the page's pixels to the page's drawn width. The viewer pads a box by 2 px; the OCR's
 * word boxes are not the printed layout's to the pixel: `tol` CSS px each edge.
 */
async function expectBoxOver(s: Scanned, f: ScanField, tol: number): Promise<void> {
  // The page is drawn in proportion: its height follows from the same scale. Polled: right after a
  // page change the canvas can be read between its new width and its new height (CI, 2026-11-28:
  // 238 px off once, in proportion on every other run); one that stays out of proportion still fails.
  const outOfProportion = async (): Promise<number> => {
    const c = await source().locator('canvas').boundingBox();
    return c ? Math.abs(c.height - s.pages[f.page]!.height * (c.width / s.pages[f.page]!.width)) : Infinity;
  };
  await expect.poll(outOfProportion).toBeLessThan(2);
  const canvas = await source().locator('canvas').boundingBox();
  const box = await source().getByRole('button', { name: `Source of ${f.name}` }).boundingBox();
  expect(canvas && box).toBeTruthy();
  const k = canvas!.width / (s.pages[f.page]!.width);
  expect(Math.abs(canvas!.height - s.pages[f.page]!.height * k)).toBeLessThan(2);
  const drawn = { x0: box!.x - canvas!.x, y0: box!.y - canvas!.y, x1: box!.x + box!.width - canvas!.x, y1: box!.y + box!.height - canvas!.y };
  const want = { x0: f.box.x0 * k, y0: f.box.y0 * k, x1: f.box.x1 * k, y1: f.box.y1 * k };
  const off = (['x0', 'y0', 'x1', 'y1'] as const).map((e) => Math.round(Math.abs(drawn[e] - want[e]) * 10) / 10);
  expect(off.every((d) => d <= tol), `${f.name}: drawn ${JSON.stringify(drawn)}, true ${JSON.stringify(want)}, off ${off.join(', ')} CSS px`).toBe(true);
  test.info().annotations.push({ type: `box ${f.name}`, description: `edges off by ${off.join(", ")} CSS px (page drawn ${canvas!.width.toFixed(0)} px wide)` });
  // Words under the box: printed ink in the drawn page where the box is.
  expect(await inkShare(source().locator('canvas'), { x: drawn.x0, y: drawn.y0, width: drawn.x1 - drawn.x0, height: drawn.y1 - drawn.y0 })).toBeGreaterThan(0.04);
}

/** The little of a canvas this spec reads (DOM types are not part of the Node test project). */
interface Canvas2d {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}

/** Share of dark pixels on the drawn canvas, in all of it or in a rectangle of CSS px from its corner. */
async function inkShare(canvas: Locator, r?: { x: number; y: number; width: number; height: number }): Promise<number> {
  return canvas.evaluate((el, r) => {
    const c = el as unknown as Canvas2d & { clientWidth: number };
    const k = c.width / c.clientWidth;
    const [x, y, w, h] = r ? [r.x * k, r.y * k, r.width * k, r.height * k].map(Math.round) as [number, number, number, number] : [0, 0, c.width, c.height];
    const d = c.getContext('2d')!.getImageData(x, y, w, h).data;
    let dark = 0;
    for (let i = 0; i < d.length; i += 4) if ((d[i] ?? 255) < 128) dark++;
    return dark / (w * h);
  }, r);
}

/** Ink per horizontal band of the drawn canvas (as bandsOf does for the file's page). */
async function drawnBands(canvas: Locator): Promise<number[]> {
  return canvas.evaluate((el, bands) => {
    const c = el as unknown as Canvas2d;
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    const out = new Array<number>(bands).fill(0);
    for (let y = 0; y < c.height; y++) {
      let dark = 0;
      for (let x = 0; x < c.width; x++) if ((d[(y * c.width + x) * 4] ?? 255) < 128) dark++;
      const b = Math.min(bands - 1, Math.floor((y / c.height) * bands));
      out[b] = (out[b] ?? 0) + dark / (c.width * (c.height / bands));
    }
    return out;
  }, BANDS);
}

/** Which page of the file the source pane shows: the one whose ink by band is nearest the drawn page's. */
async function drawnPage(s: Scanned): Promise<number> {
  const drawn = await drawnBands(source().locator('canvas'));
  const dist = s.bands.map((b) => b.reduce((sum, v, i) => sum + Math.abs(v - (drawn[i] ?? 0)), 0));
  return dist.indexOf(Math.min(...dist));
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  const [fax, photo] = await Promise.all([faxTiff(), scannedInvoice(JPEG_INVOICE, 'jpeg', { dpi: DPI, jpegQuality: 80, noise: 0.2 })]);
  tiff = fax;
  jpeg = { ...photo, bands: await fileBands(photo.bytes, 1) };
  ui = await startUi(browser, 'docsync-scans-');
  page = ui.page;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(ui.served.url);
  await goTo(page, 'Hot folders');
  await page.getByRole('button', { name: 'Add folder' }).first().click();
  await fillQuickFolder(page, ui.inbox);
  await page.getByRole('button', { name: 'Add folder' }).last().click();
  await expect(page.getByRole('heading', { name: ui.inbox })).toBeVisible();
  await writeFile(join(ui.inbox, tiff.name), tiff.bytes);
  await writeFile(join(ui.inbox, jpeg.name), jpeg.bytes);
  await goTo(page, 'Activity');
  const queue = page.getByRole('grid', { name: 'Queue' });
  for (const name of [tiff.name, jpeg.name]) await expect(queue.getByRole('row').filter({ hasText: name }).getByText(/^Done$/)).toBeVisible({ timeout: 240_000 });
});

test.afterAll(async () => {
  expect(ui?.served.log ?? '').not.toContain('page error');
  await ui?.close();
});

test('the TIFF: a field of the invoice on page 2 is boxed over its words on page 2, at fit width and zoomed', async () => {
  await openResultsOf(tiff.name);
  await page.getByRole('tab', { name: /^Invoice/ }).click();
  const f = fieldOf(tiff, 'invoice_number');
  await page.getByRole('grid', { name: 'Extracted fields' }).getByText(f.value, { exact: true }).click();
  await expect(source().getByText('Page 2 of 3')).toBeVisible();
  await expect(source().getByRole('img', { name: new RegExp(`^Page 2 of ${tiff.name.replace('.', '\\.')}, with the source of ${f.name} marked`) })).toBeVisible();
  await expect(source().getByRole('button', { name: 'Fit width' })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => drawnPage(tiff)).toBe(1);
  await expectBoxOver(tiff, f, 8);
  await shootBoth(page, 'scans-tiff-page-2');

  // The zoom label is the page's real size: 100 % draws the 200 dpi scan at 96 CSS px per inch.
  await source().getByRole('button', { name: 'Zoom in' }).click();
  const pct = Number((await source().locator('output').textContent())?.replace(/\s*%$/, ''));
  await expect.poll(async () => Math.round((((await source().locator('canvas').boundingBox())?.width ?? 0) / ((tiff.pages[1]!.width / DPI) * 96)) * 100)).toBe(pct);
  await expectBoxOver(tiff, f, 12);
  await source().getByRole('button', { name: 'Fit width' }).click();

  // Another field of the same document, and the receipt on page 1.
  const total = fieldOf(tiff, 'total_amount');
  await page.getByRole('grid', { name: 'Extracted fields' }).getByText(total.value, { exact: true }).click();
  await expectBoxOver(tiff, total, 8);
  // Page navigation like a PDF's, through the document's pages: on to page 3, the invoice's continuation.
  await source().getByRole('button', { name: 'Next page' }).click();
  await expect(source().getByText('Page 3 of 3')).toBeVisible();
  // A G4 page takes a second or so to decode (bench:tiff): the pane says it is drawing meanwhile.
  await page.screenshot({ path: join(SCREENS, 'scans-tiff-drawing.png') });
  await expect.poll(() => drawnPage(tiff)).toBe(2);
  await expect(source().getByRole('button', { name: 'Next page' })).toBeDisabled();
  await source().getByRole('button', { name: 'Previous page' }).click();
  await expect.poll(() => drawnPage(tiff)).toBe(1);
  // The receipt is page 1.
  await page.getByRole('tab', { name: /^Receipt/ }).click();
  await expect(source().getByText('Page 1 of 3')).toBeVisible();
  await expect.poll(() => drawnPage(tiff)).toBe(0);
});

test('the JPEG: its field is boxed over its words on its one page', async () => {
  await openResultsOf(jpeg.name);
  const f = fieldOf(jpeg, 'invoice_number');
  await page.getByRole('grid', { name: 'Extracted fields' }).getByText(f.value, { exact: true }).click();
  await expect(source().getByText('Page 1 of 1')).toBeVisible();
  await expect.poll(() => drawnPage(jpeg)).toBe(0);
  await expectBoxOver(jpeg, f, 8);
  await shootBoth(page, 'scans-jpeg');
});

test('Open original shows the TIFF in the page, every page of it (a browser cannot show a TIFF itself)', async () => {
  await openResultsOf(tiff.name);
  await page.getByRole('button', { name: 'Open original' }).click();
  const viewer = page.getByRole('dialog', { name: 'Original' });
  await expect(viewer.getByText('Page 1 of 3')).toBeVisible();
  await expect.poll(() => inkShare(viewer.locator('canvas'))).toBeGreaterThan(0.002);
  await viewer.getByRole('button', { name: 'Next page' }).click();
  await expect(viewer.getByText('Page 2 of 3')).toBeVisible();
  await expect.poll(() => inkShare(viewer.locator('canvas'))).toBeGreaterThan(0.002);
  await shootBoth(page, 'scans-open-original-tiff');
  await viewer.getByRole('button', { name: 'Close' }).click();
  await expect(viewer).toBeHidden();
});
