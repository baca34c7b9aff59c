/** Delay rules of the service client: full-jitter backoff, Retry-After in both forms, polling growth. */
import { describe, expect, it } from 'vitest';
import { fullJitter, parseRetryAfter, pollDelay } from '../../../electron/engine/service/backoff.js';

describe('parseRetryAfter (RFC 9110 10.2.3)', () => {
  const now = Date.UTC(2026, 2, 1, 12, 0, 0);
  it.each([
    ['delta-seconds', '120', 120_000],
    ['zero seconds', '0', 0],
    ['an HTTP-date 90 s ahead', new Date(now + 90_000).toUTCString(), 90_000],
    ['an HTTP-date in the past', new Date(now - 5_000).toUTCString(), 0],
    ['the first of repeated headers', ['3', '9'], 3000],
  ] as [string, string | string[], number][])('%s', (_what, header, ms) => {
    expect(parseRetryAfter(header, now)).toBe(ms);
  });

  it.each([[undefined], [''], ['-1'], ['1.5'], ['soon']])('unreadable %j gives undefined (the client falls back to backoff)', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});

describe('fullJitter', () => {
  it('is uniform in [0, min(max, base * 2^(attempt-1))]', () => {
    expect(fullJitter(1, 100, 10_000, () => 0.999999)).toBe(99);
    expect(fullJitter(4, 100, 10_000, () => 0.5)).toBe(400);
    expect(fullJitter(20, 100, 10_000, () => 0.999999)).toBe(9999);
    expect(fullJitter(3, 100, 10_000, () => 0)).toBe(0);
  });
});

describe('pollDelay (waiters)', () => {
  it('starts at the initial delay, grows by 1.6 up to the cap, spread by ±20%', () => {
    const mid = () => 0.5;
    let d = pollDelay(undefined, 1000, 5000, 1.6, 0.2, mid);
    expect(d).toEqual({ next: 1000, wait: 1000 });
    const seen = [d.next];
    for (let i = 0; i < 6; i++) seen.push((d = pollDelay(d.next, 1000, 5000, 1.6, 0.2, mid)).next);
    expect(seen).toEqual([1000, 1600, 2560, 4096, 5000, 5000, 5000]);
    expect(pollDelay(undefined, 1000, 5000, 1.6, 0.2, () => 0).wait).toBe(800);
    expect(pollDelay(undefined, 1000, 5000, 1.6, 0.2, () => 1).wait).toBe(1200);
  });
});
