/**
 * What a zoom percentage means on the source page. 100 % is the paper's own size on screen: a PDF
 * point is 1/72 inch and a CSS pixel 1/96 inch, so 100 % draws 96/72 CSS px per point. The label
 * is always computed from the scale the page is drawn at, never from a multiplier of "fit". Pure.
 */

export const CSS_PX_PER_PT = 96 / 72;

/** Steps for the zoom buttons, in percent. */
export const ZOOM_STEPS: readonly number[] = [25, 33, 50, 67, 75, 90, 100, 110, 125, 150, 175, 200, 250, 300, 400];

/** The percentage a scale (CSS px per point) shows the page at, whole. */
export function zoomPercent(scale: number): number {
  return Math.round((scale / CSS_PX_PER_PT) * 100);
}

/** CSS px per point for a percentage. */
export function scaleOf(percent: number): number {
  return (percent / 100) * CSS_PX_PER_PT;
}

/** The next step above (dir 1) or below (dir -1) the current percentage; null past the last. */
export function nextZoom(current: number, dir: 1 | -1): number | null {
  const steps = dir === 1 ? ZOOM_STEPS.filter((s) => s > current + 0.5) : ZOOM_STEPS.filter((s) => s < current - 0.5);
  return (dir === 1 ? steps[0] : steps[steps.length - 1]) ?? null;
}
