// OCR benchmark (issue 13): time per page of the sandbox reading scans, against reading the same
// invoice from its text layer in the same run (ratio). One letter-size invoice page is drawn with
// pdf-lib, rendered at 300 dpi with pdfjs (2550 x 3300 pixels), and read as PNG, as PNG turned 90
// degrees, as image-only PDF, and as an 8-page CCITT G4 TIFF with 1 worker and with one per core.
// It also times tesseract's own orientation detection (legacy engine, osd data) on the turned page,
// the alternative to trying the turns that the sandbox uses.
//   npm run bench:ocr [-- --rounds 5]
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { createWorker, OEM } from 'tesseract.js';
import { OcrPool, processFile } from '../sandbox/processing/index.js';
import { renderPage } from '../sandbox/processing/ocr/pdf-render.js';
import { loadPdfjs, pdfjsDataDirs } from '../sandbox/processing/pdfjs.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 5);
const cores = availableParallelism();

async function invoicePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([612, 792]);
  const text = (s: string, x: number, y: number, size = 11, f = font): void => page.drawText(s, { x, y, size, font: f });
  text('Northwind Traders', 72, 720, 18, bold);
  text('INVOICE', 72, 690, 14, bold);
  const rows: [string, string][] = [['Invoice Number:', 'INV-4821'], ['Invoice Date:', 'March 15, 2026'], ['Due Date:', '04/14/2026'], ['Bill To:', 'Example Customer Inc.']];
  rows.forEach(([k, v], i) => (text(k, 72, 650 - 18 * i), text(v, 200, 650 - 18 * i)));
  text('Description', 72, 560, 11, bold);
  text('Qty', 360, 560, 11, bold);
  text('Amount', 460, 560, 11, bold);
  const items: [string, string, string][] = [['Widget assembly', '2', '$800.00'], ['Shipping and handling', '1', '$434.50']];
  items.forEach(([d, q, a], i) => (text(d, 72, 540 - 18 * i), text(q, 360, 540 - 18 * i), text(a, 460, 540 - 18 * i)));
  text('Amount Due:', 360, 480, 11, bold);
  text('$1,234.50 USD', 460, 480);
  for (let i = 0; i < 12; i++) text(`Terms line ${i + 1}: payment within 30 days of the invoice date, by bank transfer.`, 72, 400 - 14 * i, 9);
  return doc.save();
}

async function render300(pdf: Uint8Array): Promise<Buffer> {
  const pdfjs = await loadPdfjs();
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), ...pdfjsDataDirs(), verbosity: 0 }).promise;
  try {
    return (await renderPage(doc, await doc.getPage(1))).png;
  } finally {
    await doc.destroy();
  }
}

async function imageOnlyPdf(png: Buffer): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const img = await doc.embedPng(png);
  doc.addPage([612, 792]).drawImage(img, { x: 0, y: 0, width: 612, height: 792 });
  return doc.save();
}

