/** Batches and batch files (spec 4.1). */
import {
  parseBatchId, parseBatchInfo, parseBatchList, parseFileList, parseJobCreated,
  type BatchInfoView, type CreateBatchRequest, type FileNode, type ListBatchesQuery, type ListBatchFilesResponse,
} from '../../../shared/service/index.js';
import { isServiceError } from './errors.js';
import { BytesBody, FileSlice, identify, type FileIdentity } from './file-slice.js';
import { seg, type Transport } from './http.js';
import { jobIdOfReply, type CallOptions } from './jobs.js';

export interface CreatedBatch {
  id: number;
  /** True when the create failed ambiguously and the batch it made was found by listing (see http.ts). */
  recovered: boolean;
}

export interface UploadOptions extends CallOptions {
  /** Bytes sent so far of this file. */
  onProgress?: (sent: number, total: number) => void;
  /**
   * The file's size and mtime from a look the caller has just taken (a stat of a regular file): no
   * second look before sending. The body is still checked against it before its last bytes go.
   */
  seen?: FileIdentity;
  /**
   * The file's bytes, read by the caller as one snapshot that matches `seen` (a small file: read
   * whole with its size and mtime the same before and after): sent as they are, the file not read
   * again. Only with `seen`, and of its size.
   */
  bytes?: Uint8Array;
}

export function checkFileName(name: string): string {
  if (name === '' || name.length > 255 || name.includes('/') || name === '.' || name === '..') {
    throw new RangeError(`batch file name "${name}" must be a plain file name of 1 to 255 characters`);
  }
  return name;
}

/** Every batch matching the query, following limit/offset pages. */
export async function listAllBatches(t: Transport, q: Omit<ListBatchesQuery, 'limit' | 'offset'>, o: CallOptions = {}): Promise<BatchInfoView[]> {
  const limit = 500;
  const out: BatchInfoView[] = [];
  for (let offset = 0; ; offset += limit) {
    const { batches } = await listBatches(t, { ...q, limit, offset }, o);
    out.push(...batches);
    if (batches.length < limit) return out;
  }
}

/**
 * POST /v2/batches. Not idempotent: after an ambiguous failure the batch is looked for by name,
 * creator and creation time, and adopted if exactly one matches; otherwise kind 'ambiguous'.
 */
export async function createBatch(t: Transport, req: CreateBatchRequest, o: CallOptions = {}): Promise<CreatedBatch> {
  const began = Date.now();
  try {
    const { id } = await t.json({ op: 'createBatch', method: 'POST', path: '/v2/batches', json: req, idempotent: false, ok: [200, 201], ...o }, parseBatchId);
    return { id, recovered: false };
  } catch (e) {
    if (!isServiceError(e, 'ambiguous')) throw e;
    const since = began - t.cfg.clockSkewMs;
    const user = t.cfg.username;
    const found = await t.settleAmbiguous(
      e,
      async () =>
        (await listAllBatches(t, { ...(req.workspace ? { workspace: req.workspace } : {}), ...(user ? { username: user } : {}) }, o)).filter(
          (b) => b.name === req.name && (b.created_at_ms === undefined || b.created_at_ms >= since) && (!user || b.batch_owner === undefined || b.batch_owner === user),
        ),
      { what: `batch named "${req.name}"${user ? ` by ${user}` : ''} created since ${new Date(since).toISOString()}`, ids: (l) => `ids ${l.map((b) => b.id).join(', ')}` },
      o.signal,
    );
    return { id: found.id, recovered: true };
  }
}

/** GET /v2/batches */
export function listBatches(t: Transport, q: ListBatchesQuery = {}, o: CallOptions = {}): Promise<{ batches: BatchInfoView[] }> {
  return t.json({ op: 'listBatches', method: 'GET', path: '/v2/batches', query: { ...q }, idempotent: true, ok: [200], ...o }, parseBatchList);
}

/** GET /v2/batches/{batch_id}; 404 when the batch does not exist or access is denied. */
export function getBatch(t: Transport, batchId: number, o: CallOptions = {}): Promise<BatchInfoView> {
  return t.json({ op: 'getBatch', method: 'GET', path: `/v2/batches/${seg(batchId)}`, idempotent: true, ok: [200], ...o }, parseBatchInfo);
}

/** DELETE /v2/batches/{batch_id}: 202 with the deletion job. */
export function deleteBatch(t: Transport, batchId: number, o: CallOptions = {}): Promise<{ job_id: string }> {
  return t.json({ op: 'deleteBatch', method: 'DELETE', path: `/v2/batches/${seg(batchId)}`, idempotent: true, ok: [200, 202], ...o }, parseJobCreated);
}

/**
 * PUT /v2/batches/{batch_id}/files/{filename}: streams the file from disk in one request
 * (replacing a file of the same name). Fails with 'file-changed' when the file changes while
 * it is being sent; the body is then cut short, so the service stores nothing.
 */
export async function putBatchFile(t: Transport, batchId: number, name: string, path: string, o: UploadOptions = {}): Promise<{ size: number }> {
  checkFileName(name);
  const id = o.seen ?? (await identify(path));
  const { onProgress, signal, onAttempt, bytes } = o;
  if (bytes && (!o.seen || bytes.length !== id.size)) throw new RangeError(`the bytes given for ${name} are not the ${id.size} bytes seen`);
  const guard = onAttempt ? () => onAttempt(0) : undefined;
  await t.call({
    op: 'putBatchFile',
    method: 'PUT',
    path: `/v2/batches/${seg(batchId)}/files/${seg(name)}`,
    // The guard again right before the last bytes: a process frozen mid-body sends the rest only if it still may.
    body: () => (bytes ? new BytesBody(bytes, guard) : new FileSlice(path, 0, id.size, id, guard)),
    bodyLength: id.size,
    idempotent: true,
    ok: [200, 201, 204],
    ...(signal ? { signal } : {}),
    ...(onProgress ? { onUploadProgress: (n: number) => onProgress(n, id.size) } : {}),
    ...(onAttempt ? { onAttempt } : {}),
  });
  return { size: id.size };
}

/** DELETE /v2/batches/{batch_id}/files/{filename}: 202, empty body, the job named by Location (or a body's job_id). */
export async function deleteBatchFile(t: Transport, batchId: number, name: string, o: CallOptions = {}): Promise<{ jobId: string | null }> {
  checkFileName(name);
  const reply = await t.call({ op: 'deleteBatchFile', method: 'DELETE', path: `/v2/batches/${seg(batchId)}/files/${seg(name)}`, idempotent: true, ok: [200, 202, 204], ...o });
  return { jobId: jobIdOfReply(t, 'deleteBatchFile', reply) };
}

/** GET /v2/batches/{batch_id}/files: one page. */
export function listBatchFiles(t: Transport, batchId: number, q: { page_size?: number; start_token?: string } = {}, o: CallOptions = {}): Promise<ListBatchFilesResponse> {
  return t.json({ op: 'listBatchFiles', method: 'GET', path: `/v2/batches/${seg(batchId)}/files`, query: { ...q }, idempotent: true, ok: [200], ...o }, parseFileList);
}

/** Every file of a batch, following next_page_token. */
export async function* iterateBatchFiles(t: Transport, batchId: number, pageSize = 500, o: CallOptions = {}): AsyncGenerator<FileNode> {
  let token: string | undefined;
  do {
    const page = await listBatchFiles(t, batchId, { page_size: pageSize, ...(token ? { start_token: token } : {}) }, o);
    yield* page.nodes;
    token = page.has_more ? page.next_page_token : undefined;
  } while (token);
}
