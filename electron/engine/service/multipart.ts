/** Multipart upload (spec 3.3, 4.2): the four calls, and a streamed, parallel, resumable upload of a file. */
import { Readable } from 'node:stream';
import {
  parseMultipartStart, parsePartUploaded, type PartRef, type StartMultipartRequest, type StartMultipartResponse, type UploadPartResponse,
} from '../../../shared/service/index.js';
import { iterateBatchFiles, checkFileName } from './batches.js';
import { FileChangedError, ServiceError, isServiceError } from './errors.js';
import { FileSlice, checkUnchanged, identify, type FileIdentity } from './file-slice.js';
import { seg, type Transport } from './http.js';
import type { CallOptions } from './jobs.js';
import { Semaphore } from './limit.js';

const sessionPath = (sessionId: string): string => `/v2/batches/multipart-upload/sessions/${seg(sessionId)}`;

/** POST /v2/batches/multipart-upload. Not idempotent: an ambiguous failure is reported as 'ambiguous'. */
export async function startMultipart(t: Transport, req: StartMultipartRequest, o: CallOptions = {}): Promise<StartMultipartResponse> {
  const reply = await t.call({ op: 'startMultipart', method: 'POST', path: '/v2/batches/multipart-upload', json: req, idempotent: false, ok: [200, 201], ...o });
  // 201 with the session in Location too: the id is taken from there when the body lacks it.
  const loc = reply.headers.location;
  return t.parseBody('startMultipart', reply, (raw) => parseMultipartStart(raw, Array.isArray(loc) ? loc[0] : loc));
}

/** The bytes of one part: in memory, or a range of a file (read when sent, checked against `expect`). */
export type PartSource = Uint8Array | { path: string; start: number; length: number; expect: FileIdentity };

export interface PartOptions extends CallOptions {
  onProgress?: (sent: number) => void;
  onAttempt?: (attempt: number) => void;
}

/** PUT .../sessions/{session_id}/parts/{part_num}; retried on its own (repeating a part replaces it). */
export function uploadPart(t: Transport, sessionId: string, partNum: number, source: PartSource, o: PartOptions = {}): Promise<UploadPartResponse> {
  const length = source instanceof Uint8Array ? source.byteLength : source.length;
  const body = (): Readable => {
    if (!(source instanceof Uint8Array)) return new FileSlice(source.path, source.start, source.length, source.expect);
    return Readable.from(source.byteLength ? [Buffer.from(source.buffer, source.byteOffset, source.byteLength)] : [], { objectMode: false });
  };
  return t.json(
    {
      op: 'uploadPart',
      method: 'PUT',
      path: `${sessionPath(sessionId)}/parts/${seg(partNum)}`,
      body,
      bodyLength: length,
      idempotent: true,
      ok: [200, 201],
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress ? { onUploadProgress: o.onProgress } : {}),
      ...(o.onAttempt ? { onAttempt: o.onAttempt } : {}),
    },
    (raw) => parsePartUploaded(raw, partNum),
  );
}

export interface CommitCheck {
  batchId: number;
  filename: string;
  size: number;
}

/**
 * POST .../sessions/{session_id} {action: commit, parts}. Repeated after an ambiguous failure
 * (it names one file, so a repeat cannot duplicate anything); if the repeat answers 404 because
 * the first attempt did commit, `check` (when given) finds the file in the batch and the commit
 * counts as done.
 */
export async function commitMultipart(t: Transport, sessionId: string, parts: PartRef[], o: CallOptions & { check?: CommitCheck } = {}): Promise<void> {
  const began = Date.now();
  const { check, ...call } = o;
  try {
    await t.call({ op: 'commitMultipart', method: 'POST', path: sessionPath(sessionId), json: { action: 'commit', parts }, idempotent: true, ok: [200, 201, 204], ...call });
  } catch (e) {
    if (!(isServiceError(e, 'http') && e.status === 404 && e.mayHaveTakenEffect && check)) throw e;
    const since = began - t.cfg.clockSkewMs - 1000;
    for await (const node of iterateBatchFiles(t, check.batchId, 500, call)) {
      const mod = node.metadata?.modified_timestamp;
      if (node.name === check.filename && node.metadata?.size === check.size && (mod === undefined || mod * 1000 >= since)) return;
    }
    throw e;
  }
}

/** POST .../sessions/{session_id} {action: abort}: discards the session and its parts. */
export async function abortMultipart(t: Transport, sessionId: string, o: CallOptions = {}): Promise<void> {
  try {
    await t.call({ op: 'abortMultipart', method: 'POST', path: sessionPath(sessionId), json: { action: 'abort' }, idempotent: true, ok: [200, 201, 204], ...o });
  } catch (e) {
    // A repeat of an abort that did happen finds no session: that is the outcome wanted.
    if (isServiceError(e, 'http') && e.status === 404 && e.mayHaveTakenEffect) return;
    throw e;
  }
}

