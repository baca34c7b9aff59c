/**
 * The engine's bandwidth buckets on a fake clock (issue 27, section 3): what they let through and
 * when, shared by parallel transfers, a rate changed while they wait, and the timetable switching
 * the rates at the times it names. No real time passes; nothing here can be flaky by timing.
 */
import { describe, expect, it } from 'vitest';
import { TokenBucket, type Clock } from '../../../../electron/engine/service/token-bucket.js';
import { Bandwidth } from '../../../../electron/engine/service/bandwidth.js';
import { parseBwLimit } from '../../../../shared/bwlimit.js';

/** A clock whose time moves only by advance(); timers fire in time order as it passes them. */
function fakeClock(start = 0): Clock & { advance(ms: number): Promise<void>; pending(): number } {
  let now = start;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const flush = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.set(++seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout: (h) => void timers.delete(h as number),
    pending: () => timers.size,
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const next = [...timers.entries()].sort((a, b) => a[1].at - b[1].at)[0];
        if (!next || next[1].at > end) break;
        timers.delete(next[0]);
        now = next[1].at;
        next[1].fn();
        await flush();
      }
      now = end;
      await flush();
    },
  };
}

const K = 1024;

describe('TokenBucket', () => {
  it('with no limit lets everything through at once', async () => {
    const b = new TokenBucket(fakeClock());
    await b.acquire(10 * K * K);
    expect(b.granted).toBe(10 * K * K);
  });

  it('lets through the rate per second after the first wait, no more', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(clock);
    b.setRate(100 * K);
    let sent = 0;
    let stop = false;
    void (async () => {
      while (!stop) {
        await b.acquire(b.pieceSize());
        sent += b.pieceSize();
      }
    })();
    await clock.advance(10_000);
    stop = true;
    // 10 s at 100 KiB/s: 1000 KiB, give or take one piece (10 KiB) and the bucket's burst (16 KiB).
    expect(sent).toBeGreaterThanOrEqual(1000 * K - 10 * K);
    expect(sent).toBeLessThanOrEqual(1000 * K + 16 * K + 10 * K);
  });

  it('is shared: four parallel transfers together get the rate, each about a quarter', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(clock);
    b.setRate(64 * K);
    const sent = [0, 0, 0, 0];
    let stop = false;
    for (let i = 0; i < 4; i++) {
      void (async () => {
        while (!stop) {
          await b.acquire(4 * K);
          sent[i] = (sent[i] as number) + 4 * K;
        }
      })();
    }
    await clock.advance(60_000);
    stop = true;
    const total = sent.reduce((a, x) => a + x, 0);
    expect(Math.abs(total - 60 * 64 * K) / (60 * 64 * K)).toBeLessThan(0.01);
    for (const s of sent) expect(Math.abs(s - total / 4)).toBeLessThanOrEqual(4 * K);
  });

  it('a request larger than the bucket goes once it is full and leaves a debt the next waits out', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(clock);
    b.setRate(16 * K); // burst 16 KiB
    await clock.advance(1000);
    let first = false;
    void b.acquire(64 * K).then(() => (first = true));
    await clock.advance(0);
    expect(first).toBe(true);
    expect(b.tokens).toBe(16 * K - 64 * K);
    let second = false;
    void b.acquire(K).then(() => (second = true));
    // The debt of 48 KiB and then 1 KiB more take 49/16 s = 3062.5 ms at 16 KiB/s.
    await clock.advance(3062);
    expect(second).toBe(false);
    await clock.advance(1);
    expect(second).toBe(true);
  });

  it('a rate changed while transfers wait applies to them at once; off releases them all', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(clock);
    b.setRate(K * 10);
    const done: number[] = [];
    for (let i = 0; i < 3; i++) void b.acquire(10 * K).then(() => done.push(clock.now()));
    await clock.advance(500);
    expect(done).toEqual([]);
    b.setRate(K * 1000);
    await clock.advance(0);
    // 5 KiB were earned at the old rate; the rest of the first 10 KiB at the new one takes 5 ms.
    await clock.advance(50);
    expect(done.length).toBe(3);
    expect(done[0]).toBeLessThanOrEqual(506);
    b.setRate(K);
    // The bucket (16 KiB when full) is emptied first.
    await b.acquire(16 * K);
    let late = false;
    void b.acquire(16 * K).then(() => (late = true));
    await clock.advance(100);
    expect(late).toBe(false);
    b.setRate(null);
    await clock.advance(0);
    expect(late).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it('an aborted wait leaves the queue and is refused; those behind it go on', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(clock);
    b.setRate(K * 16);
    const ac = new AbortController();
    const gone = b.acquire(16 * K, ac.signal);
    let after = false;
    void b.acquire(16 * K).then(() => (after = true));
    ac.abort(new Error('the upload was cancelled'));
    await expect(gone).rejects.toThrow('the upload was cancelled');
    await clock.advance(999);
    expect(after).toBe(false);
    await clock.advance(1);
    expect(after).toBe(true);
    expect(b.granted).toBe(16 * K);
  });
});

describe('Bandwidth: the timetable switches the rates at the times it names, while running', () => {
  it('Mon-Fri,08:00,2M 18:00,off on a Monday from 07:59 to 18:01', async () => {
    const wall = fakeClock(new Date(2026, 2, 2, 7, 59).getTime());
    const bw = new Bandwidth(wall, fakeClock());
    const changes: (string | null)[] = [];
    bw.on('change', (n) => changes.push(n ? `${n.rates.up}/${n.rates.down} until ${new Date(n.untilMs as number).getHours()}:00` : null));
    bw.set(parseBwLimit('Mon-Fri,08:00,2M 18:00,off'), 'env');
    expect(bw.up.rate).toBeNull();
    expect(bw.now()).toBeNull();
    await wall.advance(60_000);
    expect(bw.up.rate).toBe(2 * K * K);
    expect(bw.down.rate).toBe(2 * K * K);
    expect(bw.now()).toMatchObject({ spec: 'Mon-Fri,08:00,2M 18:00,off', source: 'env', untilMs: new Date(2026, 2, 2, 18, 0).getTime() });
    await wall.advance(10 * 3_600_000 - 60_000);
    expect(bw.up.rate).toBe(2 * K * K);
    await wall.advance(60_000);
    expect(bw.up.rate).toBeNull();
    expect(changes).toEqual([null, `${2 * K * K}/${2 * K * K} until 18:00`, null]);
    bw.close();
    expect(wall.pending()).toBe(0);
  });

  it('set(null) lifts the limit', () => {
    const bw = new Bandwidth(fakeClock(), fakeClock());
    bw.set(parseBwLimit('1M:off'), 'flag');
    expect([bw.up.rate, bw.down.rate]).toEqual([K * K, null]);
    bw.set(null);
    expect([bw.up.rate, bw.down.rate, bw.now()]).toEqual([null, null, null]);
    bw.close();
  });
});
