/** The service's filesystem (spec 4.8): read (Range, retry-config), write (If-None-Match), metadata, delete, list. */
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  parseFolderList, type FileNode, type PathMetadata,
} from '../../../shared/service/index.js';
import { isServiceError } from './errors.js';
import { FileSlice, identify } from './file-slice.js';
import { servicePathSegments, type Transport } from './http.js';
import { jobIdOfReply, type CallOptions } from './jobs.js';

/** Retry-config header: the service retries a missing path `retries` times, `backoffSeconds` apart. */
export interface NotFoundRetry {
  retries: number;
  backoffSeconds: number;
}

export const filePath = (servicePath: string): string => {
  const p = servicePathSegments(servicePath);
  if (p === '') throw new RangeError('service path is empty: give a drive and a path, e.g. svc-drive/folder/file.pdf');
  return `/v2/files/${p}`;
};

export function retryHeaders(t: Transport, r: NotFoundRetry | undefined): { headers?: Record<string, string>; slowMs?: number } {
  if (!r) return {};
  return {
    headers: { [t.cfg.retryConfigHeader.toLowerCase()]: JSON.stringify({ retries: r.retries, 'backoff-seconds': r.backoffSeconds }) },
    slowMs: Math.ceil(r.retries * r.backoffSeconds * 1000) + 1000,
  };
}

export interface ByteRange {
  start: number;
  /** Inclusive; to the end of the file when absent. */
  end?: number;
}

export function rangeHeader(r: ByteRange): string {
  if (!Number.isSafeInteger(r.start) || r.start < 0) throw new RangeError(`range start must be a non-negative integer, got ${r.start}`);
  if (r.end !== undefined && (!Number.isSafeInteger(r.end) || r.end < r.start)) throw new RangeError(`range end must be an integer >= start, got ${r.end}`);
  return `bytes=${r.start}-${r.end ?? ''}`;
}

/** `bytes a-b/total` -> its parts ('*' total gives undefined). */
export function parseContentRange(v: string | undefined): { start: number; end: number; total: number | undefined } | undefined {
  const m = v ? /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/.exec(v.trim()) : null;
  if (!m) return undefined;
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? undefined : Number(m[3]) };
}

export interface ReadFileOptions extends CallOptions {
  range?: ByteRange;
  retry?: NotFoundRetry;
}

export interface FileRead {
  data: Buffer;
  /** 200 (whole file) or 206 (the range). */
  status: number;
  /** Size of the whole file, when the answer tells it. */
  size: number | undefined;
  lastModified: Date | undefined;
}

/** GET /v2/files/{path}?expect-node-type=file into memory (for small files; see downloadFile for the rest). */
export async function readFile(t: Transport, servicePath: string, o: ReadFileOptions = {}): Promise<FileRead> {
  const { range, retry, ...call } = o;
  const extra = retryHeaders(t, retry);
  const reply = await t.call({
    op: 'readFile', method: 'GET', path: filePath(servicePath), query: { 'expect-node-type': 'file' },
    headers: { ...extra.headers, ...(range ? { range: rangeHeader(range) } : {}) },
    ...(extra.slowMs ? { slowMs: extra.slowMs } : {}),
    idempotent: true, ok: [200, 206], ...call,
  });
  const cr = parseContentRange(reply.headers['content-range']);
  const lm = reply.headers['last-modified'];
  return {
    data: reply.body,
    status: reply.status,
    size: reply.status === 206 ? cr?.total : reply.body.length,
    lastModified: lm ? new Date(lm) : undefined,
  };
}

/** GET /v2/files/{path}?expect-node-type=folder: the folder's entries. */
export function listFolder(t: Transport, servicePath: string, o: CallOptions & { retry?: NotFoundRetry } = {}): Promise<{ nodes: FileNode[] }> {
  const { retry, ...call } = o;
  const extra = retryHeaders(t, retry);
  return t.json(
    { op: 'listFolder', method: 'GET', path: filePath(servicePath), query: { 'expect-node-type': 'folder' }, ...extra, idempotent: true, ok: [200], ...call },
    parseFolderList,
  );
}

/**
 * HEAD /v2/files/{path}: file or folder, and a file's size and modification time (read from the
 * headers: application/json means a folder). null when nothing is at the path (404).
 */
