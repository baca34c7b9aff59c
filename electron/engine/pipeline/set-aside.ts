/**
 * A file the watcher found but DocSync does not take as it is: one it cannot read (failed,
 * unreadable.ts) or a link leading outside its hot folder (skipped, outside-link.ts). Its row says
 * why, and it is taken in again once that changes (intake.ts).
 */
import { basename } from 'node:path';
import type { FileState } from '../../../shared/file-states.js';
import type { FileRow } from '../store/index.js';
import type { StableFile } from '../watch/watcher.js';
import { setState, type PipelineContext } from './context.js';

/** Records the version seen as `state` with `why` (once: a rescan that finds it so again adds nothing). `setAside`: a row already set aside so. */
export function markSetAside(ctx: PipelineContext, folderId: number, obs: StableFile, o: { state: FileState; why: string; setAside: (f: FileRow) => boolean }): void {
  ctx.store.transaction(() => {
    if (!ctx.store.folders.get(folderId)) return;
    const seen = { size: obs.size, mtimeMs: Math.floor(obs.mtimeMs), sha256: null };
    const known = ctx.store.files.byPath(obs.path);
    // The same path while it waits (not in a closed batch, or set aside so before) keeps its row.
    const waiting = known && known.batchId === null && ['discovered', 'stable', 'queued'].includes(known.state);
    let row: FileRow;
    if (known && (waiting || o.setAside(known))) {
      if (known.error === o.why && known.size === seen.size && known.mtimeMs === seen.mtimeMs) return;
      ctx.store.files.observe(known.id, seen);
      row = ctx.store.files.get(known.id) as FileRow;
    } else {
      row = ctx.store.files.add({ folderId, path: obs.path, ...seen, originalName: basename(obs.path) });
      ctx.emit('file', { file: row, from: null });
    }
    if (row.state !== o.state || row.error !== o.why) setState(ctx, row.id, o.state, o.why);
  });
}
