/**
 * The failure wiring of a hand-written node:http request, shared by uploads (raw-upload.ts) and
 * pooled GETs (raw-get.ts) so that both settle once and report a cancel, a silent socket, a network
 * error and a late answer as the same BodySendError.
 */
import type { ClientRequest } from 'node:http';

/** A failed send; `sent` tells whether the whole request had reached the network. */
export class BodySendError extends Error {
  override name = 'BodySendError';
  constructor(
    readonly kind: 'network' | 'timeout' | 'aborted' | 'file-changed',
    readonly code: string | undefined,
    readonly sent: boolean,
    message: string,
    /** The error behind it (a failure at the proxy is told apart by it). */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

export interface RequestWatch {
  /** The request was failed or settled (`fail`, `settle`): nothing more may resolve or reject it. */
  readonly settled: boolean;
  /**
   * Rejects with `e` unless settled: stops the response timer and the cancel listener, destroys the
   * request, then runs the caller's `cleanUp` (its body source, a lent buffer).
   */
  fail(e: Error): void;
  /** Marks the request settled before the caller resolves it: the cancel is no longer listened for. */
  settle(): void;
}

/**
 * Watches `req`: the caller's `signal` (a signal already aborted fails at once: the caller then
 * checks `settled` and sets up nothing more), the socket's idle timeout, a request error, and,
 * once the request is sent, `responseMs` for the response headers.
 */
export function watchRequest(
  req: ClientRequest,
  o: { signal?: AbortSignal | undefined; responseMs: number },
  cleanUp: () => void,
  reject: (e: Error) => void,
): RequestWatch {
  let sent = false;
  let settled = false;
  let responseTimer: NodeJS.Timeout | undefined;
  const fail = (e: Error): void => {
    if (settled) return;
    settled = true;
    clearTimeout(responseTimer);
    o.signal?.removeEventListener('abort', onAbort);
    req.destroy();
    cleanUp();
    reject(e);
  };
  const onAbort = (): void => fail(new BodySendError('aborted', undefined, sent, 'cancelled by the caller'));
  const watch: RequestWatch = {
    get settled() {
      return settled;
    },
    fail,
    settle: () => {
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
    },
  };
  // Listened for first: a request destroyed at once (a signal already aborted) still emits its
  // "socket hang up", and with no listener that was an uncaught exception, the engine's end.
  req.on('error', (e: NodeJS.ErrnoException) => fail(new BodySendError('network', e.code, sent, e.message, e)));
  if (o.signal?.aborted) {
    onAbort();
    return watch;
  }
  o.signal?.addEventListener('abort', onAbort, { once: true });

  req.on('timeout', () => fail(new BodySendError('timeout', 'ETIMEDOUT', sent, 'timed out (socket idle)')));
  req.on('finish', () => {
    sent = true;
    responseTimer = setTimeout(() => fail(new BodySendError('timeout', 'ETIMEDOUT', true, 'timed out (response)')), o.responseMs);
  });
  // Registered before the caller's own 'response' listener, so the timer stops before the body is read.
  req.on('response', () => clearTimeout(responseTimer));
  return watch;
}
