/**
 * The transport of the service client: one got instance over keep-alive agents with a bounded
 * socket pool, a FIFO limit on calls in flight, retries with backoff, and the mapping of every
 * failure to a ServiceError.
 *
 * ## Retries
 * A failed attempt is repeated, up to `retry.limit` times, when it failed with 5xx, 429 or 408,
 * or with a connection failure (refused, reset, "socket hang up", closed early) or a timeout.
 * The delay is exponential backoff with full jitter (uniform in [0, min(maxDelayMs,
 * baseDelayMs * 2^(k-1))]); a 429 or 503 carrying Retry-After waits exactly what it asks, in
 * either of its forms (delta-seconds or HTTP-date), and a Retry-After over `maxRetryAfterMs`
 * ends the call (retryable error). Other 4xx statuses and bad bodies are never retried.
 *
 * ## Calls that are not idempotent
 * Create batch, start run (app or deployment), start multipart session and create secret are
 * not safe to repeat: a repeat could create a second batch or run. For them an attempt is
 * repeated only when it certainly did not take effect:
 *   - the service answered 5xx, 429 or 408 (the service documents 5xx as "try again later"),
 *   - or the connection failed before the whole request was handed to the network (connection
 *     refused, DNS failure, connect timeout, reset while the body was still being written).
 * Any other failure is ambiguous: the request was sent, then the connection was reset or the
 * response timed out, so the call may or may not have taken effect. It is never blindly
 * repeated. Instead the operation looks for what it would have created:
 *   - create batch: list the batches (in the requested workspace, by `username` when configured)
 *     and keep those with the requested name created after the call began (less the configured
 *     clock skew). Exactly one match is adopted as the result.
 *   - start run: list the runs of the deployment (or app), by `username` when configured, started
 *     after the call began, whose batch_id / input_dir (and tags, when given) match the request.
 *     Exactly one match is adopted.
 *   - create secret: look the alias up; a secret created by this user after the call began is adopted.
 * When there is no match or more than one, the call fails with kind 'ambiguous' and says so; the
 * caller then knows that a batch or run may exist and can check before trying again. So an
 * ambiguous failure either returns the record it created or is reported as ambiguous: it never
 * silently creates a duplicate.
 *   - start multipart session: there is no way to list sessions, so startMultipart reports
 *     'ambiguous'. uploadMultipart, which owns the whole upload, then starts a new session: a
 *     session that nobody commits creates nothing in the batch, so the orphan is harmless.
 * Idempotent calls that can notice their own earlier success are settled the same way: a commit
 * that answers 404 after an ambiguous attempt checks the batch for the file (name and size); a
 * conditional file write (If-None-Match) that answers 412 after an ambiguous attempt compares the
 * bytes at the path with its own; deleting a secret that answers 404 after an ambiguous attempt is done.
 *
 * The token is sent only in the Authorization header. It is never put in an error message, an
 * error's properties or a retry event (messages pass through `redact`, and got's errors, which
 * hold the request options, are never kept or exposed).
 */
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import got, { AbortError, RequestError, TimeoutError, type Got, type Response } from 'got';
import { ShapeError } from '../../../shared/service/index.js';
import { secureContextFor, serviceAgents, type ServiceAgents } from './agents.js';
import { abortedError, fullJitter, parseRetryAfter, sleep } from './backoff.js';
import { certificateFacts, certificateProblemOf } from './certificate.js';
import { resolveConfig, type ClientConfig, type ResolvedConfig } from './config.js';
import { AttemptRefused, FileChangedError, ServiceError, redact } from './errors.js';
import { Semaphore } from './limit.js';
import { ProxyFailure } from './proxy-agents.js';
import { BodyPool, getInto } from './raw-get.js';
import { sendBody } from './raw-upload.js';
import { BodySendError } from './request-watch.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Query = Record<string, string | number | boolean | readonly string[] | null | undefined>;

