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
import { readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';

/** O_ACCMODE bits of fdinfo's octal `flags`: 1 write-only, 2 read-write. */
const ACCESS_MODE = 0o3;

/** Files looked at at once (stat and realpath). */
const LOOKS_AT_ONCE = 64;

/** Available where /proc lists processes' open files. */
export const canSeeWriters = process.platform === 'linux';

/**
 * For each path: true when a process has it open for writing, false when none we can see has, and
 * absent when this cannot be told (not Linux, the file is gone or belongs to another user).
 */
export async function openForWriting(paths: readonly string[]): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  if (!canSeeWriters || paths.length === 0) return out;
  const uid = process.getuid?.();
  // /proc links name the real path: a hot folder reached through a symlink is compared as such.
  const wanted = new Map<string, string>();
  // LOOKS_AT_ONCE at a time: a drop of 50,000 settling files asked about all of them at once, a stat,
  // a realpath and their promises each (the engine's peak heap grew with the size of the drop).
  let next = 0;
  const looker = async (): Promise<void> => {
    for (let i = next++; i < paths.length; i = next++) {
      const p = paths[i] as string;
      const [st, real] = await Promise.all([stat(p).catch(() => null), realpath(p).catch(() => null)]);
      if (!st?.isFile() || real === null || (uid !== 0 && st.uid !== uid)) continue;
      wanted.set(real, p);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKS_AT_ONCE, paths.length) }, looker));
  if (wanted.size === 0) return out;
  for (const p of wanted.values()) out.set(p, false);
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  await Promise.all(
    pids.map(async (pid) => {
      // A process that ended, or one we may not look into, has nothing to say.
      const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
      await Promise.all(
        fds.map(async (fd) => {
          const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
          const p = wanted.get(target);
          if (p === undefined || out.get(p)) return;
          const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8').catch(() => '');
          const flags = /^flags:\s*([0-7]+)/m.exec(info);
          if (flags && (parseInt(flags[1] as string, 8) & ACCESS_MODE) !== 0) out.set(p, true);
        }),
      );
    }),
  );
  return out;
}
