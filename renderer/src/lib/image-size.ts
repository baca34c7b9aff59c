/**
 * An image page's size in points (1/72 inch), from its pixels and the resolution its file records,
 * so the zoom label means the same as for a PDF (lib/zoom.ts). Pure.
 */
import type { PageSize } from './source-box.js';

export interface ImagePage {
  /** Pixels. */
  width: number;
  height: number;
  /** Pixels per inch, or null when the file does not say. */
  dpi: number | null;
}

/** Taken when an image records no resolution: then 100 % draws one pixel per CSS pixel. */
export const DEFAULT_DPI = 96;

/** Resolutions outside this range are taken as nonsense (some writers put 1 or 72 000). */
const SANE_DPI = { min: 30, max: 2400 };

export function imageDpi(p: ImagePage): number {
  return p.dpi !== null && p.dpi >= SANE_DPI.min && p.dpi <= SANE_DPI.max ? p.dpi : DEFAULT_DPI;
}

export function imagePoints(p: ImagePage): PageSize {
  const k = 72 / imageDpi(p);
  return { width: p.width * k, height: p.height * k };
}
