/**
 * Where a field's source box sits on a rendered page. Pure, so it is unit-tested.
 *
 * Units: the service gives `top_x, top_y, bottom_x, bottom_y` per 0-based file page, origin top-left,
 * in the units of the document's `page_layouts` (width, height; DocumentView.pageLayouts), so a box
 * scales by rendered size / layout size. The sandbox emits PDF points of pdf.js's viewport at scale 1
 * (rotation applied), so its layouts equal the PDF's page size. Without a layout: boxes whose
 * coordinates all lie in 0..1 are fractions of the page, anything else is points.
 */
import type { SourceBox } from '../../../shared/ui/views.js';

/** A page's size at scale 1 (pdf.js viewport: points, rotation applied), or a page layout. */
export interface PageSize {
  width: number;
  height: number;
}

/** A rectangle in CSS pixels of the rendered page, origin top-left. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type BoxUnits = 'fraction' | 'points';

const finite = (b: SourceBox): boolean => [b.left, b.top, b.right, b.bottom].every((n) => Number.isFinite(n));

/** Decided over all boxes of a field at once, so one tiny box in points is not taken for fractions. */
export function boxUnits(boxes: readonly SourceBox[]): BoxUnits {
  const ok = boxes.filter(finite);
  if (ok.length === 0) return 'points';
  return ok.every((b) => [b.left, b.top, b.right, b.bottom].every((n) => n >= 0 && n <= 1)) ? 'fraction' : 'points';
}

/**
 * The box on a page rendered at `scale` (CSS px per point). `layout` (when the service's page
 * layout is known) wins over the unit guess. Null when the box is empty or entirely off the page.
 */
export function boxRect(box: SourceBox, page: PageSize, scale: number, units: BoxUnits, layout?: PageSize | null): Rect | null {
  if (!finite(box) || !(scale > 0) || !(page.width > 0) || !(page.height > 0)) return null;
  let sx: number;
  let sy: number;
  if (layout && layout.width > 0 && layout.height > 0) {
    sx = (page.width * scale) / layout.width;
    sy = (page.height * scale) / layout.height;
  } else if (units === 'fraction') {
    sx = page.width * scale;
    sy = page.height * scale;
  } else {
    sx = scale;
    sy = scale;
  }
  const W = page.width * scale;
  const H = page.height * scale;
  // Services disagree on which corner comes first; normalise, then clip to the page.
  const x0 = clamp(Math.min(box.left, box.right) * sx, 0, W);
  const x1 = clamp(Math.max(box.left, box.right) * sx, 0, W);
  const y0 = clamp(Math.min(box.top, box.bottom) * sy, 0, H);
  const y1 = clamp(Math.max(box.top, box.bottom) * sy, 0, H);
  if (x1 - x0 <= 0 || y1 - y0 <= 0) return null;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Grows a rectangle by `pad` px on each side (a box drawn tight on glyphs hides them), clipped to the page. */
export function padRect(r: Rect, pad: number, W: number, H: number): Rect {
  const x = Math.max(0, r.x - pad);
  const y = Math.max(0, r.y - pad);
  return { x, y, width: Math.min(W, r.x + r.width + pad) - x, height: Math.min(H, r.y + r.height + pad) - y };
}

/**
 * The 0-based file page a box is on: its own page (source_coordinates count from 0), else the
 * document's first page index (its page_numbers less one: they count from 1), else 0.
 */
export function boxPage(box: SourceBox, documentPages: readonly number[]): number {
  if (box.page !== null && Number.isInteger(box.page) && box.page >= 0) return box.page;
  return documentPages[0] ?? 0;
}

/** The page to show for a field: the page of its first box, else the document's first page. */
export function fieldPage(boxes: readonly SourceBox[], documentPages: readonly number[]): number {
  const first = boxes[0];
  return first ? boxPage(first, documentPages) : (documentPages[0] ?? 0);
}

/** Scale that fits a page into `width` CSS px, within sane zoom limits. */
export function fitScale(page: PageSize, width: number, zoom = 1): number {
  if (!(page.width > 0) || !(width > 0)) return 1;
  return clamp((width / page.width) * zoom, 0.1, 8);
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}