export interface CallSpec {
  /** Operation name, as it appears in errors: 'createBatch', 'getRun', ... */
  op: string;
  method: Method;
  /** Path below the base URL, starting with '/', segments already encoded (see `seg`). */
  path: string;
  query?: Query;
  json?: unknown;
  /** A fresh request body per attempt (streams cannot be replayed). */
  body?: () => Readable;
  bodyLength?: number;
  headers?: Record<string, string>;
  /** Whether repeating the call is safe (see the module comment). */
  idempotent: boolean;
  /** Send the context header (default true; the v1 audit endpoint takes none). */
  context?: boolean;
  /** Statuses that mean success. */
  ok: readonly number[];
  signal?: AbortSignal;
  /** Longer response/idle timeout for calls the service may hold (retry-config waits). */
  slowMs?: number;
  /** Bytes of the body sent so far in the current attempt (restarts at 0 on a retry). */
  onUploadProgress?: (transferred: number) => void;
  /** Called right before each attempt is sent; a throw stops the call with that error, never retried. */
  onAttempt?: (attempt: number) => void;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body as UTF-8. */
  readonly text: string;
  attempts: number;
  /** An earlier attempt failed after the request was sent (so it may have taken effect). */
  afterAmbiguous: boolean;
}

/** One attempt's answer; a pooled body comes with the release of its buffer. */
type Attempted = Pick<Response<Buffer>, 'statusCode' | 'headers' | 'body'> & { release?: () => void };

export interface OpenStream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
  /** Gives back the concurrency slot; call once the body is consumed or abandoned. */
  release: () => void;
}

interface Failure {
  kind: 'network' | 'timeout' | 'aborted' | 'file-changed';
  code: string | undefined;
  /** The whole request reached the network: the call may have taken effect. */
  sent: boolean;
  message: string;
  /** The proxy failed before the request could go anywhere. */
  proxy?: ProxyFailure;
}

/** Failures at the proxy that another attempt may get past: it was down, or could not reach the service. */
const retriedAtProxy = (p: ProxyFailure): boolean => p.problem === 'unreachable' || p.problem === 'upstream';

/** A failure at the proxy as the client's error: retryable for its caller (the setting or the proxy can change), never the file's fault. */
function proxyError(op: string, p: ProxyFailure, attempts: number): ServiceError {
  return new ServiceError({
    kind: 'proxy', operation: op, code: p.code, status: p.status, retryable: true, attempts, message: p.message,
    proxy: { problem: p.problem, at: p.proxy, status: p.status, hadCredentials: p.hadCredentials },
  });
}

const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL']);

function causeChain(e: unknown): unknown[] {
  const out: unknown[] = [];
  for (let c: unknown = e; c && out.length < 8; c = (c as { cause?: unknown }).cause) out.push(c);
  return out;
}

/** Encodes one path segment. */
export const seg = (s: string | number): string => encodeURIComponent(String(s));

/** Encodes a service path `drive/a/b` segment by segment, keeping the slashes. */
export const servicePathSegments = (p: string): string =>
  p.split('/').filter((s) => s !== '').map(seg).join('/');

