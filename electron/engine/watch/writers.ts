/**
 * Which files some program has open for writing, on Linux, read from /proc (what `fuser`/`lsof` do): each
 * process's /proc/<pid>/fd links name its open files, /proc/<pid>/fdinfo/<fd> its open flags. Written here
 * rather than taken from the registry: the packages found spawn lsof or fuser (not installed everywhere,
 * a process per look) and none reads the write flag.
 *
 * Only processes whose /proc entries we may read are seen: all of them when DocSync runs as root, else
 * those of our own user that are dumpable. A file owned by another user is written by processes we
 * cannot see, so for it the answer is "cannot tell". Programs of our user that hide their /proc entries
 * (a file server that switched to our user, as Samba does) are not seen either: the caller keeps a
 * short unchanged-size rule beside this look (QUICK_STABLE_MS).
 */
import { openForWritingSeen, ownerSeen } from '../pipeline/file-worker.js';

/** Files looked at at once (their owner and real path, in the file worker). */
const LOOKS_AT_ONCE = 64;

/** Available where /proc lists processes' open files. */
export const canSeeWriters = process.platform === 'linux';

/**
 * For each path: true when a process has it open for writing, false when none we can see has, and
 * absent when this cannot be told (not Linux, the file is gone or belongs to another user).
 * The looks are made in the file worker (file-worker.ts): with async fs they were two trips to the
 * thread pool a file plus one a process and one an open file, all on the engine's main thread.
 */
export async function openForWriting(paths: readonly string[]): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  if (!canSeeWriters || paths.length === 0) return out;
  const uid = process.getuid?.();
  // /proc links name the real path: a hot folder reached through a symlink is compared as such.
  const wanted = new Map<string, string>();
  // LOOKS_AT_ONCE at a time: a drop of 50,000 settling files asked about all of them at once (the
  // engine's peak heap grew with the size of the drop).
  let next = 0;
  const looker = async (): Promise<void> => {
    for (let i = next++; i < paths.length; i = next++) {
      const p = paths[i] as string;
      const o = await ownerSeen(p).catch(() => null);
      if (!o?.isFile || (uid !== 0 && o.uid !== uid)) continue;
      wanted.set(o.real, p);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKS_AT_ONCE, paths.length) }, looker));
  if (wanted.size === 0) return out;
  for (const p of wanted.values()) out.set(p, false);
  for (const real of await openForWritingSeen([...wanted.keys()])) out.set(wanted.get(real) as string, true);
  return out;
}
