/** Finding labelled values in lines of text: "Label: value", or the value in the cell below the label. */
import { COLUMN_BREAK } from './text-model.js';
import type { PageText, TextLine } from './text-model.js';

/** Where a value was read: characters [start, end) of one line. */
export interface Hit {
  page: PageText;
  line: TextLine;
  start: number;
  end: number;
  text: string;
}

/** A document's lines in reading order, each with its page. */
export type DocLines = { page: PageText; line: TextLine }[];

export function docLines(pages: PageText[]): DocLines {
  return pages.flatMap((page) => page.lines.map((line) => ({ page, line })));
}

export function hit(page: PageText, line: TextLine, start: number, end: number): Hit {
  return { page, line, start, end, text: line.text.slice(start, end) };
}

/** The trimmed sub-hit [from, to) of `h.text`. */
export function subHit(h: Hit, from: number, to: number): Hit | null {
  const raw = h.text.slice(from, to);
  const lead = raw.length - raw.trimStart().length;
  const text = raw.trim();
  if (text === '') return null;
  return hit(h.page, h.line, h.start + from + lead, h.start + from + lead + text.length);
}

/** Cells of a line: text between column breaks. */
export function cells(page: PageText, line: TextLine): Hit[] {
  const out: Hit[] = [];
  const re = new RegExp(COLUMN_BREAK.source, 'g');
  let from = 0;
  for (const m of [...line.text.matchAll(re), null]) {
    const to = m ? m.index : line.text.length;
    const cell = subHit(hit(page, line, 0, line.text.length), from, to);
    if (cell) out.push(cell);
    if (m) from = m.index + m[0].length;
  }
  return out;
}

/** Horizontal extent of characters [start, end) in user space. */
function xRange(line: TextLine, start: number, end: number): [number, number] {
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const s of line.spans) {
    const a = Math.max(start, s.start);
    const b = Math.min(end, s.end);
    if (a >= b) continue;
    const per = (s.x1 - s.x0) / (s.end - s.start);
    x0 = Math.min(x0, s.x0 + per * (a - s.start));
    x1 = Math.max(x1, s.x0 + per * (b - s.start));
  }
  return [x0, x1];
}

export interface LabelHit {
  value: Hit;
  /** same: after the label in its cell; right: the next cell of the line; below: the cell under the label. */
  where: 'same' | 'right' | 'below';
}

/**
 * Candidate values of every occurrence of `label`, in document order and, per occurrence, best
 * first: the rest of the label's cell; else the next cell to the right and the cell below (the cell
 * below first when the label sits in a header row, a row of several cells without digits).
 */
export function labelled(lines: DocLines, label: RegExp): LabelHit[] {
  const out: LabelHit[] = [];
  const re = new RegExp(label.source, label.flags.includes('g') ? label.flags : `${label.flags}g`);
  lines.forEach(({ page, line }, i) => {
    for (const m of line.text.matchAll(re)) {
      const afterLabel = m.index + m[0].length;
      const rest = line.text.slice(afterLabel);
      const skip = /^[ ]*[:#]?[ ]*/.exec(rest)?.[0].length ?? 0;
      const breakAt = rest.slice(skip).search(COLUMN_BREAK);
      const end = breakAt < 0 ? line.text.length : afterLabel + skip + breakAt;
      const same = subHit(hit(page, line, 0, line.text.length), afterLabel + skip, end);
      if (same) {
        out.push({ value: same, where: 'same' });
        continue;
      }
      const row = cells(page, line);
      const right = row.find((c) => c.start >= end);
      const below = cellBelow(lines[i + 1], line, m.index, afterLabel);
      const header = row.length >= 2 && row.every((c) => !/\d/.test(c.text));
      const options: LabelHit[] = [];
      if (right) options.push({ value: right, where: 'right' });
      if (below) options.splice(header ? 0 : options.length, 0, { value: below, where: 'below' });
      out.push(...options);
    }
  });
  return out;
}

function cellBelow(next: DocLines[number] | undefined, line: TextLine, start: number, end: number): Hit | null {
  if (!next || next.line.page !== line.page) return null;
  const [lx0, lx1] = xRange(line, start, end);
  let best: Hit | null = null;
  let bestScore = -Infinity;
  for (const c of cells(next.page, next.line)) {
    const [cx0, cx1] = xRange(next.line, c.start, c.end);
    // Overlap wins; otherwise the nearest left edge.
    const score = Math.min(lx1, cx1) - Math.max(lx0, cx0) - Math.abs(cx0 - lx0) / 1000;
    if (score > bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}
