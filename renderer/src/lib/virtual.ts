/**
 * Windowing for long lists (Activity's 100,000 rows): rows have one fixed height, except at most one
 * opened row that is taller; only the rows in view plus an overscan are put in the DOM. Pure.
 */

export interface Expanded {
  index: number;
  /** Height of the opened row (including its own row height). */
  height: number;
}

export interface WindowInput {
  scrollTop: number;
  /** Height of the scrolling viewport. */
  viewport: number;
  rowHeight: number;
  count: number;
  /** Extra rows rendered above and below what is visible, so fast scrolling shows no gaps. */
  overscan: number;
  expanded?: Expanded | null;
}

export interface Window {
  /** First row index to render. */
  start: number;
  /** One past the last row index to render. */
  end: number;
  /** Height of the whole list, for the spacer that gives the scrollbar its size. */
  height: number;
}

const extra = (rowHeight: number, ex: Expanded | null | undefined, count: number): number =>
  ex && ex.index >= 0 && ex.index < count ? Math.max(0, ex.height - rowHeight) : 0;

/** Top of row `i` in the list. */
export function rowTop(i: number, rowHeight: number, ex?: Expanded | null): number {
  return i * rowHeight + (ex && i > ex.index ? Math.max(0, ex.height - rowHeight) : 0);
}

/** Height of row `i`. */
export function rowHeightAt(i: number, rowHeight: number, ex?: Expanded | null): number {
  return ex && i === ex.index ? Math.max(rowHeight, ex.height) : rowHeight;
}

/** Index of the row covering vertical position `y` (clamped to the list). */
export function indexAt(y: number, rowHeight: number, count: number, ex?: Expanded | null): number {
  if (count <= 0) return 0;
  let i: number;
  if (!ex || ex.index < 0 || ex.index >= count) i = Math.floor(y / rowHeight);
  else {
    const openTop = ex.index * rowHeight;
    const openBottom = openTop + Math.max(rowHeight, ex.height);
    if (y < openTop) i = Math.floor(y / rowHeight);
    else if (y < openBottom) i = ex.index;
    else i = ex.index + 1 + Math.floor((y - openBottom) / rowHeight);
  }
  return Math.min(count - 1, Math.max(0, i));
}

export function windowFor(w: WindowInput): Window {
  const height = w.count * w.rowHeight + extra(w.rowHeight, w.expanded, w.count);
  if (w.count <= 0) return { start: 0, end: 0, height: 0 };
  const first = indexAt(Math.max(0, w.scrollTop), w.rowHeight, w.count, w.expanded);
  const last = indexAt(Math.max(0, w.scrollTop + Math.max(0, w.viewport) - 1), w.rowHeight, w.count, w.expanded);
  return {
    start: Math.max(0, first - w.overscan),
    end: Math.min(w.count, last + 1 + w.overscan),
    height,
  };
}

/** Page numbers (of `pageSize` rows) that hold rows [start, end). */
export function pagesFor(start: number, end: number, pageSize: number): number[] {
  if (end <= start) return [];
  const out: number[] = [];
  for (let p = Math.floor(start / pageSize); p <= Math.floor((end - 1) / pageSize); p++) out.push(p);
  return out;
}

/** The scrollTop that brings row `i` fully into view, moving as little as possible. */
export function scrollToShow(i: number, scrollTop: number, viewport: number, rowHeight: number, ex?: Expanded | null): number {
  const top = rowTop(i, rowHeight, ex);
  const bottom = top + rowHeightAt(i, rowHeight, ex);
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewport) return Math.max(0, bottom - viewport);
  return scrollTop;
}

/**
 * Which row each rendered element shows, for rows [start, end): element k keeps the row it showed
 * (`prev[k]`) while that row is still in the window, and the rows coming into view take the places
 * of those that left. A scroll then changes the text of a few elements instead of creating new ones.
 * Returns `prev` itself when nothing changed.
 */
export function recycle(prev: readonly number[], start: number, end: number): number[] {
  const n = Math.max(0, end - start);
  const out = new Array<number>(n).fill(-1);
  const placed = new Uint8Array(n);
  for (let k = 0; k < Math.min(n, prev.length); k++) {
    const i = prev[k] as number;
    if (i >= start && i < end && !placed[i - start]) {
      out[k] = i;
      placed[i - start] = 1;
    }
  }
  let next = 0;
  for (let k = 0; k < n; k++) {
    if (out[k] !== -1) continue;
    while (placed[next]) next++;
    out[k] = start + next;
    placed[next] = 1;
  }
  return sameRows(prev, out) ? (prev as number[]) : out;
}

/** Rows [start, end) in order (the element order once scrolling stops); `prev` itself when it already is. */
export function inOrder(prev: readonly number[], start: number, end: number): number[] {
  const out = Array.from({ length: Math.max(0, end - start) }, (_, k) => start + k);
  return sameRows(prev, out) ? (prev as number[]) : out;
}

const sameRows = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, k) => x === b[k]);
