import { describe, expect, it } from 'vitest';
import { Liveness } from '../../../../electron/engine/share/liveness.js';

function clock(): { now: () => number; wallNow: () => number; sleep: () => Promise<void>; t: number } {
  const c = { t: 1000, now: () => c.t, wallNow: () => 0, sleep: () => Promise.resolve() };
  return c;
}

describe('liveness by the observer\'s clock', () => {
  it('a freshly seen agent is stale only after a full lease without a change of seq', () => {
    const c = clock();
    const l = new Liveness(c);
    l.observe('x', 5);
    c.t += 999;
    l.observe('x', 5);
    expect(l.isStale('x', 1000)).toBe(false);
    c.t += 1;
    expect(l.isStale('x', 1000)).toBe(false); // judged as of the latest look
    l.observe('x', 5);
    expect(l.isStale('x', 1000)).toBe(true);
    expect(l.lastChangeAt('x')).toBeNull(); // never seen to change
  });

  it('a change of seq (either way) restarts the lease from when it was seen', () => {
    const c = clock();
    const l = new Liveness(c);
    l.observe('x', 5);
    c.t += 900;
    l.observe('x', 4); // a restarted agent may write a lower seq: still a change
    c.t += 900;
    expect(l.isStale('x', 1000)).toBe(false);
    expect(l.lastChangeAt('x')).toBe(1900);
    c.t += 100;
    l.observe('x', 4);
    expect(l.isStale('x', 1000)).toBe(true);
  });

  it('a missing record counts from when it was first seen missing; an agent never observed is not stale', () => {
    const c = clock();
    const l = new Liveness(c);
    expect(l.isStale('ghost', 1)).toBe(false);
    l.observe('gone', null);
    c.t += 500;
    l.observe('gone', null);
    expect(l.isStale('gone', 1000)).toBe(false);
    c.t += 500;
    l.observe('gone', null);
    expect(l.isStale('gone', 1000)).toBe(true);
    l.observe('gone', 1); // it came back
    expect(l.isStale('gone', 1000)).toBe(false);
  });

  it('an observer paused since its last look judges nobody stale until it looks again', () => {
    // The three-agent test found it: an agent stopped (SIGSTOP) mid-poll woke up and, on looks
    // taken before the pause, took the work of an agent that had kept beating.
    const c = clock();
    const l = new Liveness(c);
    l.observe('x', 5);
    c.t += 12_000; // paused for longer than the lease
    expect(l.isStale('x', 8000)).toBe(false);
    l.observe('x', 17); // it kept beating meanwhile
    expect(l.isStale('x', 8000)).toBe(false);
  });

  it('with a largest look age, an old look judges nobody stale', () => {
    const c = clock();
    const l = new Liveness(c);
    l.observe('x', 5);
    c.t += 8000;
    l.observe('x', 5);
    expect(l.isStale('x', 8000, 1000)).toBe(true);
    c.t += 1001; // acting this long after the look could hit an agent that has come back
    expect(l.isStale('x', 8000, 1000)).toBe(false);
  });
});
