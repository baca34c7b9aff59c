// Windowing of Activity's list (renderer/src/lib/virtual.ts): which rows are in the DOM for a scroll
// position, with and without one opened (taller) row, and which pages hold them.
import { describe, expect, it } from 'vitest';
import { indexAt, inOrder, pagesFor, recycle, rowHeightAt, rowTop, scrollToShow, windowFor } from '../../../renderer/src/lib/virtual.js';

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

describe('recycle', () => {
  const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, k) => a + k);

  it('keeps every row still in view in its element; rows coming in take the places of those gone', () => {
    const first = recycle([], 0, 10);
    expect(first).toEqual(range(0, 10));
    const next = recycle(first, 3, 13);
    // Elements 0-2 showed rows 0-2, now gone: they show 10-12; the others keep theirs.
    expect(next).toEqual([10, 11, 12, 3, 4, 5, 6, 7, 8, 9]);
    expect([...next].sort((a, b) => a - b)).toEqual(range(3, 13));
    expect(recycle(next, 3, 13)).toBe(next);
  });

  it('a far jump replaces every row in order; a smaller window drops elements from the end', () => {
    expect(recycle([10, 11, 12, 3, 4, 5], 500, 506)).toEqual(range(500, 506));
    // Rows 5-7 stay; row 9 was in the last element, which goes: it moves to a free one.
    expect(recycle([0, 1, 5, 6, 7, 9], 5, 10)).toEqual([8, 9, 5, 6, 7]);
    expect(recycle([1, 2, 3], 0, 0)).toEqual([]);
  });

  it('changes as few elements as a scroll needs, over a long scroll', () => {
    let slots = recycle([], 0, 41);
    for (let start = 25; start < 2000; start += 25) {
      const next = recycle(slots, start, start + 41);
      const changed = next.filter((x, k) => x !== slots[k]).length;
      expect(changed).toBe(25);
      expect(new Set(next).size).toBe(41);
      expect(Math.min(...next)).toBe(start);
      slots = next;
    }
  });
});

describe('inOrder', () => {
  it('lists the rows in order, and returns the same array when they already are', () => {
    const rows = [10, 11, 12, 3, 4, 5, 6, 7, 8, 9];
    const sorted = inOrder(rows, 3, 13);
    expect(sorted).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(inOrder(sorted, 3, 13)).toBe(sorted);
  });
});
