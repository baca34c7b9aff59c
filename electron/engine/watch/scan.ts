/**
 * Full scan of a hot folder: every candidate file with its size and mtime. One readdir per folder (with file
 * types) and one stat per candidate file; stats run with bounded concurrency. Files or folders that vanish
 * mid-scan are skipped; symlinked folders are not followed (no loops, nothing outside the folder: issue
 * 26), symlinked files are stat'ed through (whether one is taken is decided as it is taken: links.ts).
 */
import { opendir, realpath, stat } from 'node:fs/promises';
import { statSeen } from '../pipeline/file-worker.js';
import path from 'node:path';
import type { PathFilter } from './ignore.js';

export interface FileObservation {
  /** Absolute path. */
  path: string;
  size: number;
  mtimeMs: number;
}

export interface ScanEntry extends FileObservation {
  /** Relative to the scanned folder, `/` separators. */
  rel: string;
}

export interface ScanOptions {
  recursive: boolean;
  filter: PathFilter;
  /** Parallel stats; default 64. */
  concurrency?: number;
  /** Checked between folders; an aborted scan rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Scan only this folder (relative, `/` separators) and what is below it; default: the whole tree. */
  under?: string;
  /** Called with each folder's absolute path right before it is listed (to watch it first). */
  onFolder?: (abs: string) => void;
  /**
   * Called with each file as it is seen, instead of collecting them in `files` (a scan of 50,000 files
   * held an entry for each until the end: about 9 MB, at every periodic rescan).
   */
  onFile?: (entry: ScanEntry) => void;
}

export interface ScanResult {
  /** The files seen; empty when `onFile` took them. */
  files: ScanEntry[];
  /** How many files were seen. */
  seen: number;
  /** Folders that could not be read (permissions), relative; the root's own failure throws instead. */
  unreadable: string[];
  /** realpath of the root, as the scan began. */
  realRoot: string;
}

const GONE = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'ELOOP']);
const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

export async function scanFolder(root: string, opts: ScanOptions): Promise<ScanResult> {
  const rootStat = await stat(root);
  if (!rootStat.isDirectory()) throw Object.assign(new Error(`not a folder: ${root}`), { code: 'ENOTDIR' });
  const realRoot = await realpath(root);
  // A folder looked at on its own (a change event named it) is listed only when no link leads there:
  // a link to a folder, or a subfolder swapped for one, would take the scan outside the hot folder.
  if (opts.under) {
    const real = await realpath(path.join(root, opts.under)).catch(() => null);
    if (real !== path.join(realRoot, opts.under)) return { files: [], seen: 0, unreadable: [], realRoot };
  }
  const concurrency = Math.max(1, opts.concurrency ?? 64);
  const files: ScanEntry[] = [];
  let seen = 0;
  const found = opts.onFile ?? ((e: ScanEntry): void => void files.push(e));
  const unreadable: string[] = [];
  const dirs: string[] = [opts.under ?? ''];
  let pending: { abs: string; rel: string }[] = [];

  const statAll = async (): Promise<void> => {
    const batch = pending;
    pending = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batch.length) {
        const item = batch[next++]!;
        try {
          // In the file worker, many at once (file-worker.ts): a scan of 10,000 files is not 10,000 trips to the thread pool.
          const st = await statSeen(item.abs);
          if (st.isFile) {
            seen++;
            found({ path: item.abs, rel: item.rel, size: st.size, mtimeMs: st.mtimeMs });
          }
        } catch (err) {
          if (!GONE.has(code(err) ?? '')) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, batch.length) }, worker));
  };

  while (dirs.length > 0) {
    opts.signal?.throwIfAborted();
    const relDir = dirs.pop()!;
    const absDir = relDir === '' ? root : path.join(root, relDir);
    opts.onFolder?.(absDir);
    let dir;
    try {
      dir = await opendir(absDir, { bufferSize: 256 });
    } catch (err) {
      if (relDir === '') throw err;
      if (code(err) === 'EACCES' || code(err) === 'EPERM') unreadable.push(relDir);
      else if (!GONE.has(code(err) ?? '')) throw err;
      continue;
    }
    try {
      for await (const ent of dir) {
        const rel = relDir === '' ? ent.name : `${relDir}/${ent.name}`;
        if (ent.isDirectory()) {
          if (opts.recursive && opts.filter.dirAllowed(rel)) dirs.push(rel);
        } else if (ent.isFile() || ent.isSymbolicLink()) {
          if (opts.filter.fileAllowed(rel)) pending.push({ abs: path.join(absDir, ent.name), rel });
        }
        if (pending.length >= 4096) await statAll();
      }
    } catch (err) {
      // the folder vanished while being listed
      if (!GONE.has(code(err) ?? '')) throw err;
    }
  }
  await statAll();
  return { files, seen, unreadable, realRoot };
}
