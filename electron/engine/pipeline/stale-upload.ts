/**
 * An older version of a file that already went up to a service batch (issue 11): it is deleted and
 * the deletion job followed to its end, because a run started while the job is still pending reads
 * the old bytes (their results then land with no local file). When that cannot be made certain, the
 * batch is abandoned: never run, its other files re-uploaded into a fresh batch.
 */
import { isServiceError } from '../service/index.js';
import type { BatchRow, FileRow } from '../store/index.js';
import { log, setState, type PipelineContext } from './context.js';
import { recordBatch } from './intake.js';
import type { BatchPlan } from './plan.js';

/** How long a deletion job may take before the batch is given up instead. */
const DELETE_WAIT_MS = 5 * 60_000;

/** A file's old bytes may still be in its service batch: the batch must not be run. */
export class StaleUpload extends Error {
  constructor(readonly fileId: number, readonly why: string, detail: string) {
    super(`${why}, and its older version could not be removed from the service batch (${detail})`);
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

async function stillInBatch(ctx: PipelineContext, batchId: number, name: string, signal: AbortSignal): Promise<boolean> {
  for await (const node of ctx.client.iterateBatchFiles(batchId, 500, { signal })) if (node.name === name) return true;
  return false;
}

/**
 * Deletes the file's upload from the batch and waits for the deletion job. Resolves when the bytes
 * are certainly gone (the job completed, or the batch no longer lists the name); throws StaleUpload
 * otherwise.
 */
export async function removeStaleUpload(ctx: PipelineContext, b: BatchRow, f: FileRow, why: string, signal: AbortSignal): Promise<void> {
  const batchId = Number(b.serviceBatchId);
  const name = f.safeName as string;
  let detail: string;
  try {
    // A 404 may mean the name was never stored (an upload cut short): the listing below decides.
    const { jobId } = await ctx.client.deleteBatchFile(batchId, name, { signal }).catch((e: unknown) => {
      if (isServiceError(e, 'http') && e.status === 404) return { jobId: null };
      throw e;
    });
    if (jobId) {
      const job = await ctx.client.waitForJob(jobId, { signal, timeoutMs: DELETE_WAIT_MS, initialDelayMs: 200, maxDelayMs: 2000 });
      if (job.state === 'COMPLETE') return;
      detail = `the service's deletion job ${job.state.toLowerCase()}${job.message ? `: ${job.message}` : ''}`;
    } else {
      detail = 'the service named no deletion job to follow';
    }
    // A job that failed because the name was not there (an upload cut short before a crash) is no danger.
    if (!(await stillInBatch(ctx, batchId, name, signal))) return;
  } catch (e) {
    if (isServiceError(e, 'aborted')) throw e;
    detail = message(e);
  }
  throw new StaleUpload(f.id, why, detail);
}

/**
 * Gives up a batch that may hold stale bytes, in one transaction: the changed file waits to settle
 * again, the rest of the batch's unfinished files go into a fresh batch with the same plan, the old
 * one is marked deleted (so nothing ever starts its run). Returns the fresh batch's id, if any.
 * The service batch is then asked to go away, without waiting: it is never run either way.
 */
export async function abandonBatch(ctx: PipelineContext, b: BatchRow, plan: BatchPlan, stale: StaleUpload, requeue: (f: FileRow) => void): Promise<number | undefined> {
  const fresh = ctx.store.transaction(() => {
    const changed = ctx.store.files.get(stale.fileId);
    if (changed) requeue(changed);
    const rest = ctx.store.files.list({ batchId: b.id }).filter((f) => ['queued', 'uploading', 'uploaded'].includes(f.state));
    for (const f of rest) {
      // A multipart session belongs to the old service batch: the fresh batch starts from the first part.
      const session = ctx.store.files.openMultipart(f.id);
      if (session) ctx.store.files.abortMultipart(session.id);
      if (f.state !== 'queued') setState(ctx, f.id, 'queued');
    }
    ctx.store.runs.markBatchDeleted(b.id);
    return rest.length ? recordBatch(ctx, b.folderId, plan, rest.map((f) => f.id)) : undefined;
  });
  log(ctx, 'warn', 'A file changed while it was being uploaded: DocSync uploads the files of that upload again, with the new version.', { detail: `batch ${b.name} was given up and will not be run: ${stale.message}` });
  if (b.serviceBatchId) await ctx.client.deleteBatch(Number(b.serviceBatchId)).catch((e: unknown) => log(ctx, 'warn', `DocSync could not remove the given-up upload from the service: ${message(e)}`, { detail: `batch ${b.name}` }));
  return fresh;
}
