// A batch's service path (mount point and path suffix): the create call answers only the batch's id
// (spec 2.1), so the path costs a GET of the batch. That GET is made once the batch's run has started,
// while the service processes it, not as a round trip before the first upload (issue 27).
import type { BatchRow } from '../store/index.js';
import type { PipelineContext } from './context.js';

/** Where the service keeps a batch's files (the create call answers only its id, spec 2.1). */
export async function servicePathOf(ctx: PipelineContext, serviceBatchId: number, signal?: AbortSignal): Promise<string | null> {
  const info = await ctx.client.getBatch(serviceBatchId, signal ? { signal } : {});
  return info.mount_point && info.path_suffix ? `${info.mount_point}/${info.path_suffix}` : null;
}

/**
 * A batch's service path, asked for once its run has started, while the service processes it: the
 * path is needed only to read a file back from the service (a dropped file's original, after it is
 * done), so it need not be a round trip before the first upload. The follower awaits it (or asks
 * again, after a crash or a failed ask) before the run's files finish: `ensureBatchPath`.
 */
export function batchPathLater(ctx: PipelineContext, b: BatchRow, signal: AbortSignal): void {
  if (b.servicePath || !b.serviceBatchId || !ctx.batchPaths || ctx.batchPaths.has(b.id)) return;
  const asked = ensureBatchPath(ctx, b.id, signal)
    .catch(() => undefined)
    .finally(() => ctx.batchPaths?.delete(b.id));
  ctx.batchPaths.set(b.id, asked);
}

/** The batch's service path stored, and given to its files: asked for unless known or being asked. */
export async function ensureBatchPath(ctx: PipelineContext, batchId: number, signal?: AbortSignal): Promise<void> {
  const pending = ctx.batchPaths?.get(batchId);
  if (pending) await pending;
  const b = ctx.store.runs.batch(batchId);
  if (!b || b.servicePath || !b.serviceBatchId || b.serviceId !== ctx.serviceId) return;
  const path = await servicePathOf(ctx, Number(b.serviceBatchId), signal);
  if (path === null) return;
  ctx.store.transaction(() => {
    ctx.store.runs.setBatchService(b.id, b.serviceBatchId as string, path, b.serviceId);
    ctx.store.files.placeBatch(b.id, path);
  });
}
