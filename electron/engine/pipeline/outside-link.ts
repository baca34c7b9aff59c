/**
 * A link to a file outside its hot folder (watch/links.ts) shows in Activity as skipped with the reason,
 * and is taken after all once the folder allows such links or the link is replaced by a file.
 */
import { basename } from 'node:path';
import type { FileRow } from '../store/index.js';
import type { StableFile } from '../watch/watcher.js';
import { OUTSIDE_LINK } from '../watch/links.js';
import { shown } from '../../../shared/shown.js';
import { setState, type PipelineContext } from './context.js';

/** A row skipped only because it was a link leading outside its folder. */
export const isOutsideLink = (f: FileRow): boolean => f.state === 'skipped' && f.batchId === null && (f.error?.startsWith(OUTSIDE_LINK) ?? false);

/** The reason stored: the first line is shown on the row; where the link leads, behind it. */
export const outsideLinkReason = (real: string): string => `${OUTSIDE_LINK}\nIt leads to ${shown(real)}`;

/** Records the version seen as skipped (once: a rescan that finds the same link adds nothing). */
export function markOutsideLink(ctx: PipelineContext, folderId: number, obs: StableFile, real: string): void {
  const why = outsideLinkReason(real);
  ctx.store.transaction(() => {
    if (!ctx.store.folders.get(folderId)) return;
    const seen = { size: obs.size, mtimeMs: Math.floor(obs.mtimeMs), sha256: null };
    const known = ctx.store.files.byPath(obs.path);
    // The same path while it waits (a file swapped for a link before it was batched) keeps its row.
    const waiting = known && known.batchId === null && ['discovered', 'stable', 'queued'].includes(known.state);
    let row: FileRow;
    if (known && (waiting || isOutsideLink(known))) {
      if (known.error === why && known.size === seen.size && known.mtimeMs === seen.mtimeMs) return;
      ctx.store.files.observe(known.id, seen);
      row = ctx.store.files.get(known.id) as FileRow;
    } else {
      row = ctx.store.files.add({ folderId, path: obs.path, ...seen, originalName: basename(obs.path) });
      ctx.emit('file', { file: row, from: null });
    }
    if (row.state !== 'skipped' || row.error !== why) setState(ctx, row.id, 'skipped', why);
  });
}
