/**
 * Batching rule (issues 4 and 14): a batch closes after a wait reset by each new file (minQuietMs, growing
 * with the gaps between its files up to quietMs), or at max files / max bytes. Times are passed in: the
 * planner is pure, so no clock is faked.
 */
import { describe, expect, it } from 'vitest';
import { BatchPlanner } from '../../../../electron/engine/watch/batcher.js';

const f = (name: string, size = 1) => ({ path: `/in/${name}`, size });
const names = (b: { files: { path: string }[] }) => b.files.map((x) => x.path.slice(4));

describe('BatchPlanner', () => {
  it('with a fixed wait (minQuietMs = quietMs): closes after the quiet period, which each new file resets', () => {
    const p = new BatchPlanner({ minQuietMs: 10_000, quietMs: 10_000, maxFiles: 100, maxBytes: 1e9 });
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
    const p = new BatchPlanner({ minQuietMs: 100, quietMs: 100, maxFiles: 100, maxBytes: 1e9 });
    p.add(f('a'), 0);
    const closed = p.add(f('b'), 500);
    expect(closed.map(names)).toEqual([['a']]);
    expect(names({ files: p.pending() })).toEqual(['b']);
  });
  it('closes as soon as it holds maxFiles files', () => {
    const p = new BatchPlanner({ minQuietMs: 10_000, quietMs: 10_000, maxFiles: 3, maxBytes: 1e9 });
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
    const p = new BatchPlanner({ minQuietMs: 10_000, quietMs: 10_000, maxFiles: 100, maxBytes: 100 });
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
    const p = new BatchPlanner({ minQuietMs: 10_000, quietMs: 10_000, maxFiles: 100, maxBytes: 100 });
    p.add(f('a', 60), 0);
    expect(p.add(f('b', 40), 1).map(names)).toEqual([['a', 'b']]);
  });
  it('a path added twice counts once (the newer version), a removed file leaves the batch', () => {
    const p = new BatchPlanner({ minQuietMs: 100, quietMs: 100, maxFiles: 2, maxBytes: 1e9 });
    p.add(f('a', 5), 0);
    expect(p.add(f('a', 7), 10)).toEqual([]);
    expect(p.add(f('b', 1), 20).map((b) => [names(b), b.bytes])).toEqual([[['a', 'b'], 8]]);
    expect(p.remove('/in/zzz')).toBe(false);
    const p2 = new BatchPlanner({ minQuietMs: 100, quietMs: 100, maxFiles: 10, maxBytes: 1e9 });
    p2.add(f('x', 5), 0);
    p2.add(f('y', 5), 0);
    expect(p2.remove('/in/x')).toBe(true);
    expect(p2.tick(100).map((b) => [names(b), b.bytes])).toEqual([[['y'], 5]]);
  });
  it('flush closes whatever is open; a batch left empty by removals never closes', () => {
    const p = new BatchPlanner({ minQuietMs: 100, quietMs: 100, maxFiles: 10, maxBytes: 1e9 });
    expect(p.flush(0)).toEqual([]);
    p.add(f('a'), 0);
    expect(p.flush(5).map((b) => b.reason)).toEqual(['flush']);
    p.add(f('b'), 10);
    p.remove('/in/b');
    expect(p.nextDeadline()).toBeUndefined();
    expect(p.tick(1000)).toEqual([]);
  });
  it('rejects a nonsensical rule', () => {
    expect(() => new BatchPlanner({ minQuietMs: 0, quietMs: 0, maxFiles: 0, maxBytes: 1 })).toThrow(RangeError);
    expect(() => new BatchPlanner({ minQuietMs: 2000, quietMs: 1000, maxFiles: 10, maxBytes: 1 })).toThrow(RangeError);
  });
});

describe('BatchPlanner, adaptive wait (defaults: 1 s, up to 10 s)', () => {
  const rule = { minQuietMs: 1000, quietMs: 10_000, maxFiles: 100, maxBytes: 1e9 };
  it('a single scan closes minQuietMs after it arrived, not quietMs', () => {
    const p = new BatchPlanner(rule);
    p.add(f('scan'), 5000);
    expect(p.nextDeadline()).toBe(6000);
    expect(p.tick(5999)).toEqual([]);
    expect(p.tick(6000).map((b) => [b.reason, names(b)])).toEqual([['quiet', ['scan']]]);
  });
  it('a burst closes minQuietMs after its last file', () => {
    const p = new BatchPlanner(rule);
    for (let i = 0; i < 20; i++) p.add(f(`b${i}`), i * 5);
    expect(p.waitMs()).toBe(1000);
    expect(p.nextDeadline()).toBe(95 + 1000);
  });
  it('while files keep coming, the wait grows to twice the longest gap, up to quietMs', () => {
    const p = new BatchPlanner(rule);
    p.add(f('p1'), 0);
    p.add(f('p2'), 900); // gap 0.9 s: wait 1.8 s
    expect(p.nextDeadline()).toBe(900 + 1800);
    p.add(f('p3'), 2500); // gap 1.6 s (would have closed a fixed 1 s batch): wait 3.2 s
    expect(p.nextDeadline()).toBe(2500 + 3200);
    p.add(f('p4'), 5600); // gap 3.1 s: wait 6.2 s
    p.add(f('p5'), 11_000); // gap 5.4 s: wait capped at 10 s
    expect(p.waitMs()).toBe(10_000);
    expect(p.tick(20_999)).toEqual([]);
    expect(p.tick(21_000).map(names)).toEqual([['p1', 'p2', 'p3', 'p4', 'p5']]);
  });
  it('the next batch starts again at minQuietMs', () => {
    const p = new BatchPlanner(rule);
    p.add(f('a'), 0);
    p.add(f('b'), 900);
    p.tick(900 + 1800);
    p.add(f('c'), 10_000);
    expect(p.nextDeadline()).toBe(11_000);
  });
  it('a gap longer than the wait splits the stream', () => {
    const p = new BatchPlanner(rule);
    p.add(f('a'), 0);
    expect(p.add(f('b'), 1500).map(names)).toEqual([['a']]);
    expect(p.pending().map((x) => x.path)).toEqual(['/in/b']);
  });
  it('a stack fed without pause fills batches of maxFiles; the rest closes minQuietMs after the last file', () => {
    const p = new BatchPlanner(rule);
    const closed = [];
    for (let i = 0; i < 250; i++) closed.push(...p.add(f(`s${i}`), i * 2));
    expect(closed.map((b) => [b.reason, b.files.length])).toEqual([
      ['maxFiles', 100],
      ['maxFiles', 100],
    ]);
    expect(p.nextDeadline()).toBe(249 * 2 + 1000);
    expect(p.tick(249 * 2 + 1000).map((b) => b.files.length)).toEqual([50]);
  });
  it('a batch emptied by removals starts its gaps afresh', () => {
    const p = new BatchPlanner(rule);
    p.add(f('a'), 0);
    p.add(f('b'), 900);
    p.remove('/in/a');
    p.remove('/in/b');
    p.add(f('c'), 1000);
    expect(p.nextDeadline()).toBe(2000);
  });
});
