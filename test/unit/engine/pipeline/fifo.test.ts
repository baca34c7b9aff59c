// The list stable files wait in before intake: first in, first out, also across the compaction of
// its consumed front (every 1,024 items or more), and empty after clear().
import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../../electron/engine/pipeline/fifo.js';

describe('Fifo', () => {
  it('gives back 50,000 items in order while more keep coming, its size right at every step', () => {
    const q = new Fifo<number>();
    const out: number[] = [];
    let pushed = 0;
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 500; i++) q.push(pushed++);
      for (let i = 0; i < 300; i++) out.push(q.shift() as number);
      expect(q.size).toBe(pushed - out.length);
    }
    for (let x = q.shift(); x !== undefined; x = q.shift()) out.push(x);
    expect(out).toEqual(Array.from({ length: 50_000 }, (_, i) => i));
    expect(q.size).toBe(0);
    expect(q.shift()).toBeUndefined();
  });

  it('clear() drops what waits', () => {
    const q = new Fifo<string>();
    q.push('a');
    q.push('b');
    q.clear();
    expect(q.size).toBe(0);
    expect(q.shift()).toBeUndefined();
    q.push('c');
    expect(q.shift()).toBe('c');
  });
});