export interface MultipartSession {
  sessionId: string;
  partSize: number;
  /** What the file was when the upload began; persist it with the parts to resume safely. */
  fileSize: number;
  mtimeMs: number;
}

export interface ResumeState {
  sessionId: string;
  partSize: number;
  /** Parts already uploaded (from onPart); they are not sent again. */
  parts: PartRef[];
  /** The file as it was when the session began (from onSession). When given, a file that differs now fails with 'file-changed'. */
  fileSize?: number;
  mtimeMs?: number;
}

export interface MultipartProgress {
  /** Bytes of the file on the service side or on their way: finished parts plus what in-flight parts have sent. */
  sent: number;
  total: number;
  partsDone: number;
  partsTotal: number;
  /** Parts being sent right now. */
  inFlight: number;
}

export interface MultipartOptions extends CallOptions {
  /** Parts sent at once. Default 4. Memory stays bounded by this times a few 1 MiB read chunks (reused), well under part_size. */
  concurrency?: number;
  onProgress?: (p: MultipartProgress) => void;
  resume?: ResumeState;
  /** The file's identity from the caller's own look (as UploadOptions.seen): every part's read is checked against it. */
  seen?: FileIdentity;
  /** The session in use, before any part is sent: persist it to resume after a crash. */
  onSession?: (s: MultipartSession) => void;
  /** Each part once the service has it: persist it to resume after a crash. */
  onPart?: (part: PartRef) => void;
}

export interface MultipartResult {
  sessionId: string;
  partSize: number;
  size: number;
  parts: PartRef[];
  /** Parts taken from `resume` rather than sent by this call. */
  resumedParts: number;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  done: boolean;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const d: Deferred = { promise: new Promise<void>((r) => (resolve = r)), resolve: () => {}, done: false };
  d.resolve = () => {
    d.done = true;
    resolve();
  };
  return d;
}

/**
 * Uploads a file from disk through a multipart session, in parallel but starting parts in
 * order (the service takes part N once part N-1 has begun to arrive).
 *
 * - Each part is read from its file offset when sent; a part is retried on its own (5xx, 429,
 *   resets, timeouts). A part refused (400) while an earlier part is not yet confirmed is sent
 *   again once the earlier parts are in (the service may not yet have seen its predecessor).
 * - The file's size and mtime are recorded first and checked at the end of every part and before
 *   the commit; a change fails the upload with 'file-changed' and aborts the session.
 * - A failure that leaves the session useless (a 4xx, a bad response, a changed file) aborts the
 *   session. Cancellation (signal) and transient failures that outlast the retries leave it in
 *   place, so the upload can be resumed with `resume`.
 * - Starting the session: after an ambiguous failure a new session is started (an uncommitted
 *   session creates nothing; see http.ts).
 */
