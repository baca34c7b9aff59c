/**
 * One hot folder's watcher (issue 4: "watcher events are hints; a scan decides"). OS change events only
 * tell us where to look: they queue a debounced targeted re-look at the paths named (a new folder is
 * scanned and watched, a vanished one forgotten; a flood of events queues a full rescan instead). The
 * events come from one fs.watch per folder (hints.ts), or from a poller (poller.ts) when the folder is polled
 * (network shares, where OS events do not arrive). A full scan runs on start (each folder watched
 * before it is listed, so nothing falls in between) and every `rescanIntervalMs`, and catches whatever
 * the events miss. Files still settling are looked at again when their stability threshold is due, or
 * sooner under the quick rule (`quickStable`): a file unchanged over its short period that no program
 * has open for writing is stable then.
 * Each version of a file that is proven stable is emitted once as 'stable'; a tracked file that
 * disappears is emitted as 'removed'.
 *
 * Events: 'stable' (StableFile), 'removed' (absolute path), 'scan' (ScanInfo), 'error' (Error; emitted
 * only when someone listens, so a vanished network share never crashes the host).
 */
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { FolderHints, type ChangeSource } from './hints.js';
import { createFilter, type PathFilter } from './ignore.js';
import { FolderPoller } from './poller.js';
import { scanFolder, type FileObservation } from './scan.js';
import { StabilityTracker } from './stability.js';
import { statSeen } from '../pipeline/file-worker.js';

export interface StableFile extends FileObservation {
  /** Relative to the watched folder, `/` separators. */
  rel: string;
}

export interface ScanInfo {
  kind: 'full' | 'targeted';
  /** Candidate files seen (full) or paths looked at (targeted). */
  files: number;
  durationMs: number;
}

export interface FolderWatcherOptions {
  path: string;
  recursive: boolean;
  include?: readonly string[];
  ignore?: readonly string[];
  stabilityMs: number;
  rescanIntervalMs: number;
  polling?: { enabled: boolean; intervalMs: number };
  /** Delay between a watcher event and the re-look it causes; default 250 ms. */
  hintDebounceMs?: number;
  /** More pending hint paths than this turn into one full scan; default 1000. */
  maxTargetedPaths?: number;
  /** Use change events at all (false: scans only); default true. */
  nativeHints?: boolean;
  /** Monotonic clock in ms; default performance.now. */
  now?: () => number;
  /**
   * The quick stability rule: a file unchanged over `ms` that `writers` says no program has open for
   * writing (true: one has; absent: cannot tell) is stable without waiting out `stabilityMs`. Not for
   * polled folders: other machines' handles are not seen.
   */
  quickStable?: { ms: number; writers: (paths: readonly string[]) => Promise<Map<string, boolean>> };
}

interface WatcherEvents {
  stable: [StableFile];
  removed: [string];
  scan: [ScanInfo];
  /** The subfolders that could not be read (absolute, sorted) changed; [] once all can be. */
  unreadable: [string[]];
  error: [Error];
}

const MIN_TIMER_MS = 10;

