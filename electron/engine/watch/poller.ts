/**
 * Change hints for polled folders (network shares, where OS events do not arrive), with the same
 * surface as FolderHints: folders are added as the watcher's scans reach them. Every interval each
 * folder is stat'ed; only a folder whose mtime moved is listed again (names, no stats), and only
 * the names that came or went are hinted. A tick costs one stat per folder and nothing per file,
 * where chokidar's polling re-listed a changed folder with an lstat of every entry and kept
 * 597 MB over 100,000 files (bench/watch-tree.ts).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ChangeSource, HintSink } from './hints.js';

interface Polled {
  /** When a scan reached the folder (local clock). */
  addedAt: number;
  mtimeMs: number;
  /** Entry names at the last listing; undefined until the first tick lists the folder. */
  names: Set<string> | undefined;
  /** List again on the next tick even if the mtime stays: a second change within the share's mtime resolution looks like none. */
  recheck: boolean;
}

const FIRST_LISTING_SLACK_MS = 3000;
const GONE = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']);
const code = (err: unknown): string => (err as NodeJS.ErrnoException | undefined)?.code ?? '';

export class FolderPoller implements ChangeSource {
  private readonly folders = new Map<string, Polled>();
  private seen: Set<string> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private failing = false;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly sink: HintSink,
    private readonly intervalMs: number,
  ) {
    this.arm();
  }

  /** Number of folders polled. */
  get size(): number {
    return this.folders.size;
  }

  watches(dir: string): boolean {
    return this.folders.has(dir);
  }

  scanStarted(): void {
    this.seen = new Set();
  }

  /** A scan is about to list `dir`: poll it from now on (its first listing is the next tick's). */
  folder(dir: string): void {
    if (this.closed) return;
    this.seen?.add(dir);
    if (!this.folders.has(dir)) this.folders.set(dir, { addedAt: Date.now(), mtimeMs: -1, names: undefined, recheck: false });
  }

  scanEnded(): void {
    const seen = this.seen;
    this.seen = undefined;
    if (!seen) return;
    for (const dir of [...this.folders.keys()]) if (!seen.has(dir)) this.folders.delete(dir);
  }

  forgetTree(dir: string): void {
    const below = dir + path.sep;
    for (const d of [...this.folders.keys()]) if (d === dir || d.startsWith(below)) this.folders.delete(d);
  }

  /** Stops polling; resolves once a tick in progress is over. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.ticking;
  }

  /** One pass over the folders now (the timer's work; tests call it to skip the wait). */
  async tick(): Promise<void> {
    this.ticking ??= this.pass().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private arm(): void {
    if (this.closed) return;
    // The next tick is armed when this one ends: a slow share never stacks passes.
    this.timer = setTimeout(() => {
      void this.tick()
        .catch((err: unknown) => this.sink.error(err instanceof Error ? err : new Error(String(err))))
        .finally(() => this.arm());
    }, this.intervalMs);
  }

  private async pass(): Promise<void> {
    let failed: Error | undefined;
    for (const [dir, f] of [...this.folders]) {
      if (this.closed) return;
      if (this.folders.get(dir) !== f) continue;
      try {
        await this.poll(dir, f);
      } catch (err) {
        if (GONE.has(code(err))) {
          // The folder went away: forget it and let a look at its parent decide (as FolderHints does).
          this.forgetTree(dir);
          this.sink.folder(path.dirname(dir));
        } else {
          failed ??= err as Error;
        }
      }
    }
    // An unreachable share fails every folder: say so once until a pass succeeds again.
    if (failed && !this.failing) this.sink.error(new Error(`cannot poll for changes: ${failed.message}`));
    this.failing = failed !== undefined;
  }

  private async poll(dir: string, f: Polled): Promise<void> {
    const st = await stat(dir);
    if (!st.isDirectory()) throw Object.assign(new Error(`not a folder: ${dir}`), { code: 'ENOTDIR' });
    const moved = st.mtimeMs !== f.mtimeMs;
    if (!moved && !f.recheck && f.names) return;
    const names = new Set(await readdir(dir));
    // The mtime after the listing: a change during the listing then counts as seen, and the
    // listing once more on the next tick (recheck) finds it by name.
    const after = await stat(dir);
    if (this.closed || this.folders.get(dir) !== f) return;
    const before = f.names;
    f.mtimeMs = after.mtimeMs;
    f.names = names;
    f.recheck = moved || after.mtimeMs !== st.mtimeMs;
    if (!before) {
      // First listing, one interval after the scan listed the folder. If the folder changed since
      // shortly before then (mtimes have a resolution, 2 s on some shares, and a share's clock is
      // not quite ours), what changed in between is unknown: the watcher looks again.
      if (f.mtimeMs >= f.addedAt - FIRST_LISTING_SLACK_MS) this.rescan(dir);
      return;
    }
    let changed = false;
    const hint = (n: string): void => {
      changed = true;
      this.sink.hint(path.join(dir, n));
    };
    for (const n of names) if (!before.has(n)) hint(n);
    for (const n of before) if (!names.has(n)) hint(n);
    // Same names, new mtime: an entry was replaced by a rename onto its name. Which one, only a
    // listing with stats can tell.
    if (moved && !changed) this.rescan(dir);
  }

  /** Have the watcher look at everything in `dir` (a folder below the root is hinted, the root rescanned); its listing here stays. */
  private rescan(dir: string): void {
    if (dir === this.root) this.sink.folder(dir);
    else this.sink.hint(dir);
  }
}
