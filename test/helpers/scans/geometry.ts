/** Where a box lands when a page image is scaled, skewed or turned (top-left origin, y down). */

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export type QuarterTurn = 0 | 90 | 180 | 270;

const r2 = (n: number): number => Math.round(n * 100) / 100;

export function scaleBox(b: Box, k: number): Box {
  return { x0: r2(b.x0 * k), y0: r2(b.y0 * k), x1: r2(b.x1 * k), y1: r2(b.y1 * k) };
}

function bound(points: [number, number][]): Box {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return { x0: r2(Math.min(...xs)), y0: r2(Math.min(...ys)), x1: r2(Math.max(...xs)), y1: r2(Math.max(...ys)) };
}

const corners = (b: Box): [number, number][] => [[b.x0, b.y0], [b.x1, b.y0], [b.x0, b.y1], [b.x1, b.y1]];

/**
 * A box of a w x h image turned by `deg` clockwise about its centre onto a canvas of w2 x h2 that
 * holds the whole turned image centred (what sharp's rotate(deg) gives). The result is the upright
 * box around the turned one.
 */
export function skewBox(b: Box, w: number, h: number, deg: number, w2: number, h2: number): Box {
  const t = (deg * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  return bound(
    corners(b).map(([x, y]): [number, number] => {
      const dx = x - w / 2;
      const dy = y - h / 2;
      return [w2 / 2 + dx * c - dy * s, h2 / 2 + dx * s + dy * c];
    }),
  );
}

/** A box of a w x h image turned clockwise by a quarter turn (sharp's rotate(90|180|270)). */
export function turnBox(b: Box, w: number, h: number, turn: QuarterTurn): Box {
  const map = ([x, y]: [number, number]): [number, number] => {
    if (turn === 90) return [h - y, x];
    if (turn === 180) return [w - x, h - y];
    if (turn === 270) return [y, w - x];
    return [x, y];
  };
  return bound(corners(b).map(map));
}

/** Size of a w x h image after a quarter turn. */
export const turnedSize = (w: number, h: number, turn: QuarterTurn): { width: number; height: number } =>
  turn === 90 || turn === 270 ? { width: h, height: w } : { width: w, height: h };

/** Intersection over union of two boxes (0 when they do not meet). */
export function iou(a: Box, b: Box): number {
  const ix = Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));
  const iy = Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  const inter = ix * iy;
  const area = (x: Box): number => Math.max(0, x.x1 - x.x0) * Math.max(0, x.y1 - x.y0);
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

/** Whether the centre of `inner` lies inside `outer`. */
export function centreInside(inner: Box, outer: Box): boolean {
  const cx = (inner.x0 + inner.x1) / 2;
  const cy = (inner.y0 + inner.y1) / 2;
  return cx >= outer.x0 && cx <= outer.x1 && cy >= outer.y0 && cy <= outer.y1;
}
