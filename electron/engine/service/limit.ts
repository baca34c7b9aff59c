/** A first-come first-served counting semaphore bounding calls in flight. */
import { abortedError } from './backoff.js';

export class Semaphore {
  private active = 0;
  private readonly queue: { grant: () => void; signal: AbortSignal | undefined; onAbort: () => void }[] = [];

  constructor(readonly size: number) {}

  get inFlight(): number {
    return this.active;
  }

  /** Waits for a slot; the returned function gives it back (call it exactly once). */
  acquire(signal?: AbortSignal, operation = 'request'): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortedError(operation));
    if (this.active < this.size && this.queue.length === 0) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const entry = {
        signal,
        grant: () => {
          signal?.removeEventListener('abort', entry.onAbort);
          this.active++;
          resolve(this.releaser());
        },
        onAbort: () => {
          const i = this.queue.indexOf(entry);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortedError(operation));
        },
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  /** Runs `fn` holding a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal, operation?: string): Promise<T> {
    const release = await this.acquire(signal, operation);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      this.queue.shift()?.grant();
    };
  }
}
