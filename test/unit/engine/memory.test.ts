/** The engine's memory budget (memory.ts): when it asks V8 for a full collection, and when it does not. */
import { describe, expect, it } from 'vitest';
import { fullCollection, MemoryBudget, youngCollection, type MemoryUse } from '../../../electron/engine/memory.js';

const MB = 1024 * 1024;
const OPTS = { rssFloor: 100 * MB, slack: 20 * MB, minIntervalMs: 1000, youngSlack: 4 * MB };

/** A fake process: usage as set, a clock, and a collection that frees what `freed` says. */
function fake() {
  const s = { now: 0, use: { rss: 50 * MB, heapUsed: 10 * MB, external: 0 } as MemoryUse, collected: 0, scavenged: 0, youngExternal: 0 };
  const collect = (): void => {
    s.collected++;
    s.use = { rss: s.use.rss, heapUsed: 10 * MB, external: 0 };
  };
  // A scavenge frees the external memory marked young (`youngExternal`), nothing else.
  const scavenge = (): void => {
    s.scavenged++;
    s.use = { ...s.use, external: s.use.external - s.youngExternal };
    s.youngExternal = 0;
  };
  const budget = new MemoryBudget(OPTS, { usage: () => ({ ...s.use }), collect, scavenge, now: () => s.now });
  return { s, budget };
}

describe('MemoryBudget', () => {
  it('collects once garbage passes the slack above the floor, then not again before the interval', () => {
    const { s, budget } = fake();
    expect(budget.check()).toBe(false); // below the floor
    s.use = { rss: 150 * MB, heapUsed: 10 * MB, external: 5 * MB };
    expect(budget.check()).toBe(false); // 5 MB of growth: under the slack
    s.use.external = 25 * MB;
    expect(budget.check()).toBe(true);
    expect(s.collected).toBe(1);
    s.use.external = 60 * MB;
    s.now = 999;
    expect(budget.check()).toBe(false); // rate-limited
    s.now = 1000;
    expect(budget.check()).toBe(true);
    expect(budget.collections).toBe(2);
  });

  it('counts growth of V8 heap in use from the level after the last collection, not from zero', () => {
    const { s, budget } = fake();
    s.use = { rss: 150 * MB, heapUsed: 40 * MB, external: 0 };
    expect(budget.check()).toBe(true); // the first look has no base yet: collects
    // The collection left 10 MB in use; 25 MB more of it is garbage enough, 15 MB is not.
    s.now = 5000;
    s.use.heapUsed = 25 * MB;
    expect(budget.check()).toBe(false);
    s.use.heapUsed = 35 * MB;
    expect(budget.check()).toBe(true);
  });

  it('does not collect again when nothing grew, however high RSS stays (malloc keeps freed pages)', () => {
    const { s, budget } = fake();
    s.use = { rss: 300 * MB, heapUsed: 40 * MB, external: 30 * MB };
    expect(budget.check()).toBe(true);
    for (let t = 1; t <= 10; t++) {
      s.now = t * 2000;
      expect(budget.check()).toBe(false);
    }
    expect(s.collected).toBe(1);
  });

  it('does nothing where no collection can be had', () => {
    const budget = new MemoryBudget(OPTS, { usage: () => ({ rss: 500 * MB, heapUsed: 400 * MB, external: 0 }), collect: null, scavenge: null, now: () => 0 });
    expect(budget.check()).toBe(false);
  });

  it('scavenges once external memory grew by the young slack, below the floor and without waiting for the interval; the next after as much again', () => {
    const { s, budget } = fake();
    s.use.external = s.youngExternal = 3 * MB;
    budget.check();
    expect(s.scavenged).toBe(0); // 3 MB: under the young slack
    s.use.external = s.youngExternal = 5 * MB; // a results page's chunks, dead at once
    budget.check();
    expect(s.scavenged).toBe(1);
    expect(s.use.external).toBe(0);
    // External memory that a scavenge cannot free (old buffers) is not scavenged for again and again.
    s.use.external = 5 * MB;
    budget.check();
    budget.check();
    expect(s.scavenged).toBe(2);
    budget.check();
    expect(s.scavenged).toBe(2);
    s.use.external = 9 * MB;
    budget.check();
    expect(s.scavenged).toBe(3);
    expect(s.collected).toBe(0);
  });

  it('a full collection counts as a scavenge too: none right after it', () => {
    const { s, budget } = fake();
    s.use = { rss: 150 * MB, heapUsed: 40 * MB, external: 30 * MB };
    expect(budget.check()).toBe(true);
    s.use.external = 3 * MB;
    budget.check();
    expect([s.collected, s.scavenged]).toEqual([1, 0]);
  });

  it("V8's scavenge, had at run time, frees a dead young buffer's memory", async () => {
    const scavenge = youngCollection();
    expect(scavenge).toBeTypeOf('function');
    const before = process.memoryUsage().arrayBuffers;
    // 64 chunks of 64 KB, as an HTTP body arrives, dropped at once.
    let chunks: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.allocUnsafeSlow(64 * 1024));
    expect(process.memoryUsage().arrayBuffers).toBeGreaterThanOrEqual(before + 4 * MB);
    chunks = undefined;
    scavenge!();
    for (let i = 0; i < 50 && process.memoryUsage().arrayBuffers > before + MB; i++) await new Promise((r) => setTimeout(r, 10));
    expect(chunks).toBeUndefined();
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(before + MB);
  });

  it("gets V8's gc() at run time, without a command-line flag, and it frees what is garbage", async () => {
    const gc = fullCollection();
    expect(gc).toBeTypeOf('function');
    // A buffer's memory outside V8's heap is given back once a collection finds its object dead.
    let big: Buffer | undefined = Buffer.alloc(64 * MB, 1);
    const held = process.memoryUsage().arrayBuffers;
    big = undefined;
    gc!();
    // ArrayBuffers are swept on a helper thread after the collection: allow it a moment.
    for (let i = 0; i < 50 && process.memoryUsage().arrayBuffers > held - 32 * MB; i++) await new Promise((r) => setTimeout(r, 10));
    expect(big).toBeUndefined();
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 32 * MB);
  });
});
