import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../shared/seeded-random.js';

describe('seededRandom', () => {
  it('replays the same numbers from the same seed, others from another, all in [0, 1)', () => {
    const take = (seed: number): number[] => { const r = seededRandom(seed); return Array.from({ length: 1000 }, () => r()); };
    const a = take(7);
    expect(take(7)).toEqual(a);
    expect(take(8)).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
    // Spread over the range, not stuck in a corner: each tenth gets a fair share of 1,000 draws.
    for (let d = 0; d < 10; d++) expect(a.filter((x) => Math.floor(x * 10) === d).length).toBeGreaterThan(60);
  });
});