export async function statPath(t: Transport, servicePath: string, o: CallOptions & { retry?: NotFoundRetry } = {}): Promise<PathMetadata | null> {
  const { retry, ...call } = o;
  const extra = retryHeaders(t, retry);
  try {
    const reply = await t.call({ op: 'statPath', method: 'HEAD', path: filePath(servicePath), ...extra, idempotent: true, ok: [200, 204], ...call });
    const type = String(reply.headers['content-type'] ?? '').toLowerCase();
    if (type.startsWith('application/json')) return { nodeType: 'folder' };
    const meta: PathMetadata = { nodeType: 'file' };
    const len = reply.headers['content-length'];
    if (len !== undefined && /^\d+$/.test(len)) meta.size = Number(len);
    const lm = reply.headers['last-modified'];
    if (lm && Number.isFinite(Date.parse(lm))) meta.lastModified = new Date(lm);
    return meta;
  } catch (e) {
    if (isServiceError(e, 'http') && e.status === 404) return null;
    throw e;
  }
}

export interface WriteFileOptions extends CallOptions {
  /** Send `If-None-Match: *`: create only, 412 when a file exists. */
  ifNoneMatch?: boolean;
  onProgress?: (sent: number, total: number) => void;
}

export interface WriteResult {
  /** True when the service reported a new file (201, only with ifNoneMatch). */
  created: boolean;
  status: number;
  location: string | null;
}

/**
 * PUT /v2/files/{path}: creates or overwrites a (non-empty) file, streamed from a local path or
 * sent from memory. With ifNoneMatch a file already there is a 412 ServiceError; but a 412 that
 * follows an ambiguous attempt of this same call, with exactly our bytes at the path, is this
 * call's own earlier success (reported as created).
 */
export async function writeFile(t: Transport, servicePath: string, source: string | Uint8Array, o: WriteFileOptions = {}): Promise<WriteResult> {
  const { ifNoneMatch, onProgress, ...call } = o;
  let body: () => Readable;
  let size: number;
  if (typeof source === 'string') {
    const id = await identify(source);
    size = id.size;
    body = () => new FileSlice(source, 0, id.size, id);
  } else {
    size = source.byteLength;
    body = () => Readable.from([Buffer.from(source.buffer, source.byteOffset, source.byteLength)], { objectMode: false });
  }
  try {
    const reply = await t.call({
      op: 'writeFile', method: 'PUT', path: filePath(servicePath), body, bodyLength: size,
      ...(ifNoneMatch ? { headers: { 'if-none-match': '*' } } : {}),
      ...(onProgress ? { onUploadProgress: (n: number) => onProgress(n, size) } : {}),
      idempotent: true, ok: [200, 201, 204], ...call,
    });
    const loc = reply.headers.location;
    return { created: reply.status === 201, status: reply.status, location: typeof loc === 'string' ? loc : null };
  } catch (e) {
    if (ifNoneMatch && isServiceError(e, 'http') && e.status === 412 && e.mayHaveTakenEffect && (await holdsSameBytes(t, servicePath, source, size, call))) {
      return { created: true, status: 201, location: null };
    }
    throw e;
  }
}

/** Bytes compared at a time when a conditional write's own success is checked. */
const COMPARE_CHUNK = 4 * 1024 * 1024;

/**
 * Whether the file at `servicePath` holds exactly `source`'s bytes: how a 412 after an ambiguous
 * attempt tells this call's own create from another writer's. The size alone cannot: two writers'
 * records are often the same size (two agents claiming one content, issue 15).
 */
async function holdsSameBytes(t: Transport, servicePath: string, source: string | Uint8Array, size: number, call: CallOptions): Promise<boolean> {
  const meta = await statPath(t, servicePath, call);
  if (meta?.nodeType !== 'file' || meta.size !== size) return false;
  const local = typeof source === 'string' ? await open(source, 'r') : null;
  try {
    for (let start = 0; start < size; start += COMPARE_CHUNK) {
      const end = Math.min(size, start + COMPARE_CHUNK) - 1;
      const there = await readFile(t, servicePath, { ...call, range: { start, end } });
      let ours: Buffer;
      if (local) {
        ours = Buffer.alloc(end - start + 1);
        await local.read(ours, 0, ours.length, start);
      } else ours = Buffer.from((source as Uint8Array).subarray(start, end + 1));
      if (!there.data.equals(ours)) return false;
    }
    return true;
  } finally {
    await local?.close();
  }
}

/** DELETE /v2/files/{path}: 202 whether or not anything is there; the job, when the service names one. */
export async function deletePath(t: Transport, servicePath: string, o: CallOptions = {}): Promise<{ jobId: string | null }> {
  const reply = await t.call({ op: 'deletePath', method: 'DELETE', path: filePath(servicePath), idempotent: true, ok: [200, 202, 204], ...o });
  return { jobId: jobIdOfReply(t, 'deletePath', reply) };
}