export async function uploadMultipart(t: Transport, batchId: number, filename: string, path: string, o: MultipartOptions = {}): Promise<MultipartResult> {
  checkFileName(filename);
  const op = 'uploadMultipart';
  const concurrency = o.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const ident = o.seen ?? (await identify(path));
  const userSignal = o.signal;
  const changed = (msg: string): ServiceError => new ServiceError({ kind: 'file-changed', operation: op, message: msg });

  let session: MultipartSession;
  if (o.resume) {
    const r = o.resume;
    session = { sessionId: r.sessionId, partSize: r.partSize, fileSize: r.fileSize ?? ident.size, mtimeMs: r.mtimeMs ?? ident.mtimeMs };
    if (session.fileSize !== ident.size || session.mtimeMs !== ident.mtimeMs) {
      await abortMultipart(t, r.sessionId).catch(() => undefined);
      throw changed(`${path} changed since the upload began (size ${session.fileSize} -> ${ident.size}, mtime ${session.mtimeMs} -> ${ident.mtimeMs}); the session was aborted`);
    }
    if (!Number.isInteger(r.partSize) || r.partSize < 1) throw new RangeError(`resume.partSize must be a positive integer, got ${r.partSize}`);
  } else {
    let started: StartMultipartResponse | undefined;
    for (let tries = 1; !started; tries++) {
      try {
        started = await startMultipart(t, { batch_id: batchId, filename, file_size: ident.size }, userSignal ? { signal: userSignal } : {});
      } catch (e) {
        if (!isServiceError(e, 'ambiguous') || tries >= 3) throw e;
      }
    }
    session = { sessionId: started.session_id, partSize: started.part_size, fileSize: ident.size, mtimeMs: ident.mtimeMs };
  }
  o.onSession?.(session);

  const { sessionId, partSize } = session;
  const count = Math.max(1, Math.ceil(ident.size / partSize));
  const lengthOf = (n: number): number => (n < count ? partSize : ident.size - (count - 1) * partSize);
  const done = new Map<number, PartRef>();
  for (const p of o.resume?.parts ?? []) {
    if (Number.isInteger(p.part_num) && p.part_num >= 1 && p.part_num <= count && typeof p.part_id === 'string') done.set(p.part_num, p);
  }
  const resumedParts = done.size;
  const begun = new Map<number, Deferred>();
  const confirmed = new Map<number, Deferred>();
  for (let n = 1; n <= count; n++) {
    const b = deferred();
    const c = deferred();
    if (done.has(n)) (b.resolve(), c.resolve());
    begun.set(n, b);
    confirmed.set(n, c);
  }

  const internal = new AbortController();
  const signal = userSignal ? AbortSignal.any([userSignal, internal.signal]) : internal.signal;
  let fatal: unknown;
  const failed = deferred();
  const fail = (e: unknown): void => {
    if (failed.done) return;
    fatal = e;
    failed.resolve();
    internal.abort();
  };

  const sending = new Map<number, number>();
  let doneBytes = [...done.keys()].reduce((s, n) => s + lengthOf(n), 0);
  const progress = (): void => {
    if (!o.onProgress) return;
    let inFlightBytes = 0;
    for (const b of sending.values()) inFlightBytes += b;
    o.onProgress({ sent: doneBytes + inFlightBytes, total: ident.size, partsDone: done.size, partsTotal: count, inFlight: sending.size });
  };

  const sendPart = async (n: number): Promise<void> => {
    const start = (n - 1) * partSize;
    for (let orderRetries = 0; ; orderRetries++) {
      try {
        const ref = await uploadPart(t, sessionId, n, { path, start, length: lengthOf(n), expect: ident }, {
          signal,
          onAttempt: () => {
            sending.set(n, 0);
            progress();
          },
          onProgress: (sent) => {
            sending.set(n, sent);
            if (sent > 0) begun.get(n)?.resolve();
            progress();
          },
        });
        sending.delete(n);
        done.set(n, ref);
        doneBytes += lengthOf(n);
        begun.get(n)?.resolve();
        confirmed.get(n)?.resolve();
        o.onPart?.(ref);
        progress();
        return;
      } catch (e) {
        sending.delete(n);
        const earlier = [...confirmed.entries()].filter(([k, d]) => k < n && !d.done).map(([, d]) => d.promise);
        if (isServiceError(e, 'http') && e.status === 400 && earlier.length > 0 && orderRetries < 3) {
          await Promise.race([Promise.all(earlier), failed.promise]);
          if (failed.done) return;
          continue;
        }
        fail(e);
        return;
      }
    }
  };

  const slots = new Semaphore(concurrency);
  const running: Promise<void>[] = [];
  for (let n = 1; n <= count && !failed.done; n++) {
    if (done.has(n)) continue;
    let release: () => void;
    try {
      release = await slots.acquire(signal, op);
    } catch (e) {
      fail(e);
      break;
    }
    // Part n starts only once part n-1 has begun to arrive (or is already in).
    if (n > 1) await Promise.race([begun.get(n - 1)?.promise, failed.promise]);
    if (failed.done) {
      release();
      break;
    }
    running.push(sendPart(n).finally(release));
  }
  await Promise.allSettled(running);

  const abortSession = (): Promise<void> => abortMultipart(t, sessionId).catch(() => undefined);
  if (userSignal?.aborted) throw new ServiceError({ kind: 'aborted', operation: op, message: `cancelled by the caller; session ${sessionId} is kept for resuming (${done.size} of ${count} parts in)` });
  if (failed.done) {
    const e = fatal;
    if (isServiceError(e) && !e.retryable && e.kind !== 'aborted') await abortSession();
    if (isServiceError(e, 'file-changed')) throw changed(`${e.message}; the session was aborted`);
    throw e;
  }
  try {
    await checkUnchanged(path, ident);
  } catch (e) {
    await abortSession();
    if (e instanceof FileChangedError) throw changed(`${e.message}; the session was aborted`);
    throw e;
  }
  const parts = [...done.values()].sort((a, b) => a.part_num - b.part_num);
  try {
    // The guard (o.onAttempt) only on the commit: parts are not in the batch until it is made.
    await commitMultipart(t, sessionId, parts, { ...(userSignal ? { signal: userSignal } : {}), ...(o.onAttempt ? { onAttempt: o.onAttempt } : {}), check: { batchId, filename, size: ident.size } });
  } catch (e) {
    if (isServiceError(e) && !e.retryable && e.kind !== 'aborted') await abortSession();
    throw e;
  }
  return { sessionId, partSize, size: ident.size, parts, resumedParts };
}
