/**
 * A file the watcher found but DocSync cannot read (no read permission, a disk error): it shows in
 * the queue as failed with the reason, and is taken in again once it can be read (intake.ts).
 */
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { FileRow } from '../store/index.js';
import type { StableFile } from '../watch/watcher.js';
import { setState, type PipelineContext } from './context.js';

const PREFIX = 'DocSync cannot read this file: ';

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'the disk reported a read error',
  EBUSY: 'another program holds it locked',
  EISDIR: 'it is a folder',
};

/** Why a read failed, in a person's words; null when the file is simply gone (the next scan says so). */
export function cannotRead(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (code === 'ENOENT' || code === 'ENOTDIR') return null;
  return PREFIX + (REASONS[code] ?? (code ? `the system said ${code}` : String(err)));
}

/** Why the file cannot be read right now, in a person's words; null when it can (or is gone). */
export async function readProblem(path: string): Promise<string | null> {
  return open(path, 'r').then(
    async (fh) => {
      await fh.close();
      return null;
    },
    (e: unknown) => cannotRead(e),
  );
}

/** A row that failed only because its file could not be read. */
export const isUnreadable = (f: FileRow): boolean => f.state === 'failed' && f.batchId === null && (f.error?.startsWith(PREFIX) ?? false);

/** Records the version seen as failed with `why` (once: a rescan that finds it still unreadable adds nothing). */
export function markUnreadable(ctx: PipelineContext, folderId: number, obs: StableFile, why: string): void {
  ctx.store.transaction(() => {
    if (!ctx.store.folders.get(folderId)) return;
    const seen = { size: obs.size, mtimeMs: Math.floor(obs.mtimeMs), sha256: null };
    const known = ctx.store.files.byPath(obs.path);
    // The same file while it waits (not in a closed batch, or failed unreadable before) keeps its row.
    const waiting = known && known.batchId === null && ['discovered', 'stable', 'queued'].includes(known.state);
    let row: FileRow;
    if (known && (waiting || isUnreadable(known))) {
      if (known.error === why && known.size === seen.size && known.mtimeMs === seen.mtimeMs) return;
      ctx.store.files.observe(known.id, seen);
      row = ctx.store.files.get(known.id) as FileRow;
    } else {
      row = ctx.store.files.add({ folderId, path: obs.path, ...seen, originalName: basename(obs.path) });
      ctx.emit('file', { file: row, from: null });
    }
    if (row.state !== 'failed' || row.error !== why) setState(ctx, row.id, 'failed', why);
  });
}
