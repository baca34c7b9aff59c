/**
 * A file the watcher found but DocSync cannot read (no read permission, a disk error): it shows in
 * the queue as failed with the reason, and is taken in again once it can be read (intake.ts).
 */
import { open } from 'node:fs/promises';
import type { FileRow } from '../store/index.js';
import type { StableFile } from '../watch/watcher.js';
import type { PipelineContext } from './context.js';
import { markSetAside } from './set-aside.js';

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
  markSetAside(ctx, folderId, obs, { state: 'failed', why, setAside: isUnreadable });
}
