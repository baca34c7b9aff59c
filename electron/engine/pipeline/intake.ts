import { basename } from 'node:path';
import type { HotFolderSettings } from '../../../shared/hot-folder.js';
import type { FileRow, FileState, NewFile } from '../store/index.js';
import type { StableFile } from '../watch/watcher.js';
import { BatchNames } from '../watch/safe-names.js';
import { setState, type PipelineContext } from './context.js';
import { hashSeenFile } from './file-worker.js';
import { cannotRead, isUnreadable, markUnreadable } from './unreadable.js';
import { isOutsideLink, markOutsideLink } from './outside-link.js';
import { whereLeads } from '../watch/links.js';
import type { BatchPlan } from './plan.js';
import { randomUUID } from 'node:crypto';
import { shown } from '../../../shared/shown.js';

/**
 * A stable file seen by a folder's watcher becomes a file row ready to be batched, unless this
 * version was handled already (a restart's first scan sees every kept file again) or its content
 * was processed before. Returns the row to batch, or null.
 * `realRoot` (realpath of the folder) turns on the link rule (watch/links.ts); `onSkipped`: a file
 * waiting to be batched was just set aside.
 */
export async function intake(
  ctx: PipelineContext, folderId: number, settings: HotFolderSettings, obs: StableFile, onUnreadable?: (path: string) => void,
  links?: { realRoot: string; onSkipped: (path: string) => void },
): Promise<FileRow | null> {
  const mtimeMs = Math.floor(obs.mtimeMs);
  const known = ctx.store.files.byPath(obs.path);
  if (known && known.size === obs.size && known.mtimeMs === mtimeMs && known.state !== 'discovered' && !isUnreadable(known) && !isOutsideLink(known)) return null;
  let sha: string;
  try {
    // Where the path leads, looked at now, as it is taken (a file may have become a link since the
    // scan); the uploader looks again at the very file it reads (uploader.ts).
    const leads = links ? await whereLeads(obs.path, settings.path, links.realRoot) : undefined;
    if (leads === null) return null; // a dangling link, or gone: nothing to take
    // The link's target is taken as a file of its own (when the folder's rules take it): never twice.
    if (leads?.to === 'inside') return null;
    if (leads?.to === 'outside' && !settings.followLinks) return skipOutside(ctx, folderId, obs, leads.real.real, links?.onSkipped);
    sha = await hashSeenFile(obs.path, obs.size);
  } catch (err) {
    const why = cannotRead(err);
    if (why === null) return null; // gone again: the next scan will say
    markUnreadable(ctx, folderId, obs, why);
    onUnreadable?.(obs.path);
    return null;
  }
  // The row and its steps to queued go into the next group commit with other files' writes of the
  // same moment: a drop of thousands of files commits once per group, not once or three times per
  // file (measured: the commits were most of the time taken per file). Resolves once stored.
  return ctx.commit(() => {
    // The folder may have been removed while this file was hashed: nothing to take it in for.
    if (!ctx.store.folders.exists(folderId)) return null;
    // Read again: another intake of the same path may have finished while this one was hashing.
    const existing = ctx.store.files.byPath(obs.path);
    if (existing && existing.size === obs.size && existing.mtimeMs === mtimeMs && existing.state !== 'discovered' && !isUnreadable(existing) && !isOutsideLink(existing)) return null;
    let row: FileRow;
    // A row not yet in a closed batch (waiting to settle again, or waiting in the open batch) is the same
    // file: it takes the new version. A second row would leave the first one queued forever. So is a
    // row that failed only because it could not be read: it is taken now that it can; and so is a
    // link skipped for leading outside, now that the folder allows it or it is a file.
    const notBatched = existing && existing.batchId === null && (existing.state === 'stable' || existing.state === 'queued');
    if (existing && (existing.state === 'discovered' || notBatched || isUnreadable(existing) || isOutsideLink(existing))) {
      ctx.store.files.observe(existing.id, { size: obs.size, mtimeMs, sha256: sha });
      row = ctx.store.files.get(existing.id) as FileRow;
    } else {
      const file = { folderId, path: obs.path, size: obs.size, mtimeMs, sha256: sha, originalName: basename(obs.path) };
      // The usual case, a new file of new content: its row goes in once in its last step, with a history row
      // per step (discovered, stable, queued), not inserted then updated twice (issue 14, per-file statements).
      if (settings.reprocessDuplicates || !ctx.store.files.doneWithSameContent(sha, -1, ctx.serviceId)) return addedThrough(ctx, file, settings.share ? ['discovered', 'stable'] : ['discovered', 'stable', 'queued']);
      row = ctx.store.files.add(file);
      ctx.emit('file', { file: row, from: null });
    }
    if (!settings.reprocessDuplicates) {
      const dup = ctx.store.files.doneWithSameContent(sha, row.id, ctx.serviceId);
      if (dup) {
        // A reason, not an error: first line for the row, the first file's path behind it.
        setState(ctx, row.id, 'skipped', `Already processed: same content as ${shown(dup.originalName)}\n${shown(dup.path)}`);
        return null;
      }
    }
    // A shared folder's file waits 'stable' until its content is claimed (shared-folder.ts).
    if (settings.share) return row.state === 'stable' ? row : setState(ctx, row.id, 'stable');
    if (row.state === 'queued') return row;
    setState(ctx, row.id, 'stable');
    return setState(ctx, row.id, 'queued');
  });
}

function skipOutside(ctx: PipelineContext, folderId: number, obs: StableFile, real: string, onSkipped?: (path: string) => void): null {
  markOutsideLink(ctx, folderId, obs, real);
  onSkipped?.(obs.path);
  return null;
}

/** A new file recorded through its first steps at once (files.addThrough), each step announced as setState would. */
function addedThrough(ctx: PipelineContext, file: NewFile, steps: FileState[]): FileRow {
  const row = ctx.store.files.addThrough(file, steps);
  steps.forEach((state, i) => ctx.emit('file', { file: i === steps.length - 1 ? row : { ...row, state }, from: i === 0 ? null : (steps[i - 1] as FileState) }));
  return row;
}

/**
 * Records a closed batch with its plan, gives its files safe names unique within it, in one
 * transaction: from here a restart finishes the batch.
 */
export function recordBatch(ctx: PipelineContext, folderId: number | null, plan: BatchPlan, fileIds: number[]): number {
  return ctx.store.transaction(() => {
    const name = `docsync-${new Date().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
    const b = ctx.store.runs.addBatch({ folderId, name, plan: JSON.stringify(plan) });
    ctx.store.runs.closeBatch(b.id);
    const names = new BatchNames();
    for (const id of fileIds) {
      const f = ctx.store.files.get(id) as FileRow;
      ctx.store.files.assign(id, { safeName: names.assign(f.originalName), batchId: b.id, servicePath: null });
    }
    ctx.freshBatches?.add(b.id);
    return b.id;
  });
}
