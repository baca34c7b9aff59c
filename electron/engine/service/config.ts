/** Configuration of the service client, with the defaults it runs with. */
import { DEFAULT_NAMESPACE } from '../../../shared/service/index.js';
import { proxyFromEnvironment, type ProxyRoute } from './proxy.js';

export interface RetryPolicy {
  /** Retries after the first attempt (so `limit + 1` attempts at most). */
  limit: number;
  /** Backoff before retry k is uniform in [0, min(maxDelayMs, baseDelayMs * 2^(k-1))] ("full jitter"). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails (retryable) instead. */
  maxRetryAfterMs: number;
}

export interface Timeouts {
  /** DNS lookup plus TCP (and TLS) connect. */
  connectMs: number;
  /** From the request being fully sent to the response headers. */
  responseMs: number;
  /** Longest silence on the socket while sending or receiving a body. */
  idleMs: number;
}

/** One retry the client is about to make; for logs and tests. Never carries the token. */
export interface RetryEvent {
  operation: string;
  /** Method and path of the request (no query, no host). */
  request: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  delayMs: number;
  reason: string;
  status?: number;
  code?: string;
  /** The Retry-After header as received, when the delay came from it. */
  retryAfter?: string;
}

export interface ClientConfig {
  /** Base address of the service, e.g. https://service.example/api (paths /v2/... are appended). */
  baseUrl: string;
  /** Bearer credential. Never written to errors or logs. */
  token: string;
  /** Value of the context header (normally the organization id); not sent when absent. */
  context?: string;
  /** Name of the context header; deployments name it differently. Default 'Svc-Context'. */
  contextHeader?: string;
  /**
   * The deployment's namespace segment, default 'svc' (the spec's name): used in the secrets path
   * /v2/{ns}/secrets AND in run settings, runtime_config.{ns}.pdf.passwords (see `runtimeConfig`
   * in shared/service/runs.ts); a deployment configured with another segment ignores passwords
   * sent under `svc`.
   */
  namespace?: string;
  /** The older name of `namespace`; `namespace` wins when both are given. */
  secretsNamespace?: string;
  /** Name of the retry-config header of the files API. Default 'Svc-Retry-Config'. */
  retryConfigHeader?: string;
  /**
   * The caller's username, when known. It narrows the search that settles an ambiguous create
   * (see http.ts); without it the search matches on name, input and time only.
   */
  username?: string;
  /** Largest difference assumed between this machine's clock and the service's. Default 5 s. */
  clockSkewMs?: number;
  timeouts?: Partial<Timeouts>;
  /** Most requests in flight at once (also the socket pool size). Default 8. */
  concurrency?: number;
  retry?: Partial<RetryPolicy>;
  onRetry?: (event: RetryEvent) => void;
  userAgent?: string;
  /** CA certificates (PEM) of the connection, trusted beside Node's roots and the OS's store (agents.ts). */
  ca?: string | string[];
  /**
   * The proxy every request goes through (proxy.ts); null: a direct connection; absent: what
   * HTTPS_PROXY / HTTP_PROXY / NO_PROXY of this process say for baseUrl.
   */
  proxy?: ProxyRoute | null;
}

export interface ResolvedConfig {
  baseUrl: string;
  context: string | undefined;
  contextHeader: string;
  namespace: string;
  retryConfigHeader: string;
  username: string | undefined;
  clockSkewMs: number;
  timeouts: Timeouts;
  concurrency: number;
  retry: RetryPolicy;
  onRetry: ((event: RetryEvent) => void) | undefined;
  userAgent: string;
  ca: string | string[] | undefined;
  proxy: ProxyRoute | null;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, responseMs: 60_000, idleMs: 60_000 };
export const DEFAULT_RETRY: RetryPolicy = { limit: 6, baseDelayMs: 250, maxDelayMs: 15_000, maxRetryAfterMs: 120_000 };
export const DEFAULT_CONCURRENCY = 8;

function positive(name: string, v: number, allowZero = false): number {
  if (!Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) throw new Error(`service client: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${v}`);
  return v;
}

/** Checks a configuration and fills in the defaults. Throws on a value that cannot work. */
export function resolveConfig(c: ClientConfig): ResolvedConfig {
  let url: URL;
  try {
    url = new URL(c.baseUrl);
  } catch {
    throw new Error(`service client: baseUrl "${c.baseUrl}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`service client: baseUrl must be http or https, got ${url.protocol}`);
  if (url.search || url.hash) throw new Error('service client: baseUrl must not carry a query or fragment');
  if (typeof c.token !== 'string' || c.token.trim() === '') throw new Error('service client: token is required');
  const timeouts = { ...DEFAULT_TIMEOUTS, ...c.timeouts };
  const retry = { ...DEFAULT_RETRY, ...c.retry };
  positive('timeouts.connectMs', timeouts.connectMs);
  positive('timeouts.responseMs', timeouts.responseMs);
  positive('timeouts.idleMs', timeouts.idleMs);
  if (!Number.isInteger(retry.limit) || retry.limit < 0) throw new Error(`service client: retry.limit must be a non-negative integer, got ${retry.limit}`);
  positive('retry.baseDelayMs', retry.baseDelayMs, true);
  positive('retry.maxDelayMs', retry.maxDelayMs, true);
  positive('retry.maxRetryAfterMs', retry.maxRetryAfterMs, true);
  const concurrency = c.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`service client: concurrency must be a positive integer, got ${concurrency}`);
  const header = (name: string, v: string | undefined, dflt: string): string => {
    const h = v ?? dflt;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h)) throw new Error(`service client: ${name} "${h}" is not a valid header name`);
    return h;
  };
  const ns = c.namespace ?? c.secretsNamespace ?? DEFAULT_NAMESPACE;
  if (!/^[A-Za-z0-9._~-]+$/.test(ns) || ns === '.' || ns === '..') throw new Error(`service client: namespace "${ns}" must be a single path segment`);
  return {
    baseUrl: url.toString().replace(/\/+$/, ''),
    context: c.context,
    contextHeader: header('contextHeader', c.contextHeader, 'Svc-Context'),
    namespace: ns,
    retryConfigHeader: header('retryConfigHeader', c.retryConfigHeader, 'Svc-Retry-Config'),
    username: c.username,
    clockSkewMs: positive('clockSkewMs', c.clockSkewMs ?? 5_000, true),
    timeouts,
    concurrency,
    retry,
    onRetry: c.onRetry,
    userAgent: c.userAgent ?? 'docsync-service-client',
    ca: c.ca,
    proxy: c.proxy === undefined ? proxyFromEnvironment(url.toString(), process.env) : c.proxy,
  };
}
