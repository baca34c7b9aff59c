/**
 * Widths of the Results screen's side panes (the tree on the left, the source page on the right);
 * the fields pane in the middle takes the rest. Dragged or moved with the arrow keys, kept in
 * localStorage (PANES_KEY) so the screen opens as it was left. Pure.
 */

export interface PaneSizes {
  tree: number;
  page: number;
}

export type Pane = keyof PaneSizes;

/**
 * At 1280x800 (1070 px beside the app's sidebar) the page gets the most: it is drawn ~525 px wide
 * (about 65 %, where an invoice's 11 pt text is ~9.5 px; at 420 px it was 50 %, ~7 px, unreadable).
 * The tree keeps ordinary file names whole; the fields table, of short values, takes the rest
 * (~295 px). Hiding the list (LIST_RAIL) gives its width to the page: ~87 %.
 */
export const PANE_DEFAULTS: PaneSizes = { tree: 224, page: 540 };
export const PANE_MIN: PaneSizes = { tree: 180, page: 260 };
/** The fields pane never gets narrower than this while the window allows it. */
export const MAIN_MIN = 280;
/** Width of the results list when hidden: a rail with the button that shows it again. */
export const LIST_RAIL = 36;
/** Where the Results screen keeps whether the list is hidden (localStorage). */
export const LIST_HIDDEN_KEY = 'docsync.results.listHidden';
/** Room the two drag handles take. */
export const HANDLES = 12;
/** One arrow-key press, in px; with Shift, four times as far. */
export const KEY_STEP = 16;

/** Where the Results screen keeps the sizes (localStorage). */
export const PANES_KEY = 'docsync.results.panes';

/**
 * Sizes that fit `total` px: each pane at least its minimum; past that, the page pane gives way
 * first, then the tree, so the fields pane keeps MAIN_MIN.
 */
export function fitPanes(s: PaneSizes, total: number): PaneSizes {
  let tree = Math.max(PANE_MIN.tree, Math.round(s.tree));
  let page = Math.max(PANE_MIN.page, Math.round(s.page));
  if (!(total > 0)) return { tree, page };
  const room = total - HANDLES - MAIN_MIN;
  if (tree + page > room) page = Math.max(PANE_MIN.page, room - tree);
  if (tree + page > room) tree = Math.max(PANE_MIN.tree, room - page);
  return { tree, page };
}

/** The largest a pane may get beside the other one in `total` px. */
export function paneMax(pane: Pane, s: PaneSizes, total: number): number {
  const other = pane === 'tree' ? s.page : s.tree;
  return Math.max(PANE_MIN[pane], total - HANDLES - MAIN_MIN - other);
}

/**
 * A key on a pane's handle: the new width, or null for keys it does not take. `grows` is the arrow
 * that widens the pane (ArrowRight for the tree, whose handle is on its right; ArrowLeft for the page).
 */
export function keyResize(key: string, shift: boolean, width: number, min: number, max: number, grows: 'ArrowLeft' | 'ArrowRight'): number | null {
  const step = shift ? KEY_STEP * 4 : KEY_STEP;
  if (key === 'Home') return min;
  if (key === 'End') return max;
  if (key !== 'ArrowLeft' && key !== 'ArrowRight') return null;
  return Math.min(max, Math.max(min, width + (key === grows ? step : -step)));
}

/**
 * The page pane's width when the list is hidden: it takes the list's room (less the rail, and the
 * list's handle, which goes too), as far as the fields pane keeps MAIN_MIN.
 */
export function pageWithListHidden(s: PaneSizes, total: number): number {
  const grown = s.page + s.tree + HANDLES / 2 - LIST_RAIL;
  return total > 0 ? Math.max(s.page, Math.min(grown, total - HANDLES / 2 - LIST_RAIL - MAIN_MIN)) : grown;
}

/** Stored sizes, or the defaults for anything missing or malformed. */
export function parsePanes(raw: string | null): PaneSizes {
  try {
    const v = JSON.parse(raw ?? 'null') as Partial<Record<Pane, unknown>> | null;
    const num = (x: unknown, d: number): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : d);
    return { tree: num(v?.tree, PANE_DEFAULTS.tree), page: num(v?.page, PANE_DEFAULTS.page) };
  } catch {
    return { ...PANE_DEFAULTS };
  }
}
