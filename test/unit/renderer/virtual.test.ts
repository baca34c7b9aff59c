// Windowing of Activity's list (renderer/src/lib/virtual.ts): which rows are in the DOM for a scroll
// position, with and without one opened (taller) row, and which pages hold them.
import { describe, expect, it } from 'vitest';
import { indexAt, pagesFor, rowHeightAt, rowTop, scrollToShow, windowFor } from '../../../renderer/src/lib/virtual.js';

const base = { rowHeight: 36, viewport: 360, overscan: 5 };

describe('windowFor', () => {
  it('renders only the visible rows plus overscan of 100,000', () => {
    const w = windowFor({ ...base, scrollTop: 36 * 50_000, count: 100_000 });
    expect(w).toEqual({ start: 49_995, end: 50_015, height: 3_600_000 });
    expect(w.end - w.start).toBeLessThan(30);
  });

  it('clamps at both ends and for a part row at the bottom of the viewport', () => {
    expect(windowFor({ ...base, scrollTop: 0, count: 100_000 })).toMatchObject({ start: 0, end: 15 });
    expect(windowFor({ ...base, scrollTop: 36 * 99_990, count: 100_000 })).toMatchObject({ start: 99_985, end: 100_000 });
    // 10 rows fit exactly; scrolled by half a row, 11 are partly visible.
    expect(windowFor({ ...base, overscan: 0, scrollTop: 18, count: 100 })).toMatchObject({ start: 0, end: 11 });
  });

  it('is empty for an empty list, and short lists render whole', () => {
    expect(windowFor({ ...base, scrollTop: 0, count: 0 })).toEqual({ start: 0, end: 0, height: 0 });
    expect(windowFor({ ...base, scrollTop: 0, count: 3 })).toEqual({ start: 0, end: 3, height: 108 });
  });

  it('accounts for one opened row above, inside and below the view', () => {
    const expanded = { index: 10, height: 236 };
    // The list is 200 px taller.
    expect(windowFor({ ...base, overscan: 0, scrollTop: 0, count: 1000, expanded }).height).toBe(36_200);
    // Scrolled past the opened row: every index moves up by its extra 200 px.
    expect(windowFor({ ...base, overscan: 0, scrollTop: 36 * 20 + 200, count: 1000, expanded })).toMatchObject({ start: 20, end: 30 });
    // Inside the opened row: fewer rows are needed to fill the view.
    expect(windowFor({ ...base, overscan: 0, scrollTop: 36 * 10, count: 1000, expanded })).toMatchObject({ start: 10, end: 15 });
    // An opened index beyond the list changes nothing.
    expect(windowFor({ ...base, scrollTop: 0, count: 5, expanded: { index: 9, height: 236 } }).height).toBe(180);
  });
});

describe('row geometry', () => {
  const ex = { index: 3, height: 100 };
  it('places rows after the opened one lower, and indexAt inverts rowTop', () => {
    expect([rowTop(2, 36, ex), rowTop(3, 36, ex), rowTop(4, 36, ex)]).toEqual([72, 108, 208]);
    expect([rowHeightAt(3, 36, ex), rowHeightAt(4, 36, ex)]).toEqual([100, 36]);
    for (let i = 0; i < 20; i++) {
      expect(indexAt(rowTop(i, 36, ex), 36, 20, ex)).toBe(i);
      expect(indexAt(rowTop(i, 36, ex) + rowHeightAt(i, 36, ex) - 1, 36, 20, ex)).toBe(i);
    }
    expect(indexAt(1e9, 36, 20, ex)).toBe(19);
    expect(indexAt(-5, 36, 20)).toBe(0);
  });

  it('scrollToShow moves as little as possible', () => {
    expect(scrollToShow(5, 0, 360, 36)).toBe(0);
    expect(scrollToShow(10, 0, 360, 36)).toBe(36);
    expect(scrollToShow(2, 360, 360, 36)).toBe(72);
    expect(scrollToShow(3, 0, 120, 36, ex)).toBe(88);
  });
});

describe('pagesFor', () => {
  it('lists the pages holding a row range', () => {
    expect(pagesFor(0, 15, 200)).toEqual([0]);
    expect(pagesFor(195, 215, 200)).toEqual([0, 1]);
    expect(pagesFor(400, 400, 200)).toEqual([]);
    expect(pagesFor(99_985, 100_000, 200)).toEqual([499]);
  });
});
