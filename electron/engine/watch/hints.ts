/**
 * Change hints from the OS with no model of the tree (issue 4: "watcher events are hints; a scan
 * decides"). Linux (inotify) watches one folder per watch, so each folder gets its own
 * non-recursive fs.watch, added as the watcher's scans reach the folder and closed when a scan no
 * longer finds it; macOS and Windows watch a whole tree natively, so there one recursive fs.watch
 * on the root does. Either way the cost is a handle per folder at most, nothing per file: chokidar,
 * which also lists and stats every file to keep its own tree, took 430 MB over 100,000 files
 * (bench/watch-tree.ts).
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface HintSink {
  /** Something changed at this path (a file or folder, created, changed, renamed or deleted). */
  hint(p: string): void;
  /** Something changed in this folder, the OS did not say what, or its watch broke: watch it afresh and rescan. */
  folder(dir: string): void;
  /** Watching failed in a way the periodic rescan has to make up for. */
  error(err: Error): void;
}

/** Where a watcher's change hints come from: OS watches (FolderHints) or a poller (FolderPoller). */
export interface ChangeSource {
  /** Folders watched or polled. */
  readonly size: number;
  watches(dir: string): boolean;
  /** A full scan begins; `scanEnded` then drops the folders it did not reach. */
  scanStarted(): void;
  /** A scan is about to list `dir`: watch or poll it from now on. */
  folder(dir: string): void;
  scanEnded(): void;
  /** `dir` is gone: stop watching it and the folders below it. */
  forgetTree(dir: string): void;
  close(): void | Promise<void>;
}

/** Errors that mean "no more watches": the OS limit (inotify max_user_watches) or file descriptors. */
const LIMITS = new Set(['ENOSPC', 'EMFILE', 'ENFILE']);
/** The folder went away between the scan and the watch: the next scan will not list it. */
const GONE = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']);

export class FolderHints implements ChangeSource {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Folders seen by the scan in progress (Linux), to close the watches of the others when it ends. */
  private seen: Set<string> | undefined;
  private limited = false;
  private limitReported = false;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly recursive: boolean,
    private readonly sink: HintSink,
    /** Whether the OS watches a tree with one recursive watch; default: on macOS and Windows. */
    private readonly nativeTree = process.platform === 'darwin' || process.platform === 'win32',
  ) {}

  /** Number of watches open. */
  get size(): number {
    return this.watchers.size;
  }

  /** Whether `dir` (absolute) is watched. */
  watches(dir: string): boolean {
    return this.watchers.has(dir);
  }

  /** A full scan begins: folders it reaches are passed to `folder`, then `scanEnded` closes the rest. */
  scanStarted(): void {
    this.seen = new Set();
  }

  /** A scan is about to list `dir` (absolute): watch it first, so nothing created meanwhile is missed. */
  folder(dir: string): void {
    if (this.closed) return;
    this.seen?.add(dir);
    if (this.nativeTree && this.recursive) dir = this.root;
    if (this.watchers.has(dir) || this.limited) return;
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: true, recursive: this.nativeTree && this.recursive });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (LIMITS.has(code)) {
        this.limited = true;
        if (!this.limitReported) this.sink.error(new Error(`cannot watch more folders (${code}): changes below ${dir} and other folders are found by the periodic rescan`));
        this.limitReported = true;
      } else if (!GONE.has(code)) {
        this.sink.error(err as Error);
      }
      return;
    }
    w.on('change', (_event, name) => {
      if (name === null || name === undefined) return this.sink.folder(dir);
      const n = name.toString();
      // The folder itself was deleted or moved (its watch then hears nothing more, even if a folder
      // of that name comes back): a look at the folder decides; for the root, a full scan does.
      if (n === path.basename(dir)) {
        if (dir === this.root) return this.sink.folder(dir);
        this.sink.hint(dir);
      }
      this.sink.hint(path.join(dir, n));
    });
    // The folder itself went away (Windows reports EPERM) or the watch broke: drop it and let the
    // scan the hint causes decide.
    w.on('error', () => {
      this.unwatch(dir);
      this.sink.folder(path.dirname(dir));
    });
    this.watchers.set(dir, w);
  }

  /** The full scan that began with `scanStarted` completed: folders it did not reach lose their watch. */
  scanEnded(): void {
    const seen = this.seen;
    this.seen = undefined;
    if (!seen || (this.nativeTree && this.recursive)) return;
    for (const dir of [...this.watchers.keys()]) if (!seen.has(dir)) this.unwatch(dir);
    // The limit may have gone (folders removed, limit raised): try again on the next scan.
    this.limited = false;
  }

  /** `dir` is gone: close its watch and those of the folders below it. */
  forgetTree(dir: string): void {
    const below = dir + path.sep;
    for (const d of [...this.watchers.keys()]) if (d === dir || d.startsWith(below)) this.unwatch(d);
  }

  close(): void {
    this.closed = true;
    for (const dir of [...this.watchers.keys()]) this.unwatch(dir);
  }

  private unwatch(dir: string): void {
    const w = this.watchers.get(dir);
    if (!w) return;
    this.watchers.delete(dir);
    w.close();
  }
}
