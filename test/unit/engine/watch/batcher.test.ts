/** Batching rule (issue 4): a batch closes after a quiet period reset by each new file, or at max files / max bytes. */
import { describe, expect, it } from 'vitest';
import { BatchPlanner } from '../../../../electron/engine/watch/batcher.js';

const f = (name: string, size = 1) => ({ path: `/in/${name}`, size });
const names = (b: { files: { path: string }[] }) => b.files.map((x) => x.path.slice(4));

describe('BatchPlanner', () => {
  it('closes after the quiet period, which each new file resets', () => {
    const p = new BatchPlanner({ quietMs: 10_000, maxFiles: 100, maxBytes: 1e9 });
    expect(p.add(f('a'), 0)).toEqual([]);
    expect(p.add(f('b'), 6_000)).toEqual([]);
    expect(p.tick(15_999)).toEqual([]);
    expect(p.nextDeadline()).toBe(16_000);
    const [batch, ...more] = p.tick(16_000);
    expect(more).toEqual([]);
    expect(batch).toMatchObject({ seq: 1, reason: 'quiet', bytes: 2, openedAt: 0, closedAt: 16_000 });
    expect(names(batch!)).toEqual(['a', 'b']);
    expect(p.nextDeadline()).toBeUndefined();
    expect(p.tick(99_999)).toEqual([]);
  });
  it('a file arriving after the period ran out (no tick in between) starts a new batch', () => {
    const p = new BatchPlanner({ quietMs: 100, maxFiles: 100, maxBytes: 1e9 });
    p.add(f('a'), 0);
    const closed = p.add(f('b'), 500);
    expect(closed.map(names)).toEqual([['a']]);
    expect(names({ files: p.pending() })).toEqual(['b']);
  });
  it('closes as soon as it holds maxFiles files', () => {
    const p = new BatchPlanner({ quietMs: 10_000, maxFiles: 3, maxBytes: 1e9 });
    expect(p.add(f('a'), 0)).toEqual([]);
    expect(p.add(f('b'), 1)).toEqual([]);
    const closed = p.add(f('c'), 2);
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ reason: 'maxFiles', seq: 1 });
    expect(names(closed[0]!)).toEqual(['a', 'b', 'c']);
    expect(p.add(f('d'), 3)).toEqual([]);
    expect(p.tick(10_003).map((b) => [b.seq, b.reason, names(b)])).toEqual([[2, 'quiet', ['d']]]);
  });
  it('closes before a file would take it past maxBytes; a file over the limit is a batch alone', () => {
    const p = new BatchPlanner({ quietMs: 10_000, maxFiles: 100, maxBytes: 100 });
    p.add(f('a', 40), 0);
    p.add(f('b', 40), 1);
    const closed = p.add(f('c', 40), 2);
    expect(closed.map((b) => [b.reason, names(b), b.bytes])).toEqual([['maxBytes', ['a', 'b'], 80]]);
    const big = p.add(f('huge', 500), 3);
    expect(big.map((b) => [b.reason, names(b)])).toEqual([
      ['maxBytes', ['c']],
      ['maxBytes', ['huge']],
    ]);
    expect(p.pending()).toEqual([]);
  });
  it('reaching maxBytes exactly closes the batch', () => {
    const p = new BatchPlanner({ quietMs: 10_000, maxFiles: 100, maxBytes: 100 });
    p.add(f('a', 60), 0);
    expect(p.add(f('b', 40), 1).map(names)).toEqual([['a', 'b']]);
  });
  it('a path added twice counts once (the newer version), a removed file leaves the batch', () => {
    const p = new BatchPlanner({ quietMs: 100, maxFiles: 2, maxBytes: 1e9 });
    p.add(f('a', 5), 0);
    expect(p.add(f('a', 7), 10)).toEqual([]);
    expect(p.add(f('b', 1), 20).map((b) => [names(b), b.bytes])).toEqual([[['a', 'b'], 8]]);
    expect(p.remove('/in/zzz')).toBe(false);
    const p2 = new BatchPlanner({ quietMs: 100, maxFiles: 10, maxBytes: 1e9 });
    p2.add(f('x', 5), 0);
    p2.add(f('y', 5), 0);
    expect(p2.remove('/in/x')).toBe(true);
    expect(p2.tick(100).map((b) => [names(b), b.bytes])).toEqual([[['y'], 5]]);
  });
  it('flush closes whatever is open; a batch left empty by removals never closes', () => {
    const p = new BatchPlanner({ quietMs: 100, maxFiles: 10, maxBytes: 1e9 });
    expect(p.flush(0)).toEqual([]);
    p.add(f('a'), 0);
    expect(p.flush(5).map((b) => b.reason)).toEqual(['flush']);
    p.add(f('b'), 10);
    p.remove('/in/b');
    expect(p.nextDeadline()).toBeUndefined();
    expect(p.tick(1000)).toEqual([]);
  });
  it('rejects a nonsensical rule', () => {
    expect(() => new BatchPlanner({ quietMs: 0, maxFiles: 0, maxBytes: 1 })).toThrow(RangeError);
  });
});
