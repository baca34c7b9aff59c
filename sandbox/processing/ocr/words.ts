/**
 * OCR words (tesseract's boxes, in pixels of the upright image) to the text model: lines in reading
 * order, one span per word with its confidence, and a transform that puts boxes back on the page as
 * it was scanned (before it was turned upright).
 */
import type { Bbox, Page, Word } from 'tesseract.js';
import type { PageLayout } from '../../../shared/service/results.js';
import type { PageText, Span, TextLine } from '../text-model.js';

export type Rotation = 0 | 90 | 180 | 270;

export interface OcrWord {
  text: string;
  /** Top-left pixel box in the upright image. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** 0..1 */
  conf: number;
}

/**
 * Below this confidence a "word" is what tesseract makes of a rule, a stain or a box's border (it
 * scores those near 0; real words, even on poor scans, score far higher).
 */
const NOISE_CONF = 0.1;
/** A word holds a letter, a digit or a currency sign; the rest (|, —, =) is ruling and speckle. */
const WORDLIKE = /[\p{L}\p{N}$€£¥%#&@]/u;

/** Tesseract's words, grouped in its lines; noise (see NOISE_CONF, WORDLIKE) is dropped. */
export function ocrLines(page: Page): OcrWord[][] {
  const out: OcrWord[][] = [];
  for (const block of page.blocks ?? []) {
    for (const para of block.paragraphs) {
      for (const line of para.lines) {
        const words = line.words
          .map((w) => ({ ...withoutStrays(w), conf: Math.max(0, Math.min(1, w.confidence / 100)) }))
          .filter((w) => WORDLIKE.test(w.text) && w.conf >= NOISE_CONF && w.x1 > w.x0 && w.y1 > w.y0);
        if (words.length) out.push(words);
      }
    }
  }
  return withoutSpecks(out);
}

/** A lone character read with little confidence is a speck of dust more often than a word. */
const LONE_CHAR_CONF = 0.5;

/** Drops specks: lone low-confidence characters, and "words" far smaller than the page's print. */
function withoutSpecks(lines: OcrWord[][]): OcrWord[][] {
  const print = median(lines.flat().map((w) => w.y1 - w.y0));
  return lines
    .map((words) => words.filter((w) => !([...w.text].length === 1 && w.conf < LONE_CHAR_CONF) && w.y1 - w.y0 >= 0.35 * print))
    .filter((words) => words.length > 0);
}

const ALNUM = /[\p{L}\p{N}]/u;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

/**
 * The word without a speck of dust tesseract read as punctuation at its start or end: a mark whose
 * middle lies well above or below the word's letters (a real period, comma or quote lies within
 * them), or that stands apart from them. Text and box come from the symbols kept.
 */
function withoutStrays(w: Word): { text: string } & Bbox {
  const symbols = w.symbols ?? [];
  const core = symbols.filter((x) => ALNUM.test(x.text));
  if (core.length === 0 || core.length === symbols.length) return { text: w.text.trim(), ...w.bbox };
  // The letters' band by medians: a speck merged into a letter's box must not widen it.
  const top = median(core.map((x) => x.bbox.y0));
  const bottom = median(core.map((x) => x.bbox.y1));
  const h = Math.max(1, bottom - top);
  const stray = (x: (typeof symbols)[number], next: (typeof symbols)[number], leading: boolean): boolean => {
    if (ALNUM.test(x.text)) return false;
    const mid = (x.bbox.y0 + x.bbox.y1) / 2;
    const gap = Math.max(next.bbox.x0 - x.bbox.x1, x.bbox.x0 - next.bbox.x1);
    // LSTM symbol boxes are loose (a period's may reach the x-height), so only a mark taller than the letters counts.
    const small = /^[.,'"`]$/.test(x.text);
    return (
      mid < top - 0.15 * h ||
      mid > bottom + 0.15 * h ||
      gap > 0.6 * h ||
      // A period, comma or quote taller than the letters is a smudge.
      (small && x.bbox.y1 - x.bbox.y0 > 1.2 * h) ||
      // Words do not begin with a period glued to a letter.
      (leading && /^[.,:;]$/.test(x.text) && /^\p{L}$/u.test(next.text))
    );
  };
  let from = 0;
  let to = symbols.length;
  while (to - from > 1 && stray(symbols[from]!, symbols[from + 1]!, true)) from++;
  while (to - from > 1 && stray(symbols[to - 1]!, symbols[to - 2]!, false)) to--;
  if (from === 0 && to === symbols.length) return { text: w.text.trim(), ...w.bbox };
  const kept = symbols.slice(from, to);
  return {
    text: kept.map((x) => x.text).join('').trim(),
    x0: Math.min(...kept.map((x) => x.bbox.x0)),
    y0: Math.min(...kept.map((x) => x.bbox.y0)),
    x1: Math.max(...kept.map((x) => x.bbox.x1)),
    y1: Math.max(...kept.map((x) => x.bbox.y1)),
  };
}

/** Mean confidence of the words that hold a letter or digit: how well a rotation reads. */
export function readability(lines: OcrWord[][]): { score: number; words: number } {
  const words = lines.flat().filter((w) => /[A-Za-z0-9]/.test(w.text));
  if (words.length === 0) return { score: 0, words: 0 };
  return { score: words.reduce((s, w) => s + w.conf, 0) / words.length, words: words.length };
}

export interface PageGeometry {
  /** 0-based page of the file. */
  page: number;
  /** The page as scanned, in the units results use (pixels for an image, points for a PDF page). */
  layout: PageLayout;
  /** Pixels of the OCR'd image per layout unit. */
  scale: number;
  /** Clockwise turn that made the scan upright. */
  rotation: Rotation;
}

/**
 * Lines of a page: tesseract lines whose heights overlap form one row (a label and its value far to
 * the right are often separate tesseract blocks), words left to right, a tab at a wide gap (a column
 * break, as the text-layer reader writes it).
 */
export function ocrPageText(lines: OcrWord[][], g: PageGeometry): PageText {
  const turned = g.rotation === 90 || g.rotation === 270;
  // Upright page size in layout units.
  const w = turned ? g.layout.height : g.layout.width;
  const h = turned ? g.layout.width : g.layout.height;
  const rows = groupRows(lines);
  const textLines: TextLine[] = rows.map((row) => {
    const words = row.sort((a, b) => a.x0 - b.x0);
    const heights = words.map((x) => x.y1 - x.y0).sort((a, b) => a - b);
    const rowHeight = heights[Math.floor(heights.length / 2)] ?? 1;
    let text = '';
    const spans: Span[] = [];
    let prev: OcrWord | undefined;
    for (const word of words) {
      if (prev) text += word.x0 - prev.x1 > 1.5 * rowHeight ? '\t' : ' ';
      const start = text.length;
      text += word.text;
      spans.push({
        start,
        end: text.length,
        x0: word.x0 / g.scale,
        x1: word.x1 / g.scale,
        // User space: y up from the bottom of the upright page.
        yTop: h - word.y0 / g.scale,
        yBottom: h - word.y1 / g.scale,
        size: (word.y1 - word.y0) / g.scale,
        conf: Math.round(word.conf * 100) / 100,
      });
      prev = word;
    }
    return { page: g.page, text, spans };
  });
  return { layout: g.layout, transform: scannedTransform(g.rotation, w, h), lines: textLines };
}

function groupRows(lines: OcrWord[][]): OcrWord[][] {
  const boxes = lines.map((words) => ({
    words: [...words],
    top: Math.min(...words.map((x) => x.y0)),
    bottom: Math.max(...words.map((x) => x.y1)),
  }));
  boxes.sort((a, b) => a.top + a.bottom - (b.top + b.bottom));
  const rows: typeof boxes = [];
  for (const b of boxes) {
    const row = rows.find((r) => overlap(r, b) > 0.5 * Math.min(r.bottom - r.top, b.bottom - b.top));
    if (row) {
      row.words.push(...b.words);
      row.top = Math.min(row.top, b.top);
      row.bottom = Math.max(row.bottom, b.bottom);
    } else {
      rows.push(b);
    }
  }
  return rows.sort((a, b) => a.top + a.bottom - (b.top + b.bottom)).map((r) => r.words);
}

const overlap = (a: { top: number; bottom: number }, b: { top: number; bottom: number }): number => Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);

/**
 * From user space of the upright page (w x h, y up) to top-left coordinates of the page as scanned.
 * A point (u, v) of the upright page (top-left) came from the scan's point: 0: (u, v);
 * 90: (v, H - u); 180: (W - u, H - v); 270: (W - v, u), with W x H the scan's size, and v = h - y.
 */
export function scannedTransform(rotation: Rotation, w: number, h: number): number[] {
  switch (rotation) {
    case 0:
      return [1, 0, 0, -1, 0, h];
    case 90:
      return [0, -1, -1, 0, h, w];
    case 180:
      return [-1, 0, 0, 1, w, 0];
    case 270:
      return [0, 1, 1, 0, 0, 0];
  }
}
