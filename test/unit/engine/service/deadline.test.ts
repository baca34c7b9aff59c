import { describe, expect, it } from 'vitest';
import { deadline } from '../../../../electron/engine/service/deadline.js';

// Collects garbage when the test runs with --expose-gc (vitest's pool does not by default): the
// timeout must fire however often V8 collects, which AbortSignal.any over AbortSignal.timeout did not.
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();

describe('deadline', () => {
  it('aborts after its time, with nothing else holding it', async () => {
    const { signal } = deadline(50);
    const aborted = new Promise<string>((r) => signal.addEventListener('abort', () => r((signal.reason as Error).name)));
    collect();
    expect(await aborted).toBe('TimeoutError');
  });

  it('aborts when the other signal does, with its reason; and after clear() neither aborts it', async () => {
    const other = new AbortController();
    const d = deadline(60_000, other.signal);
    other.abort(new Error('stopped'));
    expect([d.signal.aborted, (d.signal.reason as Error).message]).toEqual([true, 'stopped']);
    const late = new AbortController();
    const e = deadline(30, late.signal);
    e.clear();
    late.abort();
    await new Promise((r) => setTimeout(r, 60));
    expect(e.signal.aborted).toBe(false);
  });

  it('an already aborted signal aborts it at once', () => {
    const other = new AbortController();
    other.abort();
    expect(deadline(60_000, other.signal).signal.aborted).toBe(true);
  });
});
