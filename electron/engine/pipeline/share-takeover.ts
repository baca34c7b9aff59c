/**
 * Work taken over from an agent whose heartbeat went stale (issue 15), brought into this agent's
 * store as if it had been this agent's all along and it had crashed:
 * - a content not yet in a batch is taken in afresh (its file queued and planned);
 * - a batch gets a local batch row with the SAME name, its service batch recorded, its files
 *   'uploaded' or 'queued' as the record says. The uploader then sends only what is missing, and
 *   ensureRun finds a run already started by its `docsync:<name>` tag instead of starting another.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { sharedFilePath } from '../config/local-names.js';
import type { Share, ShareBatchFile, Takeover } from '../share/api.js';
import type { FileRow, FolderRow } from '../store/index.js';
import { inWords, log, setState, technical, type PipelineContext } from './context.js';

/** What the engine does with taken-over work: plan a queued file into its folder's next batch, upload a batch. */
export interface TakeoverHost {
  plan(folderId: number, f: FileRow): void;
  /** Takes a file out of its folder's open batch (it goes into a batch taken over instead). */
  unplan(folderId: number, path: string): void;
  enqueue(batchId: number): void;
}

/** States a local row may be in to be the file taken over (anything else is a different sighting). */
const REUSABLE = new Set(['elsewhere', 'discovered', 'stable', 'queued']);

/**
 * Where the file a record names lies in this folder; null (and a warning) when the record names a
 * place outside it: records come through the service, and such a file is never uploaded, moved or deleted.
 */
function recordedPath(ctx: PipelineContext, folder: FolderRow, rel: string): string | null {
  try {
    return sharedFilePath(folder.path, rel);
  } catch (e) {
    log(ctx, 'warn', `${(e as Error).message} It was recorded by another agent of the shared folder ${folder.path}.`, { detail: technical(e) });
    return null;
  }
}

/** This folder's row for the file at `rel` with content `sha`, made when this agent has none. Null when the file is gone. */
async function rowFor(ctx: PipelineContext, folder: FolderRow, f: { sha256: string; rel: string; size?: number; mtimeMs?: number }): Promise<FileRow | null> {
  const path = recordedPath(ctx, folder, f.rel);
  if (path === null) return null;
  const known = ctx.store.files.byPath(path);
  if (known && known.sha256 === f.sha256 && REUSABLE.has(known.state) && (known.state !== 'queued' || known.batchId === null)) return known;
  const st = await stat(path).catch(() => null);
  if (!st?.isFile()) return null;
  const row = ctx.store.files.add({ folderId: folder.id, path, size: f.size ?? st.size, mtimeMs: f.mtimeMs ?? st.mtimeMs, sha256: f.sha256, originalName: basename(path) });
  ctx.emit('file', { file: row, from: null });
  return row;
}

/** A claimed content whose holder went away before batching it: queued here. */
async function takeContent(ctx: PipelineContext, host: TakeoverHost, folder: FolderRow, share: Share, t: { sha256: string; rel: string }): Promise<string | null> {
  // Already on its way here (lost and won back, or a member of a batch taken over in the same poll): not queued twice.
  if (ctx.store.share.contentInWork(folder.id, t.sha256, -1)) return null;
  const row = await rowFor(ctx, folder, t);
  if (!row) {
    // Its file is gone from the folder: nothing to process, and another agent may claim it if it comes back.
    await share.release(t.sha256);
    return null;
  }
  share.unwatch(t.sha256);
  if (row.state === 'queued') return null; // already waiting in this agent's open batch
  const queued = ctx.store.transaction(() => {
    ctx.store.files.setHandledBy(row.id, null);
    if (row.state !== 'stable') setState(ctx, row.id, 'stable');
    return setState(ctx, row.id, 'queued');
  });
  host.plan(folder.id, queued);
  return `${row.originalName}: its agent stopped before uploading it; this one takes it over.`;
}

