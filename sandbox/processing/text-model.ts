/**
 * The text model every reader produces and every rule consumes. Geometry is kept in PDF user space
 * (origin bottom-left, y up) so plain text and PDF text share one code path; conversion to the
 * service's top-left coordinates happens once, in `sourceBox`.
 */
import type { PageLayout, SourceCoordinate } from '../../shared/service/results.js';

/** A run of characters of one line, with its user-space rectangle. */
export interface Span {
  /** Character offsets into `TextLine.text`, end exclusive. */
  start: number;
  end: number;
  x0: number;
  x1: number;
  yBottom: number;
  yTop: number;
  /** Font size in points, for re-rendering. */
  size: number;
  /** OCR confidence (0..1) of this span, when it was read by OCR (one span per word). */
  conf?: number;
}

export interface TextLine {
  /** 0-based page of the file. */
  page: number;
  /** Cells of a table row are separated by a tab (see COLUMN_BREAK). */
  text: string;
  spans: Span[];
}

export interface PageText {
  layout: PageLayout;
  /** Viewport transform [a, b, c, d, e, f] from user space to top-left page space. */
  transform: number[];
  lines: TextLine[];
}

export interface ReadText {
  /** 'ocr': an image file, every page read by OCR (a PDF with scanned pages stays 'pdf'). */
  source: 'pdf' | 'text' | 'ocr';
  /** OCR confidence of characters without their own (`Span.conf`): 1.0 for a PDF text layer, 0.99 for plain text. */
  ocr: number;
  pages: PageText[];
  /** The page images of an image file, as decoded (for the post-processed PDF). */
  images?: PageImage[];
}

export interface PageImage {
  png: Buffer;
  /** Pixels per inch from the file, when it says. */
  dpi: number | null;
}

/** Why a file could not be read; `layouts` holds the pages known so far (maybe none). */
export interface ReadFailure {
  error: string;
  layouts: PageLayout[];
}

/** Values end at a column break: a tab, or two or more spaces (plain-text tables). */
export const COLUMN_BREAK = /\t| {2,}/;

const round2 = (n: number): number => Math.round(n * 100) / 100 + 0;

/**
 * The box of characters [start, end) of `line`, in top-left page coordinates. Within a span the
 * x-range is narrowed in proportion to character count, so a value printed after its label on the
 * same text item gets a box around the value rather than the whole item.
 */
export function sourceBox(page: PageText, line: TextLine, start: number, end: number): SourceCoordinate | null {
  let x0 = Infinity;
  let x1 = -Infinity;
  let yb = Infinity;
  let yt = -Infinity;
  for (const s of line.spans) {
    const a = Math.max(start, s.start);
    const b = Math.min(end, s.end);
    if (a >= b) continue;
    const len = s.end - s.start;
    const w = s.x1 - s.x0;
    x0 = Math.min(x0, s.x0 + (w * (a - s.start)) / len);
    x1 = Math.max(x1, s.x0 + (w * (b - s.start)) / len);
    yb = Math.min(yb, s.yBottom);
    yt = Math.max(yt, s.yTop);
  }
  if (x0 === Infinity) return null;
  const [pa, pb] = applyTransform(page.transform, x0, yt);
  const [qa, qb] = applyTransform(page.transform, x1, yb);
  return {
    top_x: round2(Math.min(pa, qa)),
    top_y: round2(Math.min(pb, qb)),
    bottom_x: round2(Math.max(pa, qa)),
    bottom_y: round2(Math.max(pb, qb)),
    page_number: line.page,
  };
}

/**
 * OCR confidence of characters [start, end) of `line`: the mean over the OCR'd words they touch, or
 * `fallback` when none was OCR'd (a text layer).
 */
export function spanConfidence(line: TextLine, start: number, end: number, fallback: number): number {
  const confs = line.spans.filter((s) => s.conf !== undefined && s.start < end && s.end > start).map((s) => s.conf as number);
  if (confs.length === 0) return fallback;
  return round2(confs.reduce((a, b) => a + b, 0) / confs.length);
}

function applyTransform(m: number[], x: number, y: number): [number, number] {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = m;
  return [a * x + c * y + e, b * x + d * y + f];
}
