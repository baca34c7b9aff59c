/**
 * What DocSync keeps is its owner's alone (issue 26): invoices and payslips sit in the store, its WAL,
 * the downloaded PDFs and the staged drops, on machines other accounts share.
 *
 * - Each host makes every file it creates private from its first line (umask 077), so what is added
 *   later (logs, SQLite's WAL and SHM, a library's temporary files) is private without a rule of its own.
 * - The folders a user chose (archive, error and output folders, exports) get the modes the user's own
 *   umask gives: the user decided where those go and who reads them (`asUserChose`).
 * - The data home itself is made 0700 and, where an older version left it open, tightened once
 *   (`tightenDataHome`).
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isMainThread } from 'node:worker_threads';

export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/** The umask the process started with; null until a host called `privateByDefault` (then nothing is chmodded back). */
let userUmask: number | null = null;

/** Called first by each host (the CLI, the desktop shell): from here on, what this process creates is private. */
export function privateByDefault(): void {
  // Worker threads cannot set it, and share their process's.
  if (userUmask !== null || !isMainThread || process.platform === 'win32') return;
  userUmask = process.umask(0o077);
}

/**
 * Gives a file or folder the user chose to have (an export, a file in an output, archive or error folder)
 * the mode the user's own umask would have given it.
 */
export async function asUserChose(path: string, kind: 'file' | 'dir'): Promise<void> {
  if (userUmask === null) return;
  await chmod(path, (kind === 'dir' ? 0o777 : 0o666) & ~userUmask);
}

/** `mkdir -p` of a folder the user chose: each folder it creates gets the user's own mode. */
export async function mkdirAsUserChose(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined || userUmask === null) return;
  await asUserChose(first, 'dir');
  let at = first;
  for (const part of relative(first, dir).split(sep).filter(Boolean)) {
    at = join(at, part);
    await asUserChose(at, 'dir');
  }
}

/**
 * Makes a database file private before SQLite opens it: created empty and 0600 when missing, made 0600
 * when open to others, with its WAL and SHM (SQLite gives those the main file's mode when it makes them).
 */
export function privateDatabaseAt(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  closeSync(openSync(path, 'a', PRIVATE_FILE));
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (st && (st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(p, st.mode & PRIVATE_FILE);
  }
}

/**
 * Makes the data home private: created 0700; when it exists open to others (an older version made it
 * 0755 and its files 0644), every folder below becomes 0700 and every file 0600. Returns how many were
 * tightened, so the host says so once. Links are not followed; what another account owns is left alone.
 */
export function tightenDataHome(home: string): number {
  mkdirSync(home, { recursive: true, mode: PRIVATE_DIR });
  const st = statSync(home);
  // A private home keeps everyone else out of everything below it: no need to walk it at every start.
  if ((st.mode & 0o077) === 0 || process.platform === 'win32') return 0;
  let changed = 0;
  const tighten = (path: string, isDir: boolean): void => {
    const s = lstatSync(path);
    if (s.isSymbolicLink() || s.uid !== process.getuid?.()) return;
    if ((s.mode & 0o077) !== 0) {
      chmodSync(path, s.mode & (isDir ? PRIVATE_DIR : PRIVATE_FILE));
      changed++;
    }
    if (!isDir) return;
    for (const e of readdirSync(path, { withFileTypes: true })) {
      if (e.isDirectory() || e.isFile()) tighten(join(path, e.name), e.isDirectory());
    }
  };
  tighten(home, true);
  return changed;
}

/** What DocSync says, once, after it tightened an older data home. */
export const tightenedNotice = (home: string, n: number): string =>
  `DocSync made its data folder (${home}) readable by you alone: an earlier version had left ${n === 1 ? 'one file or folder' : `${n} files and folders`} there open to other accounts on this computer.`;
