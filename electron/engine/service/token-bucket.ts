/**
 * A token bucket for bytes, shared by every transfer of one direction (issue 27: the uplink is
 * shared, so the limit is the engine's, not a connection's). Hand-written, not `limiter` or
 * `stream-throttle`: a timetable changes the rate while transfers wait, and those libraries fix the
 * rate when a bucket is made (a new bucket would leave the waiters on the old one's timers); they
 * also read the wall clock themselves, where the accounting here is tested on a fake clock.
 *
 * Waiters are served first come, first served: parallel parts take turns, none starves. A request
 * larger than the bucket goes once the bucket is full and leaves it in debt, which later requests
 * wait out, so the long-run rate is the limit whatever the sizes asked for.
 */

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A wait for bandwidth never keeps a process alive on its own: the transfer does.
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface Waiter {
  bytes: number;
  resolve: () => void;
  reject: (e: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** How much may go at once after a quiet spell, in seconds of the rate: small, so a 60 s average stays within a fraction of a percent. */
const BURST_SECONDS = 0.1;

export class TokenBucket {
  #rate: number | null = null;
  #tokens = 0;
  #last: number;
  readonly #queue: Waiter[] = [];
  #timer: unknown;
  /** Bytes let through so far (for tests and the benchmark). */
  granted = 0;

  constructor(readonly clock: Clock = realClock) {
    this.#last = clock.now();
  }

  get rate(): number | null {
    return this.#rate;
  }

  /** Bytes the bucket holds when full. */
  get burst(): number {
    return this.#rate === null ? Infinity : Math.max(16 * 1024, this.#rate * BURST_SECONDS);
  }

  /** Tokens now (negative: debt), for tests. */
  get tokens(): number {
    this.#refill();
    return this.#tokens;
  }

  /** A piece size that keeps a transfer smooth at this rate: a tenth of a second's worth, 1-64 KiB. */
  pieceSize(): number {
    return this.#rate === null ? Infinity : Math.max(1024, Math.min(64 * 1024, Math.floor(this.#rate / 10)));
  }

  /** Changes the rate (null: no limit) at once, for the waiters too; what was earned so far at the old rate is kept. */
  setRate(bps: number | null): void {
    this.#refill();
    if (bps === this.#rate) return;
    this.#rate = bps;
    if (bps === null) this.#tokens = 0;
    else this.#tokens = Math.min(this.#tokens, this.burst);
    this.#pump();
  }

  /** Resolves once `bytes` may be sent or read; at once with no limit and nobody waiting. */
  acquire(bytes: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (this.#rate === null && this.#queue.length === 0) {
      this.granted += bytes;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { bytes, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        w.onAbort = () => {
          const i = this.#queue.indexOf(w);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          this.#pump();
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.#queue.push(w);
      this.#pump();
    });
  }

  #refill(): void {
    const now = this.clock.now();
    if (this.#rate !== null) this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) * this.#rate) / 1000);
    this.#last = now;
  }

  #pump(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#refill();
    while (this.#queue.length > 0) {
      const w = this.#queue[0] as Waiter;
      const need = this.#rate === null ? 0 : Math.min(w.bytes, this.burst);
      if (this.#rate !== null && this.#tokens < need) {
        const ms = Math.max(1, Math.ceil(((need - this.#tokens) * 1000) / this.#rate));
        this.#timer = this.clock.setTimeout(() => {
          this.#timer = undefined;
          this.#pump();
        }, ms);
        return;
      }
      this.#queue.shift();
      if (this.#rate !== null) this.#tokens -= w.bytes;
      this.granted += w.bytes;
      if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
      w.resolve();
    }
  }
}
