/** The engine's memory budget (memory.ts): when it asks V8 for a full collection, and when it does not. */
import { describe, expect, it } from 'vitest';
import { fullCollection, MemoryBudget, type MemoryUse } from '../../../electron/engine/memory.js';

const MB = 1024 * 1024;
const OPTS = { rssFloor: 100 * MB, slack: 20 * MB, minIntervalMs: 1000 };

/** A fake process: usage as set, a clock, and a collection that frees what `freed` says. */
function fake() {
  const s = { now: 0, use: { rss: 50 * MB, heapUsed: 10 * MB, external: 0 } as MemoryUse, collected: 0 };
  const collect = (): void => {
    s.collected++;
    s.use = { rss: s.use.rss, heapUsed: 10 * MB, external: 0 };
  };
  const budget = new MemoryBudget(OPTS, { usage: () => ({ ...s.use }), collect, now: () => s.now });
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
    const budget = new MemoryBudget(OPTS, { usage: () => ({ rss: 500 * MB, heapUsed: 400 * MB, external: 0 }), collect: null, now: () => 0 });
    expect(budget.check()).toBe(false);
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
