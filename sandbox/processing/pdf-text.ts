/** Reads a PDF's text layer with pdfjs: lines of text with positions, and page sizes. */
import type { TextItem, TextMarkedContent } from 'pdfjs-dist/types/src/display/api.js';
import type { PageLayout } from '../../shared/service/results.js';
import { renderPage } from './ocr/pdf-render.js';
import type { OcrPool } from './ocr/pool.js';
import { noTextMessage } from './ocr/read-image.js';
import { ocrPage } from './ocr/read-page.js';
import { loadPdfjs, pdfjsDataDirs } from './pdfjs.js';
import type { PageText, ReadFailure, ReadText, Span, TextLine } from './text-model.js';

export const PDF_MAGIC = '%PDF-';

/** pdfjs looks for the header in the first 1024 bytes, so do we. */
export function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 1024)).includes(PDF_MAGIC, 0, 'latin1');
}

export interface PasswordChoice {
  password: string | undefined;
  /** Where the password came from, for messages; never the password itself. */
  title: string | undefined;
  /** The namespace segment the passwords were read under (runtime_config.<ns>.pdf.passwords), for messages. Default svc. */
  namespace?: string;
}

/** With `pool`, a page without text (a scan) is rendered and read by OCR. */
export async function readPdfText(bytes: Uint8Array, pw: PasswordChoice, pool?: OcrPool): Promise<ReadText | ReadFailure> {
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({
    // pdfjs may transfer (detach) the buffer it is given.
    data: new Uint8Array(bytes),
    ...(pw.password === undefined ? {} : { password: pw.password }),
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    cMapPacked: true,
    ...pdfjsDataDirs(),
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    return { error: openErrorMessage(err, pw, pdfjs.PasswordResponses), layouts: [] };
  }
  const pages: PageText[] = [];
  // OCR of scanned pages runs in the pool while the next pages are read and rendered.
  const scans: Promise<void>[] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: 1 });
      const layout: PageLayout = { page_number: n - 1, width: round2(viewport.width), height: round2(viewport.height) };
      const content = await page.getTextContent();
      const index = pages.push({ layout, transform: [...viewport.transform], lines: buildLines(content.items, n - 1) }) - 1;
      if (pool && pages[index]?.lines.length === 0) {
        const { png, scale } = await renderPage(doc, page);
        scans.push(ocrPage(pool, png, { page: n - 1, layout, scale }).then((read) => void (pages[index] = read)));
      }
      page.cleanup();
    }
  } catch (err) {
    await Promise.allSettled(scans);
    return {
      error: `file is not a readable PDF: page ${pages.length + 1}: ${errorText(err)}`,
      layouts: pages.map((p) => p.layout),
    };
  } finally {
    await doc.destroy();
  }
  const ocr = await Promise.allSettled(scans);
  const failed = ocr.find((r) => r.status === 'rejected');
  if (failed) return { error: `OCR failed: ${errorText(failed.reason)}`, layouts: pages.map((p) => p.layout) };
  if (pages.length > 0 && pages.every((p) => p.lines.length === 0)) {
    if (pool) return { error: noTextMessage(pages.length, 'PDF'), layouts: pages.map((p) => p.layout) };
    const which = pages.length === 1 ? 'page 1 has no' : `none of the ${pages.length} pages has`;
    return { error: `no text layer: ${which} extractable text`, layouts: pages.map((p) => p.layout) };
  }
  if (pages.length === 0) return { error: 'file is not a readable PDF: it has no pages', layouts: [] };
  return { source: 'pdf', ocr: 1, pages };
}

function openErrorMessage(err: unknown, pw: PasswordChoice, codes: { NEED_PASSWORD: number; INCORRECT_PASSWORD: number }): string {
  const e = err as { name?: unknown; code?: unknown };
  if (e?.name === 'PasswordException') {
    if (pw.password === undefined || e.code === codes.NEED_PASSWORD) {
      return `PDF is encrypted and no matching password was given in runtime_config.${pw.namespace ?? 'svc'}.pdf.passwords`;
    }
    return `PDF is encrypted and the password given for "${pw.title ?? ''}" in runtime_config.${pw.namespace ?? 'svc'}.pdf.passwords is incorrect`;
  }
  return `file is not a readable PDF: ${errorText(err)}`;
}

function errorText(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.trim().replace(/\.$/, '') || 'unknown error';
}

const round2 = (n: number): number => Math.round(n * 100) / 100 + 0;

interface Item {
  str: string;
  x: number;
  /** Baseline. */
  y: number;
  w: number;
  size: number;
  order: number;
}

/** Groups pdfjs text items into reading-order lines (top to bottom, left to right). */
export function buildLines(raw: (TextItem | TextMarkedContent)[], page: number): TextLine[] {
  const items: Item[] = [];
  raw.forEach((it, order) => {
    if (!('str' in it)) return;
    const str = it.str.replace(/\s+/g, ' ').trim();
    if (str === '') return;
    const t = it.transform as number[];
    const size = it.height > 0 ? it.height : Math.hypot(t[2] ?? 0, t[3] ?? 0) || 1;
    items.push({ str, x: t[4] ?? 0, y: t[5] ?? 0, w: Math.max(it.width, 0), size, order });
  });
  items.sort((a, b) => b.y - a.y || a.x - b.x || a.order - b.order);

  const rows: Item[][] = [];
  let row: Item[] = [];
  for (const it of items) {
    const first = row[0];
    if (first && Math.abs(first.y - it.y) > 0.5 * Math.min(first.size, it.size)) {
      rows.push(row);
      row = [];
    }
    row.push(it);
  }
  if (row.length) rows.push(row);

  return rows.map((r) => {
    r.sort((a, b) => a.x - b.x || a.order - b.order);
    let text = '';
    const spans: Span[] = [];
    let prev: Item | undefined;
    for (const it of r) {
      if (prev) {
        const gap = it.x - (prev.x + prev.w);
        // A wide gap separates table cells; a small one is a word space the PDF did not encode.
        if (gap > 1.5 * it.size) text += '\t';
        else if (gap > 0.15 * it.size) text += ' ';
      }
      const start = text.length;
      text += it.str;
      // Glyph box approximated from the font size: 20% below the baseline, 80% above.
      spans.push({ start, end: text.length, x0: it.x, x1: it.x + it.w, yBottom: it.y - 0.2 * it.size, yTop: it.y + 0.8 * it.size, size: it.size });
      prev = it;
    }
    return { page, text, spans };
  });
}