/** A batch whose holder went away: recorded here under its own name and sent on from where it was. */
async function takeBatch(
  ctx: PipelineContext, host: TakeoverHost, folder: FolderRow, share: Share, t: Extract<Takeover, { kind: 'batch' }>,
  note: (batch: string, dropped: { safeName: string }[]) => void,
): Promise<string> {
  const r = t.record;
  // This agent's own batch coming back (after a restart, or given up and taken back): found by its unique name.
  const named = ctx.store.share.batchNamed(r.name);
  const existing = named !== undefined ? ctx.store.runs.batch(named) : r.serviceBatchId ? ctx.store.runs.batchByServiceId(r.serviceBatchId, ctx.serviceId) : undefined;
  const rows: { file: ShareBatchFile; row: FileRow | null }[] = [];
  // A member already in another batch of this agent stays there: out of this batch, like one another agent holds.
  const elsewhereHere: ShareBatchFile[] = [];
  for (const file of r.files) {
    const inWork = ctx.store.share.contentInWork(folder.id, file.sha256, -1);
    const path = recordedPath(ctx, folder, file.rel);
    const known = path === null ? undefined : ctx.store.files.byPath(path);
    const inOtherBatch = inWork && !(known && known.sha256 === file.sha256 && (known.batchId === null || known.batchId === existing?.id));
    if (inOtherBatch) elsewhereHere.push(file);
    else rows.push({ file, row: path === null ? null : await rowFor(ctx, folder, file) });
  }
  const batchId = ctx.store.transaction(() => {
    let id: number;
    if (existing) {
      // This agent had the batch before and gave it up: it is its own again.
      id = existing.id;
      ctx.store.share.reviveBatch(id);
      if (r.serviceBatchId && !existing.serviceBatchId) ctx.store.runs.setBatchService(id, r.serviceBatchId, r.servicePath, ctx.serviceId);
    } else {
      id = ctx.store.runs.addBatch({ folderId: folder.id, name: r.name, plan: r.plan }).id;
      ctx.store.runs.closeBatch(id);
      if (r.serviceBatchId) ctx.store.runs.setBatchService(id, r.serviceBatchId, r.servicePath, ctx.serviceId);
    }
    for (const { file, row } of rows) {
      if (!row) continue;
      if (row.batchId === null) host.unplan(folder.id, row.path);
      const servicePath = r.servicePath ? `${r.servicePath}/${file.safeName}` : null;
      ctx.store.files.assign(row.id, { safeName: file.safeName, batchId: id, servicePath });
      ctx.store.files.setHandledBy(row.id, null);
      if (file.uploaded) {
        setState(ctx, row.id, 'uploaded');
      } else {
        if (row.state !== 'stable' && row.state !== 'queued') setState(ctx, row.id, 'stable');
        if (row.state !== 'queued') setState(ctx, row.id, 'queued');
      }
    }
    return id;
  });
  for (const { file } of rows) share.unwatch(file.sha256);
  // A file not uploaded whose local copy is gone cannot be sent: it stays out of the batch, and
  // another agent may claim its content if it comes back.
  for (const x of rows) if (!x.row && !x.file.uploaded) await share.release(x.file.sha256).catch(() => undefined);
  // Files another agent holds are taken out of the service batch before its run; a batch whose run was
  // started already keeps them (that run has them; taking them out only hid from the service batch a
  // file its holder finished in that very run: seen by the three-agent test).
  note(r.name, r.run ? [] : [...t.dropped, ...elsewhereHere].map((d) => ({ safeName: d.safeName })));
  host.enqueue(batchId);
  return `Batch ${r.name}: its agent stopped${r.run ? ' while its run was going' : ''}; this one takes it over${t.dropped.length ? ` without ${t.dropped.length === 1 ? 'one file' : `${t.dropped.length} files`} another agent holds` : ''}.`;
}

/** Brings each takeover in; returns a line for the log about each. A takeover that fails is logged and left to the next poll's takeovers. */
export async function importTakeovers(
  ctx: PipelineContext, host: TakeoverHost, folder: FolderRow, share: Share, takeovers: readonly Takeover[],
  note: (batch: string, dropped: { safeName: string }[]) => void,
): Promise<string[]> {
  const lines: string[] = [];
  // Batches first: a content taken alone in the same poll may be one of their members.
  const ordered = [...takeovers.filter((t) => t.kind === 'batch'), ...takeovers.filter((t) => t.kind === 'content')];
  for (const t of ordered) {
    try {
      const line = t.kind === 'content' ? await takeContent(ctx, host, folder, share, t) : await takeBatch(ctx, host, folder, share, t, note);
      if (line) lines.push(line);
    } catch (e) {
      log(ctx, 'error', `DocSync could not take over work of a stopped agent: ${inWords(e)}`, { detail: `${folder.path}: ${technical(e)}` });
    }
  }
  return lines;
}
