// Activity's page cache (renderer/src/lib/page-cache.ts): pages asked once, kept while used, stale
// pages still shown but asked again, late answers of an old filter or an old epoch dropped.
import { describe, expect, it } from 'vitest';
import { PageCache } from '../../../renderer/src/lib/page-cache.js';

const rows = (page: number, tag = ''): { id: number; tag: string }[] => Array.from({ length: 10 }, (_, i) => ({ id: page * 10 + i, tag }));

describe('PageCache', () => {
  it('asks for a missing page once while it is on the way, then serves its rows', () => {
    const c = new PageCache<{ id: number; tag: string }>(10, 5);
    expect(c.wanted([0, 1])).toEqual([0, 1]);
    const t0 = c.begin(0);
    c.begin(1);
    expect(c.wanted([0, 1])).toEqual([]);
    expect(c.settle(t0, rows(0))).toBe('changed');
    expect(c.row(7)).toEqual({ id: 7, tag: '' });
    expect(c.row(17)).toBeUndefined();
  });

  it('after invalidate keeps showing old rows and asks again; a late older answer never replaces a newer one', () => {
    const c = new PageCache<{ id: number; tag: string }>(10, 5);
    c.settle(c.begin(0), rows(0, 'v1'));
    const old = c.begin(0);
    c.invalidate();
    expect(c.row(3)?.tag).toBe('v1');
    // The request begun before the change is not enough: ask again.
    expect(c.wanted([0])).toEqual([0]);
    const fresh = c.begin(0);
    expect(c.settle(fresh, rows(0, 'v3'))).toBe('changed');
    expect(c.settle(old, rows(0, 'v2'))).toBe('dropped');
    expect(c.row(3)?.tag).toBe('v3');
    expect(c.wanted([0])).toEqual([]);
  });

  it('an answer begun before invalidate and arriving alone leaves the page stale', () => {
    const c = new PageCache<{ id: number; tag: string }>(10, 5);
    const t = c.begin(0);
    c.invalidate();
    expect(c.settle(t, rows(0, 'old'))).toBe('changed');
    expect(c.wanted([0])).toEqual([0]);
  });

  it('drops answers to the previous filter after reset', () => {
    const c = new PageCache<{ id: number; tag: string }>(10, 5);
    const t = c.begin(0);
    c.reset();
    expect(c.settle(t, rows(0))).toBe('dropped');
    expect(c.row(0)).toBeUndefined();
    expect(c.wanted([0])).toEqual([0]);
  });

  it('evicts the least recently used pages beyond its limit, never the ones in view', () => {
    const c = new PageCache<{ id: number; tag: string }>(10, 3);
    for (const p of [0, 1, 2]) c.settle(c.begin(p), rows(p));
    c.wanted([0]); // page 0 used again: page 1 is now the oldest
    c.settle(c.begin(3), rows(3), [3]);
    expect([c.has(0), c.has(1), c.has(2), c.has(3)]).toEqual([true, false, true, true]);
    c.settle(c.begin(4), rows(4), [2, 4]);
    expect([c.has(0), c.has(2), c.has(3), c.has(4)]).toEqual([false, true, true, true]);
    expect(c.size).toBe(3);
  });

  it('patches a row in place by id and says on which pages', () => {
    const c = new PageCache<{ id: number; tag: string }>(10, 5);
    c.settle(c.begin(1), rows(1));
    expect(c.patch({ id: 14, tag: 'failed' })).toEqual([1]);
    expect(c.row(14)?.tag).toBe('failed');
    expect(c.patch({ id: 99, tag: 'x' })).toEqual([]);
  });

  it('a refetch keeps the cached objects of rows that did not change, and says whether any did', () => {
    const c = new PageCache<{ id: number; tag: string }>(10, 5);
    c.settle(c.begin(0), rows(0, 'v1'));
    const before = c.row(3);
    c.invalidate();
    expect(c.settle(c.begin(0), rows(0, 'v1'))).toBe('unchanged');
    expect(c.row(3)).toBe(before);
    c.invalidate();
    const next = rows(0, 'v1');
    next[5] = { id: 5, tag: 'v2' };
    expect(c.settle(c.begin(0), next)).toBe('changed');
    expect(c.row(3)).toBe(before);
    expect(c.row(5)).toEqual({ id: 5, tag: 'v2' });
    // Fewer rows (files gone from a filter) is a change too.
    c.invalidate();
    expect(c.settle(c.begin(0), rows(0, 'v1').slice(0, 9))).toBe('changed');
  });
});