export class FolderWatcher extends EventEmitter<WatcherEvents> {
  readonly root: string;
  private readonly filter: PathFilter;
  private readonly tracker: StabilityTracker;
  private readonly now: () => number;
  /** Where change hints come from: OS watches, or a poller for folders where OS events do not arrive. */
  private folderHints: ChangeSource | undefined;
  private state: 'new' | 'running' | 'stopped' = 'new';
  private needFull = false;
  private hints = new Set<string>();
  /** Subfolders the scans could not read (absolute). */
  private unreadableDirs = new Set<string>();
  private dueCheck = false;
  private working: Promise<void> | undefined;
  private hintTimer: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: FolderWatcherOptions) {
    super();
    this.root = path.resolve(opts.path);
    this.filter = createFilter({ include: opts.include ?? [], ignore: opts.ignore ?? [] });
    this.tracker = new StabilityTracker(opts.stabilityMs, opts.quickStable?.ms);
    this.now = opts.now ?? (() => performance.now());
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** Starts watching; resolves after the first full scan is done. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`watcher for ${this.root} was already ${this.state === 'running' ? 'started' : 'stopped'}`);
    this.state = 'running';
    const hint = (p: string): void => {
      if (!this.hintIgnored(p)) this.hint('change', p);
    };
    const error = (err: Error): void => this.fail(err);
    if (this.opts.nativeHints !== false && this.opts.polling?.enabled) {
      // A folder to look at is a rescan, with the poller's listings kept (the next changes are told by them).
      const folder = (): void => this.hint('addDir', this.root);
      this.folderHints = new FolderPoller(this.root, { hint, folder, error }, this.opts.polling.intervalMs);
    } else if (this.opts.nativeHints !== false) {
      const folder = (dir: string): void => {
        this.folderHints?.forgetTree(dir);
        this.hint('addDir', this.root);
      };
      this.folderHints = new FolderHints(this.root, this.opts.recursive, { hint, folder, error });
    }
    this.rescanTimer = setInterval(() => this.requestFullScan(), this.opts.rescanIntervalMs);
    this.needFull = true;
    await this.kick();
  }

  /** Stops watching; resolves once polling has stopped and no scan is running. No events after this. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    clearTimeout(this.hintTimer);
    clearTimeout(this.dueTimer);
    clearInterval(this.rescanTimer);
    await Promise.all([this.folderHints?.close(), this.working?.catch(() => undefined)]);
  }

  /** Queue a full rescan (also what the periodic timer does); resolves when it has run. */
  requestFullScan(): Promise<void> {
    this.needFull = true;
    return this.kick();
  }

  /**
   * Forget the version reported for `path` (its reader could not read it): the next look at it, a
   * change event or the periodic rescan, starts it settling again and reports it once more.
   */
  retake(path: string): void {
    this.tracker.forget(path);
  }

  /**
   * The version last reported for `path`, while it is still the one on record: undefined once the
   * file changed (it is reported again when it settles) or went away. A consumer that keeps only the
   * paths of what waits (a drop of 50,000 files) takes each one's version here when its turn comes.
   */
  reported(p: string): StableFile | undefined {
    const v = this.tracker.reportedVersion(p);
    return v && { path: v.path, size: v.size, mtimeMs: v.mtimeMs, rel: this.relOf(p) };
  }

  private relOf(abs: string): string {
    return path.relative(this.root, abs).split(path.sep).join('/');
  }

  /** realpath of the folder as of the last full scan (links.ts); undefined before one succeeded. */
  get realRoot(): string | undefined {
    return this.#realRoot;
  }

  #realRoot: string | undefined;

  /** Number of files tracked (settling or already reported). */
  get tracked(): number {
    return this.tracker.size;
  }

  /** Number of folders watched (one OS watch per folder on Linux) or polled; 0 when scanning only. */
  get watchedFolders(): number {
    return this.folderHints?.size ?? 0;
  }

  /** A scan's file, observed as the scan sees it, at that moment (not collected until the scan's end). */
  private readonly observeNow = (f: FileObservation): void => void this.tracker.observe(f, this.now());

  private hintIgnored(p: string): boolean {
    const rel = path.relative(this.root, p);
    if (rel === '' || rel.startsWith('..')) return false;
    return this.filter.pathIgnored(rel.split(path.sep).join('/'));
  }

  private hint(event: string, p: string): void {
    if (this.state !== 'running') return;
    if (event === 'addDir' || event === 'unlinkDir') this.needFull = true;
    else this.hints.add(path.resolve(p));
    if (this.hints.size > (this.opts.maxTargetedPaths ?? 1000)) this.needFull = true;
    if (this.hintTimer) return;
    this.hintTimer = setTimeout(() => {
      this.hintTimer = undefined;
      void this.kick();
    }, this.opts.hintDebounceMs ?? 250);
  }

  private fail(err: Error): void {
    if (this.state === 'running' && this.listenerCount('error') > 0) this.emit('error', err);
  }

  private hasWork(): boolean {
    return this.needFull || this.hints.size > 0 || this.dueCheck;
  }

  /** Runs the work loop unless it is running already; resolves when no queued work is left. */
  private async kick(): Promise<void> {
    while (this.state === 'running' && this.hasWork()) {
      this.working ??= this.drain()
        .catch((err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))))
        .finally(() => {
          this.working = undefined;
        });
      await this.working;
    }
  }

  private async drain(): Promise<void> {
    while (this.state === 'running' && this.hasWork()) {
      if (this.needFull) {
        this.needFull = false;
        this.hints.clear();
        this.dueCheck = false;
        await this.fullScan();
        await this.quickCheck();
        this.report();
        continue;
      }
      // Hinted paths are at most maxTargetedPaths (more make a full scan); the settling ones may be
      // a whole drop. They are looked at LOOK_CHUNK at a time, each part's stable files reported
      // before the next is looked at: a re-look of 50,000 held an answer for each at once, and the
      // first of them waited for the last.
      const list = [...this.hints];
      this.hints.clear();
      if (this.dueCheck) {
        const hinted = new Set(list);
        for (const p of this.tracker.unsettled()) if (!hinted.has(p)) list.push(p);
      }
      this.dueCheck = false;
      let i = 0;
      do {
        await this.targeted(list.slice(i, i + LOOK_CHUNK));
        await this.quickCheck();
        this.report();
        i += LOOK_CHUNK;
      } while (i < list.length && this.state === 'running');
    }
  }

  private async fullScan(): Promise<void> {
    const t0 = this.now();
    let seen: number;
    let unreadable: string[];
    this.folderHints?.scanStarted();
    this.tracker.beginScan();
    try {
      ({ seen, unreadable, realRoot: this.#realRoot } = await scanFolder(this.root, { recursive: this.opts.recursive, filter: this.filter, onFolder: (d) => this.folderHints?.folder(d), onFile: this.observeNow }));
    } catch (err) {
      // The folder is unreachable (a share went away): keep what is tracked, say why, try again later,
      // with fresh watches (those of a folder that went away hear nothing once it is back).
      this.folderHints?.forgetTree(this.root);
      this.fail(new Error(`cannot scan ${this.root}: ${(err as Error).message}`));
      return;
    }
    if (this.state !== 'running') return;
    this.folderHints?.scanEnded();
    const now = this.now();
    for (const p of this.tracker.endScan()) this.emit('removed', p);
    this.setUnreadable(this.root, unreadable);
    this.emit('scan', { kind: 'full', files: seen, durationMs: now - t0 });
  }

  /** `abs` as a folder below the root that is scanned (relative, `/` separators), else undefined. */
  private folderRel(abs: string): string | undefined {
    const rel = path.relative(this.root, abs);
    if (!this.opts.recursive || rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    const segs = rel.split(path.sep);
    for (let i = 1; i <= segs.length; i++) if (!this.filter.dirAllowed(segs.slice(0, i).join('/'))) return undefined;
    return segs.join('/');
  }

  private candidateRel(abs: string): string | undefined {
    const rel = path.relative(this.root, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    const segs = rel.split(path.sep);
    if (!this.opts.recursive && segs.length > 1) return undefined;
    const r = segs.join('/');
    for (let i = 1; i < segs.length; i++) if (!this.filter.dirAllowed(segs.slice(0, i).join('/'))) return undefined;
    return this.filter.fileAllowed(r) ? r : undefined;
  }

  private async targeted(paths: string[]): Promise<void> {
    const t0 = this.now();
    const looks = await lookAll(paths);
    if (this.state !== 'running') return;
    const now = this.now();
    const newFolders: string[] = [];
    paths.forEach((p, i) => {
      const obs = looks[i];
      if (obs === 'folder') {
        const rel = this.folderRel(p);
        if (rel !== undefined) newFolders.push(rel);
      } else if (obs && this.candidateRel(p) !== undefined) {
        this.tracker.observe(obs, now);
      } else {
        if (this.tracker.forget(p)) this.emit('removed', p);
        // An unreadable folder that went away is no longer a problem (it had no watch to tell).
        if (obs === undefined) this.setUnreadable(p, []);
        // A folder that went away (or was renamed): its watches and its files go with it.
        if (obs === undefined && this.folderHints?.watches(p)) {
          this.folderHints.forgetTree(p);
          for (const gone of this.tracker.forgetUnder(p + path.sep)) this.emit('removed', gone);
        }
      }
    });
    // A new folder (created, or moved in with its files): scan and watch what is below it, afresh
    // (a watch left from an earlier folder of that name hears nothing).
    for (const rel of newFolders) {
      // A poller keeps its listing: a folder made again under the same name has a new mtime.
      if (this.folderHints instanceof FolderHints) this.folderHints.forgetTree(path.join(this.root, rel));
      let unreadable: string[];
      try {
        ({ unreadable } = await scanFolder(this.root, { recursive: true, filter: this.filter, under: rel, onFolder: (d) => this.folderHints?.folder(d), onFile: this.observeNow }));
      } catch (err) {
        this.fail(new Error(`cannot scan ${path.join(this.root, rel)}: ${(err as Error).message}`));
        continue;
      }
      if (this.state !== 'running') return;
      // A folder made readable again (chmod) is announced by an event on it: it is scanned here.
      this.setUnreadable(path.join(this.root, rel), unreadable);
    }
    this.emit('scan', { kind: 'targeted', files: paths.length, durationMs: this.now() - t0 });
  }

  /** Subfolders (absolute, sorted) the scans could not read. */
  get unreadableFolders(): string[] {
    return [...this.unreadableDirs].sort();
  }

  /** A scan of `top` (the root or a folder below it) found `rels` unreadable: they replace what was known under `top`. */
  private setUnreadable(top: string, rels: string[]): void {
    const before = this.unreadableFolders.join('\n');
    for (const d of [...this.unreadableDirs]) if (d === top || d.startsWith(top + path.sep)) this.unreadableDirs.delete(d);
    for (const r of rels) this.unreadableDirs.add(path.join(this.root, ...r.split('/')));
    const now = this.unreadableFolders;
    if (now.join('\n') !== before) this.emit('unreadable', now);
  }

  /** Files held unchanged over the quick period: stable now if no program writes them, else they wait for the threshold. */
  private async quickCheck(): Promise<void> {
    const candidates = this.tracker.quickCandidates();
    if (candidates.length === 0 || !this.opts.quickStable) return;
    // LOOK_CHUNK at a time (each a look at every process's open files), the settled ones of each
    // part reported before the next is asked about: no map of 50,000 answers at once.
    for (let i = 0; i < candidates.length && this.state === 'running'; i += LOOK_CHUNK) {
      if (i > 0) this.report();
      const ask = candidates.slice(i, i + LOOK_CHUNK);
      let open: Map<string, boolean>;
      try {
        open = await this.opts.quickStable.writers(ask);
      } catch {
        open = new Map();
      }
      const now = this.now();
      for (const p of ask) {
        const writing = open.get(p);
        if (writing === false) this.tracker.settle(p);
        else this.tracker.refuseQuick(p, now, writing === undefined);
      }
    }
  }

  /** Emit what is proven stable and arm the timer for the next file due. */
  private report(): void {
    if (this.state !== 'running') return;
    for (const obs of this.tracker.takeStable()) {
      const rel = this.relOf(obs.path);
      // A literal of one shape, not `{ ...obs, rel }`: V8 gave each such copy a hidden class of its
      // own (a heap snapshot at 50,000 waiting files: 16,368 objects, 16,368 maps and descriptor arrays).
      this.emit('stable', { path: obs.path, size: obs.size, mtimeMs: obs.mtimeMs, rel });
    }
    clearTimeout(this.dueTimer);
    this.dueTimer = undefined;
    const due = this.tracker.nextDueAt();
    if (due === undefined) return;
    this.dueTimer = setTimeout(() => {
      this.dueTimer = undefined;
      this.dueCheck = true;
      void this.kick();
    }, Math.max(MIN_TIMER_MS, Math.ceil(due - this.now()) + 2));
  }
}

/** Paths re-looked at (and asked about open writers) in one part, their stable files reported before the next part. */
const LOOK_CHUNK = 2048;

/** Paths looked at at once by a targeted re-look (the rest wait their turn). */
const LOOKS_AT_ONCE = 256;

/**
 * Looks at many paths, LOOKS_AT_ONCE at a time: the re-look of a drop of 50,000 settling files made
 * a promise, a request and an answer for every one of them at once (the engine's peak RSS grew with
 * the size of the drop).
 */
async function lookAll(paths: string[]): Promise<(FileObservation | 'folder' | undefined)[]> {
  const out: (FileObservation | 'folder' | undefined)[] = new Array(paths.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < paths.length; i = next++) out[i] = await look(paths[i] as string);
  };
  await Promise.all(Array.from({ length: Math.min(LOOKS_AT_ONCE, paths.length) }, worker));
  return out;
}

/** One look at a path: the file's observation, 'folder', or undefined when it is missing or neither. */
async function look(p: string): Promise<FileObservation | 'folder' | undefined> {
  try {
    const st = await statSeen(p);
    if (st.isDirectory) return 'folder';
    return st.isFile ? { path: p, size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch (err) {
    const c = (err as NodeJS.ErrnoException).code;
    if (c === 'ENOENT' || c === 'ENOTDIR' || c === 'EACCES' || c === 'EPERM' || c === 'ELOOP') return undefined;
    throw err;
  }
}
