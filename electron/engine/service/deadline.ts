/**
 * A signal aborted after `ms` or when `also` aborts, whichever is first; `clear()` when the work is
 * over. Written out rather than AbortSignal.any([also, AbortSignal.timeout(ms)]): on Node 20 nothing
 * holds the timeout signal strongly, so a garbage collection can take it and its timer before it
 * fires, and the work it bounds then waits for ever (a share poll did, in a unit test).
 */
export function deadline(ms: number, also?: AbortSignal): { signal: AbortSignal; clear: () => void } {
  const ctl = new AbortController();
  const onAlso = (): void => ctl.abort(also?.reason);
  if (also?.aborted) ctl.abort(also.reason);
  else also?.addEventListener('abort', onAlso, { once: true });
  const timer = setTimeout(() => ctl.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms);
  timer.unref?.();
  return {
    signal: ctl.signal,
    clear: () => {
      clearTimeout(timer);
      also?.removeEventListener('abort', onAlso);
    },
  };
}