async function g4Tiff(png: Buffer, pages: number): Promise<Buffer> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  const stacked = Buffer.concat(Array.from({ length: pages }, () => data));
  return sharp(stacked, { raw: { width: info.width, height: info.height * pages, channels: 1, pageHeight: info.height } })
    .toColourspace('b-w')
    .tiff({ compression: 'ccittfax4', bitdepth: 1, xres: 300 / 25.4, yres: 300 / 25.4 })
    .toBuffer();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const ms = (n: number): string => `${Math.round(n)} ms`;

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'docsync-bench-ocr-'));
  const pool = new OcrPool({ size: 1 });
  const wide = new OcrPool({ size: cores });
  try {
    const pdf = await invoicePdf();
    const png = await render300(pdf);
    const meta = await sharp(png).metadata();
    const files: Record<string, Uint8Array> = {
      'text.pdf': pdf,
      'page.png': png,
      'turned.png': await sharp(png).rotate(90).png().toBuffer(),
      'scan.pdf': await imageOnlyPdf(png),
      'eight.tif': await g4Tiff(png, 8),
    };
    for (const [name, bytes] of Object.entries(files)) await writeFile(path.join(dir, name), bytes);
    const read = (name: string, ocr: OcrPool) => processFile(path.join(dir, name), name, `/in/${name}`, { passwords: {}, ocr });

    console.log(`page: ${meta.width} x ${meta.height} pixels (letter at 300 dpi); ${rounds} rounds; ${cores} cores; load ${loadavg()[0]!.toFixed(1)}`);
    const check = await read('page.png', pool);
    const cold = new OcrPool({ size: 1 });
    const first = await timeIt(() => read('page.png', cold));
    await cold.close();
    const values = Object.fromEntries(check.documents[0]!.fields.map((f) => [f.field_name, f.value]));
    console.log(`read from the PNG: ${JSON.stringify(values)}`);

    const series = async (name: string, ocr: OcrPool, n = rounds): Promise<number> => {
      const t: number[] = [];
      for (let i = 0; i < n; i++) t.push(await timeIt(() => read(name, ocr)));
      return median(t);
    };
    const text = await series('text.pdf', pool);
    const upright = await series('page.png', pool);
    const turned = await series('turned.png', pool, Math.max(1, Math.ceil(rounds / 2)));
    const scanPdf = await series('scan.pdf', pool, Math.max(1, Math.ceil(rounds / 2)));
    const rssBefore = process.memoryUsage().rss;
    await read('eight.tif', wide); // start every worker of the wide pool
    const rssPerWorker = (process.memoryUsage().rss - rssBefore) / cores;
    const tiff1 = await timeIt(() => read('eight.tif', pool));
    const tiffN = await timeIt(() => read('eight.tif', wide));

    console.log(`baseline, the same invoice from its text layer: ${ms(text)} per page`);
    console.log(`PNG page, upright (1 worker, warm):       ${ms(upright)} per page, ${(upright / text).toFixed(0)}x the text layer`);
    console.log(`first page of a cold pool (worker start): ${ms(first)}`);
    console.log(`PNG page turned 90 degrees:               ${ms(turned)} per page (${(turned / upright).toFixed(2)}x upright)`);
    console.log(`image-only PDF page (render + OCR):       ${ms(scanPdf)} per page (${(scanPdf / upright).toFixed(2)}x the PNG)`);
    console.log(`8-page G4 TIFF, 1 worker:                 ${ms(tiff1 / 8)} per page`);
    console.log(`8-page G4 TIFF, ${cores} workers:                ${ms(tiffN / 8)} per page (${(tiff1 / tiffN).toFixed(2)}x the throughput of 1)`);
    console.log(`memory: about ${Math.round(rssPerWorker / 2 ** 20)} MB more RSS per added worker (after reading 8 pages)`);

    // The alternative: tesseract's orientation detection with the legacy engine and osd data.
    const osdPath = path.join(path.dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/osd/package.json')), '4.0.0');
    let osd: Awaited<ReturnType<typeof createWorker>> | undefined;
    const start = await timeIt(async () => {
      osd = await createWorker('osd', OEM.TESSERACT_ONLY, { langPath: osdPath, cacheMethod: 'none', gzip: true, legacyCore: true, legacyLang: true });
    });
    const turnedPng = files['turned.png'] as Buffer;
    const seen: number[] = [];
    const detect: number[] = [];
    for (let i = 0; i < rounds; i++) {
      detect.push(await timeIt(async () => seen.push((await osd!.detect(turnedPng)).data.orientation_degrees ?? -1)));
    }
    await osd?.terminate();
    console.log(`OSD (legacy engine) on the turned page: worker start ${ms(start)}, detect ${ms(median(detect))}, said ${[...new Set(seen)].join('/')} degrees (270 is right)`);
  } finally {
    await Promise.all([pool.close(), wide.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