/** The message a failed response carries: `message`, v1's `msg`, or the start of the text. */
export function bodyMessage(text: string, status: number): string {
  const t = text.trim();
  if (t) {
    try {
      const j = JSON.parse(t) as unknown;
      if (j && typeof j === 'object' && !Array.isArray(j)) {
        const o = j as Record<string, unknown>;
        for (const k of ['message', 'msg', 'error']) if (typeof o[k] === 'string' && o[k] !== '') return o[k];
      }
    } catch {
      // not JSON: fall through to the text itself
    }
    return t.length > 300 ? `${t.slice(0, 300)}…` : t;
  }
  return `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim();
}

export class Transport {
  readonly cfg: ResolvedConfig;
  readonly slots: Semaphore;
  readonly #token: string;
  readonly #got: Got;
  readonly #agents: ServiceAgents;
  /** Buffers for pooled bodies (callPooled: results pages). */
  readonly bodies = new BodyPool();

  constructor(config: ClientConfig) {
    this.cfg = resolveConfig(config);
    this.#token = config.token;
    const pool = { keepAlive: true, maxSockets: this.cfg.concurrency, maxFreeSockets: this.cfg.concurrency, scheduling: 'lifo' as const };
    this.#agents = serviceAgents({ ...pool, ca: this.cfg.ca, proxy: this.cfg.proxy, connectMs: this.cfg.timeouts.connectMs });
    this.slots = new Semaphore(this.cfg.concurrency);
    this.#got = got.extend({
      agent: this.#agents,
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      decompress: true,
    });
  }

  /** Closes the pooled connections. */
  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  redact(text: string): string {
    return redact(text, this.#token);
  }

  url(path: string, query?: Query): string {
    let u = this.cfg.baseUrl + path;
    if (query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) {
        if (v === undefined || v === null) continue;
        if (Array.isArray(v)) for (const item of v as readonly string[]) q.append(k, item);
        else q.append(k, String(v));
      }
      const s = q.toString();
      if (s) u += `?${s}`;
    }
    return u;
  }

  private headers(spec: CallSpec): Record<string, string> {
    const h: Record<string, string> = { 'user-agent': this.cfg.userAgent, authorization: `Bearer ${this.#token}`, ...spec.headers };
    if (spec.context !== false && this.cfg.context !== undefined) h[this.cfg.contextHeader.toLowerCase()] = this.cfg.context;
    if (spec.body) {
      h['content-type'] ??= 'application/octet-stream';
      if (spec.bodyLength !== undefined) h['content-length'] = String(spec.bodyLength);
    }
    return h;
  }

  private timeouts(spec: CallSpec) {
    const t = this.cfg.timeouts;
    const slow = spec.slowMs ?? 0;
    return { lookup: t.connectMs, connect: t.connectMs, secureConnect: t.connectMs, socket: t.idleMs + slow, response: t.responseMs + slow };
  }

  private classify(e: unknown, spec: CallSpec): Failure {
    // Before anything else: a failure at the proxy comes wrapped (got's RequestError, BodySendError) and nothing was sent.
    const atProxy = causeChain(e).find((c) => c instanceof ProxyFailure) as ProxyFailure | undefined;
    if (atProxy && !spec.signal?.aborted) return { kind: 'network', code: atProxy.code, sent: false, message: atProxy.message, proxy: atProxy };
    if (e instanceof BodySendError) return { kind: e.kind, code: e.code, sent: e.sent, message: this.redact(e.message) };
    const chain = causeChain(e);
    if (e instanceof AbortError || spec.signal?.aborted) return { kind: 'aborted', code: undefined, sent: false, message: 'cancelled by the caller' };
    const changed = chain.find((c) => c instanceof FileChangedError) as FileChangedError | undefined;
    if (changed) return { kind: 'file-changed', code: undefined, sent: false, message: changed.message };
    const codeOf = (c: unknown): string | undefined => (c && typeof (c as { code?: unknown }).code === 'string' ? (c as { code: string }).code : undefined);
    const code = chain.map(codeOf).find((c) => c && c !== 'ERR_GOT_REQUEST_ERROR') ?? codeOf(e);
    const message = this.redact(e instanceof Error ? e.message : String(e));
    if (e instanceof RequestError && e.name === 'UploadError') {
      return { kind: 'file-changed', code, sent: false, message: `could not read the local file: ${message}` };
    }
    const timings = e instanceof RequestError ? e.timings : undefined;
    const sent = !NEVER_SENT.has(code ?? '') && (timings === undefined || timings.upload !== undefined);
    if (e instanceof TimeoutError) return { kind: 'timeout', code: 'ETIMEDOUT', sent, message: `timed out (${e.event})` };
    return { kind: 'network', code, sent, message };
  }

  private async attempt(spec: CallSpec, pooled: boolean): Promise<Attempted> {
    if (pooled) {
      const t = this.timeouts(spec);
      return getInto({
        url: this.url(spec.path, spec.query),
        headers: this.headers(spec),
        agents: this.#agents,
        pool: this.bodies,
        idleMs: t.socket,
        responseMs: t.response,
        ...(spec.signal ? { signal: spec.signal } : {}),
      });
    }
    if (spec.body) {
      const t = this.timeouts(spec);
      return sendBody({
        url: this.url(spec.path, spec.query),
        method: spec.method,
        headers: this.headers(spec),
        body: spec.body(),
        agents: this.#agents,
        idleMs: t.socket,
        responseMs: t.response,
        ...(spec.signal ? { signal: spec.signal } : {}),
        ...(spec.onUploadProgress ? { onProgress: spec.onUploadProgress } : {}),
      });
    }
    const req = this.#got(this.url(spec.path, spec.query), {
      method: spec.method,
      headers: this.headers(spec),
      ...(spec.json !== undefined ? { json: spec.json } : {}),
      ...(spec.signal ? { signal: spec.signal } : {}),
      timeout: this.timeouts(spec),
      responseType: 'buffer',
    });
    const onProgress = spec.onUploadProgress;
    if (onProgress) req.on('uploadProgress', (p) => onProgress(p.transferred));
    return await req;
  }

  private retryEvent(spec: CallSpec, attempt: number, delayMs: number, reason: string, extra: { status?: number; code?: string; retryAfter?: string }): void {
    this.cfg.onRetry?.({ operation: spec.op, request: `${spec.method} ${spec.path}`, attempt, delayMs, reason: this.redact(reason), ...extra });
  }

  /**
   * Delay before the next attempt after a failed one, or null when the call must not be repeated.
   * `retryAfter` is the header of an answered 429/503.
   */
  private delayFor(attempt: number, retryAfter: string | undefined): { ms: number; fromHeader: boolean } | null {
    const { limit, baseDelayMs, maxDelayMs, maxRetryAfterMs } = this.cfg.retry;
    if (attempt > limit) return null;
    const asked = parseRetryAfter(retryAfter);
    if (asked !== undefined) return asked > maxRetryAfterMs ? null : { ms: asked, fromHeader: true };
    return { ms: fullJitter(attempt, baseDelayMs, maxDelayMs), fromHeader: false };
  }

  /** One call with retries. Resolves with a success status; throws a ServiceError otherwise. */
  async call(spec: CallSpec): Promise<Reply> {
    return this.#call(spec, false);
  }

  /**
   * A GET with call's retries and errors whose success body is read into a pooled buffer (raw-get.ts)
   * and lent to `use` for its synchronous run only: `use` must copy out what it keeps (strings, parsed JSON).
   */
  async callPooled<T>(spec: CallSpec & { method: 'GET' }, use: (reply: Reply) => T): Promise<T> {
    const reply = await this.#call(spec, true);
    try {
      return use(reply);
    } finally {
      reply.release?.();
    }
  }

  async #call(spec: CallSpec, pooled: boolean): Promise<Reply & { release?: () => void }> {
    let afterAmbiguous = false;
    for (let attempt = 1; ; attempt++) {
      const release = await this.slots.acquire(spec.signal, spec.op);
      try {
        spec.onAttempt?.(attempt);
      } catch (e) {
        // The caller's guard refused this attempt (before anything was sent): its error, not retried.
        release();
        throw e;
      }
      let res: Attempted | undefined;
      let failure: Failure | undefined;
      let refused: unknown;
      try {
        res = await this.attempt(spec, pooled);
      } catch (e) {
        refused = causeChain(e).find((c) => c instanceof AttemptRefused);
        failure = this.classify(e, spec);
      } finally {
        release();
      }
      // The body's guard cut it short (the service got no whole request): the guard's error, not retried.
      if (refused) throw refused;

      if (res) {
        const status = res.statusCode;
        const body = res.body ?? Buffer.alloc(0);
        if (spec.ok.includes(status)) {
          return {
            status, headers: res.headers, body, attempts: attempt, afterAmbiguous,
            get text() {
              return body.toString('utf8');
            },
            ...(res.release ? { release: res.release } : {}),
          };
        }
        const retryable = status >= 500 || status === 429 || status === 408;
        const message = this.redact(bodyMessage(body.toString('utf8', 0, 65_536), status));
        res.release?.();
        const retryAfter = status === 429 || status === 503 ? (res.headers['retry-after'] as string | undefined) : undefined;
        const delay = retryable ? this.delayFor(attempt, retryAfter) : null;
        if (delay) {
          this.retryEvent(spec, attempt, delay.ms, `HTTP ${status}: ${message}`, { status, ...(delay.fromHeader && retryAfter ? { retryAfter } : {}) });
          await sleep(delay.ms, spec.signal, spec.op);
          continue;
        }
        throw new ServiceError({ kind: 'http', operation: spec.op, status, message, retryable, attempts: attempt, mayHaveTakenEffect: afterAmbiguous });
      }

      const f = failure as Failure;
      if (f.kind === 'aborted') throw abortedError(spec.op, attempt);
      if (f.kind === 'file-changed') throw new ServiceError({ kind: 'file-changed', operation: spec.op, message: f.message, attempts: attempt });
      if (certificateProblemOf(f.code)) throw await this.certificateError(spec.op, f, attempt);
      if (f.proxy && !retriedAtProxy(f.proxy)) throw proxyError(spec.op, f.proxy, attempt);
      if (!spec.idempotent && f.sent) {
        throw new ServiceError({
          kind: 'ambiguous',
          operation: spec.op,
          code: f.code,
          message: `the request was sent but the ${f.kind === 'timeout' ? 'answer timed out' : `connection failed (${f.code ?? f.message})`}: it may or may not have taken effect`,
          attempts: attempt,
          mayHaveTakenEffect: true,
        });
      }
      afterAmbiguous ||= f.sent;
      const delay = this.delayFor(attempt, undefined);
      if (!delay) {
        if (f.proxy) throw proxyError(spec.op, f.proxy, attempt);
        throw new ServiceError({ kind: f.kind, operation: spec.op, code: f.code, message: f.message, retryable: true, attempts: attempt, mayHaveTakenEffect: afterAmbiguous });
      }
      this.retryEvent(spec, attempt, delay.ms, `${f.kind}: ${f.message}`, f.code ? { code: f.code } : {});
      await sleep(delay.ms, spec.signal, spec.op);
    }
  }

  /**
   * A refused certificate: not repeated (the same certificate comes back), and looked at once so the
   * error can say why (certificate.ts). Retryable for the caller: a CA added or a clock set right fixes it.
   */
  private async certificateError(op: string, f: Failure, attempt: number): Promise<ServiceError> {
    const facts = await certificateFacts(this.cfg.baseUrl, f.code as string, secureContextFor(this.cfg.ca), Math.min(3000, this.cfg.timeouts.connectMs));
    return new ServiceError({ kind: 'certificate', operation: op, code: f.code, message: f.message, retryable: true, attempts: attempt, certificate: facts });
  }

  /** A call whose success body is JSON, read by `parse` (a lenient reader from shared/). */
  async json<T>(spec: CallSpec, parse: (raw: unknown) => T): Promise<T> {
    const reply = await this.call(spec);
    return this.parseBody(spec.op, reply, parse);
  }

  /** Reads a success body as JSON; anything else is a 'bad-response' error with a clear message. */
  parseBody<T>(op: string, reply: Reply, parse: (raw: unknown) => T): T {
    const type = String(reply.headers['content-type'] ?? 'no content-type');
    let raw: unknown;
    try {
      raw = JSON.parse(reply.text);
    } catch {
      const what = reply.text.trim() === '' ? 'an empty body' : `"${this.redact(reply.text.trim().slice(0, 120))}${reply.text.length > 120 ? '…' : ''}"`;
      throw new ServiceError({
        kind: 'bad-response',
        operation: op,
        status: reply.status,
        message: `the service answered ${reply.status} but the body is not JSON (${type}): ${what}`,
      });
    }
    try {
      return parse(raw);
    } catch (e) {
      const detail = e instanceof ShapeError ? e.message : String(e);
      throw new ServiceError({ kind: 'bad-response', operation: op, status: reply.status, message: `the service answered ${reply.status} with JSON of an unexpected shape: ${this.redact(detail)}` });
    }
  }

  /**
   * Opens a streamed GET (downloads): retries until the response headers arrive with a success
   * status, then hands over the body. The caller handles failures while reading the body.
   */
  async openStream(spec: CallSpec): Promise<OpenStream> {
    for (let attempt = 1; ; attempt++) {
      const release = await this.slots.acquire(spec.signal, spec.op);
      try {
        spec.onAttempt?.(attempt);
      } catch (e) {
        release();
        throw e;
      }
      const stream = this.#got.stream(this.url(spec.path, spec.query), {
        method: spec.method,
        headers: this.headers(spec),
        ...(spec.signal ? { signal: spec.signal } : {}),
        timeout: this.timeouts(spec),
      });
      let res: Response | undefined;
      let failure: Failure | undefined;
      try {
        res = await new Promise<Response>((resolve, reject) => {
          stream.once('response', resolve);
          // Stays attached after the response so a later error always has a listener.
          stream.on('error', reject);
        });
      } catch (e) {
        failure = this.classify(e, spec);
      }
      if (res && spec.ok.includes(res.statusCode)) {
        let released = false;
        return {
          status: res.statusCode,
          headers: res.headers,
          body: stream,
          release: () => {
            if (!released) (released = true), release();
          },
        };
      }
      let text = '';
      if (res) {
        try {
          for await (const chunk of stream as AsyncIterable<Buffer>) {
            if (text.length < 65_536) text += chunk.toString('utf8');
          }
        } catch {
          // the error body is best effort
        }
      }
      stream.destroy();
      release();
      if (res) {
        const status = res.statusCode;
        const retryable = status >= 500 || status === 429 || status === 408;
        const message = this.redact(bodyMessage(text, status));
        const retryAfter = status === 429 || status === 503 ? (res.headers['retry-after'] as string | undefined) : undefined;
        const delay = retryable ? this.delayFor(attempt, retryAfter) : null;
        if (!delay) throw new ServiceError({ kind: 'http', operation: spec.op, status, message, retryable, attempts: attempt });
        this.retryEvent(spec, attempt, delay.ms, `HTTP ${status}: ${message}`, { status, ...(delay.fromHeader && retryAfter ? { retryAfter } : {}) });
        await sleep(delay.ms, spec.signal, spec.op);
        continue;
      }
      const f = failure as Failure;
      if (f.kind === 'aborted') throw abortedError(spec.op, attempt);
      if (certificateProblemOf(f.code)) throw await this.certificateError(spec.op, f, attempt);
      if (f.proxy && !retriedAtProxy(f.proxy)) throw proxyError(spec.op, f.proxy, attempt);
      const delay = this.delayFor(attempt, undefined);
      if (f.proxy && !delay) throw proxyError(spec.op, f.proxy, attempt);
      if (!delay || f.kind === 'file-changed') {
        throw new ServiceError({ kind: f.kind, operation: spec.op, code: f.code, message: f.message, retryable: true, attempts: attempt });
      }
      this.retryEvent(spec, attempt, delay.ms, `${f.kind}: ${f.message}`, f.code ? { code: f.code } : {});
      await sleep(delay.ms, spec.signal, spec.op);
    }
  }

  /**
   * Settles an ambiguous failure of a non-idempotent call: waits a moment, runs `find` (which
   * lists what the call would have created) and returns its single match. No match, several
   * matches, or a failing search all end in an 'ambiguous' ServiceError that says which.
   */
  async settleAmbiguous<T>(
    e: ServiceError,
    find: () => Promise<T[]>,
    describe: { what: string; ids: (found: T[]) => string },
    signal?: AbortSignal,
  ): Promise<T> {
    let found: T[];
    try {
      await sleep(this.cfg.retry.baseDelayMs, signal, e.operation);
      found = await find();
    } catch (err) {
      if (err instanceof ServiceError && err.kind === 'aborted') throw err;
      const why = err instanceof ServiceError ? err.describe() : this.redact(String(err));
      throw new ServiceError({
        kind: 'ambiguous', operation: e.operation, code: e.code, attempts: e.attempts, mayHaveTakenEffect: true,
        message: `${e.message}; looking for ${describe.what} failed too (${why}): check before trying again`,
      });
    }
    const [only] = found;
    if (found.length === 1 && only !== undefined) return only;
    throw new ServiceError({
      kind: 'ambiguous', operation: e.operation, code: e.code, attempts: e.attempts, mayHaveTakenEffect: true,
      message: `${e.message}; ${found.length === 0 ? `no ${describe.what} was found` : `${found.length} of ${describe.what} were found (${describe.ids(found)})`}, so the client cannot tell whether this call made one: check before trying again`,
    });
  }

  /** Reports a retry made outside `call` (e.g. a download resuming after a broken body). */
  noteRetry(op: string, request: string, attempt: number, delayMs: number, reason: string, code?: string): void {
    this.cfg.onRetry?.({ operation: op, request, attempt, delayMs, reason: this.redact(reason), ...(code ? { code } : {}) });
  }

  /** Maps an error thrown while reading a streamed body (outside `call`) to a ServiceError. */
  streamFailure(op: string, e: unknown, signal?: AbortSignal): ServiceError {
    if (e instanceof ServiceError) return e;
    const f = this.classify(e, { op, method: 'GET', path: '', idempotent: true, ok: [], ...(signal ? { signal } : {}) });
    if (f.kind === 'aborted') return abortedError(op);
    if (f.proxy) return proxyError(op, f.proxy, 1);
    return new ServiceError({ kind: f.kind, operation: op, code: f.code, message: f.message, retryable: f.kind !== 'file-changed' });
  }
}
