/** Delays: exponential backoff with full jitter, Retry-After, and abortable sleeping. */
import { ServiceError } from './errors.js';

/** Delay before retry `attempt` (1 = first retry): uniform in [0, min(max, base * 2^(attempt-1))]. */
export function fullJitter(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After in either form (RFC 9110 10.2.3): delta-seconds ("120") or an HTTP-date
 * ("Wed, 21 Oct 2015 07:28:00 GMT"). Returns milliseconds to wait (0 for a date in the past),
 * or undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - now);
}

/** Sleeps, or rejects with an 'aborted' ServiceError as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(operation));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(operation));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortedError(operation: string, attempts = 1): ServiceError {
  return new ServiceError({ kind: 'aborted', operation, message: 'cancelled by the caller', attempts });
}

/** Waiters' polling delay: grows by `factor` up to `max`, with ±`jitter` (0..1) spread. */
export function pollDelay(previous: number | undefined, initial: number, max: number, factor = 1.6, jitter = 0.2, random: () => number = Math.random): { next: number; wait: number } {
  const next = previous === undefined ? initial : Math.min(max, previous * factor);
  const spread = next * jitter;
  return { next, wait: Math.max(0, Math.round(next - spread + random() * 2 * spread)) };
}
