import { EventEmitter, setMaxListeners } from 'node:events';
import { realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FOLDER_DEFAULTS, QUICK_STABLE_MS, validateFolderSettings, type FolderRunSettings, type FolderTarget, type HotFolderSettings } from '../../shared/hot-folder.js';
import { inWords, log, pipelineContext, setState, settingsOf, technical, type EngineEvents, type PipelineContext } from './pipeline/context.js';
import { fileNamed, retryLater } from '../../shared/ui/messages.js';
import { DEFAULT_POLL, followRun, type PollPolicy } from './pipeline/follower.js';
import { sha256File } from './pipeline/hash.js';
import { statSeen } from './pipeline/file-worker.js';
import { intake, recordBatch } from './pipeline/intake.js';
import { cannotRead, isUnreadable, readProblem } from './pipeline/unreadable.js';
import type { BatchPlan } from './pipeline/plan.js';
import { TryLater, uploadBatch } from './pipeline/uploader.js';
import { normalizeUrl } from './config/connection.js';
import type { ServiceClient } from './service/index.js';
import { checkTarget, unknownTarget } from './service/targets.js';
import { Semaphore } from './service/limit.js';
import type { FileRow, FileState, FolderRow, RunRow, ServiceKey, Store } from './store/index.js';
import { BatchPlanner, type BatchFile } from './watch/batcher.js';
import { scanFolder } from './watch/scan.js';
import { createFilter } from './watch/ignore.js';
import { FolderWatcher } from './watch/watcher.js';
import { Fifo } from './pipeline/fifo.js';
import { notRegular } from './watch/file-kind.js';
import { canSeeWriters, openForWriting } from './watch/writers.js';
import { joinServiceShare, SharedFolders, type ShareFactory } from './pipeline/shared-folder.js';
import type { FleetAgent } from './share/api.js';
import { MemoryBudget } from './memory.js';

export interface EngineOptions {
  store: Store;
  client: ServiceClient;
  /**
   * Which service `client` talks to: what the engine creates there is recorded under it, and what
   * was created on another service is left to that one. Default: the client's URL and context.
   */
  service?: ServiceKey;
  /** Data home (artifacts are downloaded below it). */
  home: string;
  poll?: Partial<PollPolicy>;
  /** Batches uploaded at once. Default 2. */
  uploadConcurrency?: number;
  /** Delay before a batch that failed for a transient reason is tried again; doubles up to maxMs. */
  retry?: { initialMs: number; maxMs: number };
  /** Shared folders (issue 15): how this agent joins a folder's share. Default: the share protocol over the service's files. */
  share?: ShareFactory;
  /** What other agents of a share call this one (`--agent-name`); default: the host name. */
  agentName?: string;
}

/**
 * Workers taking in one folder's stable files (each holds one of the engine's intake slots while it
 * reads a file). 32, not 8: small files are hashed in a worker thread, asked for in groups
 * (file-worker.ts), and their rows stored in group commits: more at once makes fewer, larger groups.
 */
const TAKERS_PER_FOLDER = 32;
/** Files taken in at once, engine-wide: a drop of 10,000 files opens at most this many (large ones; EMFILE, memory). */
const INTAKE_SLOTS = 32;

/** How often the memory budget looks, besides after each results page (memory.ts). */
const MEMORY_CHECK_MS = 500;

/** How long a deployment or app the service proved to exist is not asked about again before an upload. */
const TARGET_PROVEN_MS = 60 * 60_000;

/** How often the store's folder table is compared with the running watchers. */
const FOLDER_SYNC_MS = 3000;

/**
 * Storing a finished run's results waits for files still to be taken in or uploaded (resultsTurn in
 * context.ts), at most this long before each page, so a steady stream of files cannot hold results back for good.
 */
const UPLOADS_FIRST_MAX_MS = 30_000;
/** How often that wait looks again: the uploads it waits for end in many places. */
const UPLOADS_FIRST_POLL_MS = 100;

interface FolderLoop {
  row: FolderRow;
  settings: HotFolderSettings;
  watcher: FolderWatcher;
  planner: BatchPlanner<BatchFile & { id: number }>;
  timer?: NodeJS.Timeout;
  /** When `timer` fires (performance.now() time). */
  timerAt?: number;
  /**
   * The paths of stable files reported by the watcher, waiting to be taken in (takeIn), each with its
   * version taken from the watcher when its turn comes: a path is the watcher's own string, where an
   * object per waiting file was 100 bytes more each in a drop of 50,000.
   */
  waiting: Fifo<string>;
  /** Workers taking them in now. */
  takers: number;
}

export interface EngineStatus {
  counts: Record<FileState, number>;
  transfers: { fileId: number; path: string; sent: number; total: number }[];
  paused: boolean;
  activeRuns: number;
}

/**
 * The sync engine: hot folders -> batches -> uploads -> runs -> results in the store. Every step is
 * persisted before it is acted on; start() picks up whatever a previous process left unfinished.
 * Plain Node: hosted by the desktop app, `docsync serve` and the one-shot CLI commands.
 */
export class Engine extends EventEmitter<EngineEvents> {
  readonly store: Store;
  readonly client: ServiceClient;
  /** The service this engine works with (services.id). */
  readonly serviceId: number;
  private readonly ctx: PipelineContext;
  private readonly poll: PollPolicy;
  private readonly uploadConcurrency: number;
  private readonly retry: { initialMs: number; maxMs: number };
  private readonly folders = new Map<number, FolderLoop>();
  /** Files hashed and taken in at once: a drop of 10,000 files opens a few at a time, not 10,000 (EMFILE, memory). */
  private readonly intakeSlots = new Semaphore(INTAKE_SLOTS);
  /** One run's results stored at a time (resultsTurn in context.ts). */
  private readonly resultsSlot = new Semaphore(1);
  private readonly ctl = new AbortController();
  private readonly queue: number[] = [];
  private readonly uploading = new Set<number>();
  private readonly retryDelay = new Map<number, number>();
  private readonly follows = new Map<number, { timer?: NodeJS.Timeout; delay: number; busy: boolean }>();
  private readonly transfers = new Map<number, { sent: number; total: number }>();
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private started = false;
  private paused = false;
  private readonly shared: SharedFolders;
  /** Full collections asked of V8 when garbage piles up (memory.ts). */
  readonly memory = new MemoryBudget();

  constructor(o: EngineOptions) {
    super();
    this.store = o.store;
    this.client = o.client;
    this.poll = { ...DEFAULT_POLL, ...o.poll };
    this.uploadConcurrency = o.uploadConcurrency ?? 2;
    this.retry = o.retry ?? { initialMs: 2000, maxMs: 120_000 };
    // Every upload and poll in flight listens on the engine's stop signal: a dozen or more at once is normal.
    setMaxListeners(1000, this.ctl.signal);
    this.serviceId = o.store.services.ensure(o.service ?? { url: normalizeUrl(o.client.config.baseUrl), context: o.client.config.context ?? null }).id;
    this.ctx = pipelineContext(
      { store: o.store, client: o.client, home: o.home, serviceId: this.serviceId },
      (e, ...a) => (this.emit as (e: string, ...a: unknown[]) => boolean)(e, ...a),
      (e) => log(this.ctx, 'warn', 'Something went wrong while DocSync showed a change.', { detail: technical(e) }),
    );
    this.ctx.uploadsFirst = () => this.uploadsFirst();
    this.ctx.memoryCheck = () => this.memory.check();
    this.ctx.resultsTurn = (fn) =>
      this.resultsSlot.run(async () => {
        await this.uploadsFirst();
        return fn();
      });
    this.shared = new SharedFolders(this.ctx, o.share ?? joinServiceShare, o.agentName, {
      plan: (folderId, f) => {
        const loop = this.folders.get(folderId);
        if (loop) this.plan(loop, f);
      },
      unplan: (folderId, path) => this.folders.get(folderId)?.planner.remove(path),
      enqueue: (batchId) => this.enqueue(batchId),
    });
    this.ctx.shared = this.shared;
    this.on('progress', (p) => this.transfers.set(p.fileId, { sent: p.sent, total: p.total }));
    this.on('file', ({ file }) => {
      if (file.state !== 'uploading') this.transfers.delete(file.id);
      // Found unreadable on its way (upload): its folder's watcher reports it again once it can be read.
      if (isUnreadable(file)) for (const loop of this.folders.values()) if (loop.row.id === file.folderId) loop.watcher.retake(file.path);
    });
    // A run the service started proves its target: folders set while offline are checked by it.
    this.on('run', ({ run }) => {
      for (const id of this.#targetsUnchecked) {
        const f = this.store.folders.get(id);
        if (!f || (run.deploymentId !== null && f.deploymentId === run.deploymentId) || (run.appId !== null && f.appId === run.appId)) this.#targetsUnchecked.delete(id);
      }
    });
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  /** Resumes unfinished batches and runs, then starts watching every enabled folder. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const b of this.store.runs.unfinishedBatches()) this.enqueue(b.id);
    // Runs still to follow, and finished runs whose files were not all finished: a process killed
    // after a run's results were stored (or its final status recorded) but before every file of
    // its batch was done/failed would otherwise leave those files 'running' for good.
    // Only this service's runs: another service's are followed when the user is signed in to it again.
    const follow = new Set(this.store.runs.activeRuns(this.serviceId).map((r) => r.id));
    for (const state of ['uploaded', 'running'] as const) {
      for (const f of this.store.files.list({ state })) {
        const r = f.batchId === null ? undefined : this.store.runs.runForBatch(f.batchId);
        if (r && r.deletedMs === null && r.serviceId === this.serviceId) follow.add(r.id);
      }
    }
    for (const id of follow) this.follow(id, 0);
    for (const row of this.store.folders.list()) {
      if (!row.enabled) continue;
      // A shared folder whose share cannot be joined yet (offline) waits for the next folder sync, like one added later.
      await this.startFolder(row).catch((e: unknown) => {
        if (!settingsOf(row).share) throw e;
        log(this.ctx, 'warn', `${row.path}: ${inWords(e)}`, { detail: technical(e) });
      });
    }
    const sync = (): void =>
      this.later(FOLDER_SYNC_MS, () =>
        this.task(async () => {
          if (await this.syncFolders()) this.emit('folders');
          sync();
        }),
      );
    sync();
    // Between results pages too: garbage also piles up while runs are polled and files taken in.
    this.#memoryTimer = setInterval(() => this.memory.check(), MEMORY_CHECK_MS).unref();
  }

  #memoryTimer?: NodeJS.Timeout;

  async stop(): Promise<void> {
    this.ctl.abort();
    clearInterval(this.#memoryTimer);
    for (const t of this.timers) clearTimeout(t);
    for (const f of this.follows.values()) clearTimeout(f.timer);
    for (const loop of this.folders.values()) {
      clearTimeout(loop.timer);
      loop.waiting.clear();
      await loop.watcher.stop();
    }
    this.folders.clear();
    await Promise.allSettled([...this.tasks]);
    await this.shared.closeAll();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  // ---- folders -----------------------------------------------------------------------------

  /** Adds a hot folder after checking its settings and that the folder exists. */
  /** `check: false` (the host knows the service is offline) takes the target unchecked without waiting. */
  async addFolder(raw: unknown, o: { check?: boolean } = {}): Promise<FolderRow> {
    const v = validateFolderSettings(raw);
    if (!v.ok) throw new Error(v.errors.join('; '));
    const s = v.settings;
    const st = await stat(s.path).catch(() => null);
    if (!st?.isDirectory()) throw new Error(`${s.path} is not a folder`);
    if (this.store.folders.byPath(s.path)) throw new Error(`${s.path} is already a hot folder`);
    // A mistyped deployment is caught now, not after the first upload; offline it is taken, marked not checked.
    const known = o.check === false ? undefined : await checkTarget(this.client, s.target, this.ctl.signal);
    if (known === false) throw new Error(unknownTarget(s.target, this.client.config.baseUrl));
    const row = this.store.folders.add({
      path: s.path,
      deploymentId: s.target.type === 'deployment' ? s.target.id : null,
      appId: s.target.type === 'app' ? s.target.id : null,
      settings: s as unknown as Record<string, unknown>,
    });
    this.noteTargetCheck(row.id, known, s.target);
    if (this.started) await this.startFolder(row);
    return row;
  }

  /** When the service last proved a deployment or app exists (its check said so), by `type:id`. */
  readonly #targetsProven = new Map<string, number>();

  private noteTargetProven(t: { type: string; id: string }): void {
    this.#targetsProven.set(`${t.type}:${t.id}`, Date.now());
  }

  /**
   * Whether a deployment or app was proven to exist on this service within the last TARGET_PROVEN_MS:
   * by a check in this process, or by a run started on it (this process or another on the same store:
   * each `docsync upload` is a process of its own). One deleted since makes the run's start fail, and
   * the upload's files with the service's reason, as when the check could not be asked.
   */
  private targetProven(t: FolderTarget): boolean {
    const since = Date.now() - TARGET_PROVEN_MS;
    if ((this.#targetsProven.get(`${t.type}:${t.id}`) ?? 0) >= since) return true;
    return this.store.runs.startedFor(this.serviceId, t.type === 'deployment' ? { deploymentId: t.id } : { appId: t.id }, since);
  }

  /** Folders whose deployment or app the service could not be asked about yet (offline when they were set). */
  readonly #targetsUnchecked = new Set<number>();

  private noteTargetCheck(folderId: number, known: boolean | undefined, target?: FolderTarget): void {
    if (known && target) this.noteTargetProven(target);
    if (known === undefined) this.#targetsUnchecked.add(folderId);
    else this.#targetsUnchecked.delete(folderId);
  }

  /** True when the folder's deployment or app has not been checked with the service yet. */
  targetUnchecked(folderId: number): boolean {
    return this.#targetsUnchecked.has(folderId);
  }

  async removeFolder(path: string): Promise<void> {
    const row = this.store.folders.byPath(path);
    if (!row) throw new Error(`${path} is not a hot folder`);
    await this.stopFolder(row.id);
    this.store.folders.remove(row.id);
  }

  /** New settings for a hot folder (its path stays: another path is another folder); the watcher restarts with them. */
  async updateFolder(id: number, raw: unknown, o: { check?: boolean } = {}): Promise<FolderRow> {
    const cur = this.store.folders.get(id);
    if (!cur) throw new Error(`no hot folder with id ${id}`);
    const v = validateFolderSettings(raw);
    if (!v.ok) throw new Error(v.errors.join('; '));
    const s = v.settings;
    if (s.path !== cur.path) throw new Error(`a hot folder's path cannot change (${cur.path}); add ${s.path} as a new hot folder instead`);
    const targetChanged = (s.target.type === 'deployment' ? cur.deploymentId : cur.appId) !== s.target.id;
    if (targetChanged) {
      const known = o.check === false ? undefined : await checkTarget(this.client, s.target, this.ctl.signal);
      if (known === false) throw new Error(unknownTarget(s.target, this.client.config.baseUrl));
      this.noteTargetCheck(id, known, s.target);
    }
    const row = this.store.folders.update(id, {
      deploymentId: s.target.type === 'deployment' ? s.target.id : null,
      appId: s.target.type === 'app' ? s.target.id : null,
      settings: s as unknown as Record<string, unknown>,
    }) as FolderRow;
    await this.stopFolder(id);
    if (this.started && row.enabled) await this.startFolder(row);
    return row;
  }

  /**
   * Brings the running folder loops in line with the store: folders added, changed or removed by
   * another process (the docsync command beside a running app) are picked up within a few seconds.
   */
  async syncFolders(): Promise<boolean> {
    let changed = false;
    const rows = new Map(this.store.folders.list().filter((r) => r.enabled).map((r) => [r.id, r]));
    for (const [id, loop] of [...this.folders]) {
      const now = rows.get(id);
      if (!now || now.updatedMs !== loop.row.updatedMs) {
        await this.stopFolder(id);
        changed = true;
      }
    }
    for (const row of rows.values()) {
      if (!this.folders.has(row.id) && !this.ctl.signal.aborted) {
        await this.startFolder(row).catch((e: unknown) => log(this.ctx, 'warn', `${row.path}: ${e instanceof Error ? e.message : String(e)}`));
        changed = true;
      }
    }
    return changed;
  }

  private async stopFolder(id: number): Promise<void> {
    const loop = this.folders.get(id);
    if (!loop) return;
    clearTimeout(loop.timer);
    this.folders.delete(id);
    loop.waiting.clear();
    await loop.watcher.stop();
    await this.shared.close(id);
  }

  private async startFolder(row: FolderRow): Promise<void> {
    const settings = settingsOf(row);
    const watcher = new FolderWatcher({
      path: settings.path,
      recursive: settings.recursive,
      include: settings.include,
      ignore: settings.ignore,
      stabilityMs: settings.stabilityMs,
      rescanIntervalMs: settings.rescanIntervalMs,
      polling: settings.polling,
      // A polled folder is a network share: other machines' handles are invisible, size and time decide.
      quickStable: canSeeWriters && !settings.polling.enabled ? { ms: QUICK_STABLE_MS, writers: openForWriting } : undefined,
    });
    const loop: FolderLoop = { row, settings, watcher, planner: new BatchPlanner(settings.batching), waiting: new Fifo(), takers: 0 };
    // A shared folder joins its share first: no file of it is batched unclaimed.
    await this.shared.open(row, settings);
    this.folders.set(row.id, loop);
    // Files that were ready but not yet in a batch when the last process stopped (a shared folder's
    // 'stable' ones were not claimed yet).
    for (const f of this.store.files.list({ folderId: row.id })) {
      if (settings.share && f.state === 'stable' && f.batchId === null) this.task(async () => this.admitted(loop, f));
      else if ((f.state === 'stable' || f.state === 'queued') && f.batchId === null) this.plan(loop, f);
    }
    watcher.on('stable', (obs) => {
      loop.waiting.push(obs.path);
      this.takeIn(loop);
    });
    watcher.on('error', (e) => log(this.ctx, 'warn', `${settings.path}: ${e.message}`));
    // Stored, so the folder list shows them (here and in another process), and announced.
    const unreadable = (dirs: string[]): void => {
      if (this.folders.get(row.id) !== loop || this.store.folders.unreadable(row.id).join('\n') === dirs.join('\n')) return;
      this.store.folders.setUnreadable(row.id, dirs);
      this.emit('folders');
    };
    watcher.on('unreadable', unreadable);
    await watcher.start();
    // The first scan's finding replaces the last process's (it may have found none: no event then).
    unreadable(watcher.unreadableFolders);
  }

  /**
   * Takes in the folder's waiting stable files with a few workers (the engine-wide intake slots bound
   * the files open at once). After a stop, or once this folder is removed or restarted with new
   * settings, the files still waiting are left: the next scan sees them again.
   */
  private takeIn(loop: FolderLoop): void {
    const stopped = this.ctl.signal;
    const current = (): boolean => !stopped.aborted && this.folders.get(loop.row.id) === loop;
    // A file that cannot be read is shown as failed; the watcher forgets that it reported this
    // version, so the next change event (a chmod) or rescan brings it back once it can be read.
    const unreadable = (p: string): void => {
      loop.planner.remove(p);
      loop.watcher.retake(p);
    };
    while (loop.takers < TAKERS_PER_FOLDER && loop.waiting.size > 0 && current()) {
      loop.takers++;
      this.task(async () => {
        try {
          for (let p = loop.waiting.shift(); p !== undefined && current(); p = loop.waiting.shift()) {
            // Changed since (reported again once settled) or gone: nothing to take in now.
            const seen = loop.watcher.reported(p);
            if (!seen) continue;
            try {
              const f = await this.intakeSlots.run(async () => (current() ? intake(this.ctx, loop.row.id, loop.settings, seen, unreadable, await this.links(loop)) : null));
              if (f && current()) await this.admitted(loop, f);
            } catch (e) {
              log(this.ctx, 'error', `Something went wrong: ${inWords(e)}`, { detail: `${seen.path}: ${technical(e)}` });
            }
          }
        } finally {
          loop.takers--;
        }
      });
    }
  }

  /** The link rule's part of intake (watch/links.ts): where the folder really is, and a set-aside file out of the open batch. */
  private async links(loop: FolderLoop): Promise<{ realRoot: string; onSkipped: (path: string) => void }> {
    return { realRoot: loop.watcher.realRoot ?? (await realpath(loop.settings.path)), onSkipped: (p) => loop.planner.remove(p) };
  }

  /** A file taken in is batched; a shared folder's after its content is claimed (shared-folder.ts). */
  private async admitted(loop: FolderLoop, f: FileRow, delay = this.retry.initialMs): Promise<void> {
    let row: FileRow | null = f;
    if (loop.settings.share) {
      try {
        row = await this.shared.admit(loop.row.id, f);
      } catch (e) {
        // The share could not be asked: the file waits 'stable' and is claimed on a later try.
        log(this.ctx, 'warn', `DocSync could not ask the other agents of the share about ${f.originalName}: ${inWords(e)}. It asks again shortly.`, { detail: technical(e), topic: 'service' });
        this.later(delay, () => this.task(async () => {
          const cur = this.store.files.get(f.id);
          if (cur?.state === 'stable' && this.folders.get(loop.row.id) === loop) await this.admitted(loop, cur, Math.min(this.retry.maxMs, delay * 2));
        }));
        return;
      }
    }
    if (row && this.folders.get(loop.row.id) === loop && !this.ctl.signal.aborted) this.plan(loop, row);
  }

  private plan(loop: FolderLoop, f: FileRow): void {
    if (f.state === 'stable') setState(this.ctx, f.id, 'queued');
    for (const b of loop.planner.add({ path: f.path, size: f.size, id: f.id }, performance.now())) this.closeBatch(loop, b.files.map((x) => x.id));
    this.armPlanner(loop);
  }

  /**
   * A timer for the open batch's deadline. A timer already set for that time or earlier is kept (it
   * fires, finds the deadline moved on, and is set again): every file of a drop moves the deadline,
   * and a new timer per file was a measurable share of the engine's work per file (issue 14).
   */
  private armPlanner(loop: FolderLoop): void {
    const at = loop.planner.nextDeadline();
    if (at === undefined || at === null) {
      clearTimeout(loop.timer);
      loop.timer = undefined;
      return;
    }
    if (loop.timer !== undefined && loop.timerAt !== undefined && loop.timerAt <= at) return;
    clearTimeout(loop.timer);
    loop.timerAt = at;
    loop.timer = setTimeout(() => {
      loop.timer = undefined;
      for (const b of loop.planner.tick(performance.now())) this.closeBatch(loop, b.files.map((x) => x.id));
      this.armPlanner(loop);
    }, Math.max(10, at - performance.now()));
  }

  private closeBatch(loop: FolderLoop, fileIds: number[]): void {
    const plan: BatchPlan = { target: loop.settings.target, run: loop.settings.run };
    this.enqueue(recordBatch(this.ctx, loop.row.id, plan, fileIds));
  }

  // ---- manual uploads, retry, cancel ---------------------------------------------------------

  /** Files or folders a person dropped in: one batch, run with `target`. Returns the file rows. */
  /**
   * `o.ready`: awaited beside the target's check, before anything is recorded (the command line's
   * check of its connection). `o.checkTarget: 'always'`: the target is asked about even when proven
   * lately (the command line: beside its connection check it costs no round trip of its own, and it
   * opens the engine's connection, which the upload's first call would otherwise wait for).
   */
  async uploadFiles(paths: string[], target: FolderTarget, run: Partial<FolderRunSettings> = {}, o: { ready?: Promise<void>; checkTarget?: 'always' } = {}): Promise<FileRow[]> {
    const files: { path: string; size: number; mtimeMs: number }[] = [];
    for (const p of paths) {
      const st = await stat(p).catch(() => null);
      if (!st) throw new Error(`${p} does not exist`);
      // Checked before a byte is read: a FIFO blocks a read for good, /dev/zero never ends.
      const kind = notRegular(st);
      if (kind) throw new Error(`${p} is ${kind}: only regular files (or folders of them) can be uploaded`);
      if (st.isDirectory()) {
        const scan = await scanFolder(p, { recursive: true, filter: createFilter() });
        // A subfolder left out silently would lose its files from the batch without a word.
        if (scan.unreadable.length) throw new Error(`${join(p, ...(scan.unreadable[0] as string).split('/'))}: DocSync cannot read this folder: permission denied`);
        files.push(...scan.files);
      }
      else files.push({ path: p, size: st.size, mtimeMs: st.mtimeMs });
    }
    if (files.length === 0) throw new Error('nothing to upload: no files in what was given');
    // A target the service does not know would leave a batch uploaded for nothing. When the service
    // cannot be asked (offline), the upload is queued as before and fails later with the service's reason.
    // A target proven lately is not asked about again (a round trip before every upload, issue 27);
    // the question goes while the files are read.
    const checking = o.checkTarget !== 'always' && this.targetProven(target) ? Promise.resolve(true) : checkTarget(this.client, target, this.ctl.signal);
    // Every file read before any is recorded: one that cannot be read refuses the whole upload, leaving nothing half-queued.
    const hashing = (async () => {
      const out: string[] = [];
      for (const f of files) out.push(await sha256File(f.path).catch((e: unknown) => Promise.reject(new Error(`${f.path}: ${cannotRead(e) ?? 'it is gone'}`))));
      return out;
    })();
    hashing.catch(() => undefined);
    // The file worker (pipeline/file-worker.ts) starts on its first look, the uploader's look before the
    // first upload: started now, its start-up (hundreds of ms on a busy machine) overlaps the check.
    void statSeen(files[0]!.path).catch(() => undefined);
    const [known] = await Promise.all([checking, o.ready]);
    if (known === false) throw new Error(unknownTarget(target, this.client.config.baseUrl));
    if (known) this.noteTargetProven(target);
    const hashes = await hashing;
    const rows: FileRow[] = [];
    for (const [i, f] of files.entries()) {
      const row = this.store.files.add({ path: f.path, size: f.size, mtimeMs: Math.floor(f.mtimeMs), sha256: hashes[i] as string, originalName: basename(f.path) });
      this.emit('file', { file: row, from: null });
      setState(this.ctx, row.id, 'stable');
      rows.push(setState(this.ctx, row.id, 'queued'));
    }
    const plan: BatchPlan = { target, run: { ...FOLDER_DEFAULTS.run, ...run } };
    this.enqueue(recordBatch(this.ctx, null, plan, rows.map((r) => r.id)));
    return rows.map((r) => this.store.files.get(r.id) as FileRow);
  }

  /** A failed file goes again, in a batch of its own, with its folder's current settings (or its old batch's plan). */
  async retryFile(fileId: number): Promise<FileRow> {
    const f = this.store.files.get(fileId);
    if (!f) throw new Error(`no file with id ${fileId}`);
    if (f.state !== 'failed') throw new Error(`${this.named(f)} is ${f.state}; only a failed file can be retried`);
    const folder = f.folderId !== null ? this.store.folders.get(f.folderId) : undefined;
    const oldPlan = f.batchId !== null ? this.store.runs.batch(f.batchId)?.plan : null;
    const plan: BatchPlan | null = folder ? { target: settingsOf(folder).target, run: settingsOf(folder).run } : oldPlan ? (JSON.parse(oldPlan) as BatchPlan) : null;
    if (!plan) throw new Error(`${this.named(f)} has no hot folder or earlier upload to take its settings from`);
    await this.bringBack(f, folder);
    // Still unreadable: say so now rather than fail the upload in the background.
    const problem = await readProblem(f.path);
    if (problem) throw new Error(`${f.path}: ${problem}`);
    setState(this.ctx, f.id, 'queued');
    this.enqueue(recordBatch(this.ctx, f.folderId, plan, [f.id]));
    return this.store.files.get(f.id) as FileRow;
  }

  /**
   * Failed files of one hot folder go again together with its current settings, in batches as large
   * as its batching allows (one run for a handful, not one run each); a file that cannot go (gone,
   * unreadable) stays failed and is named in `problems`.
   */
  async retryFolderFiles(folderId: number, fileIds: number[]): Promise<{ retried: number; problems: string[] }> {
    const folder = this.store.folders.get(folderId);
    if (!folder) throw new Error(`no hot folder with id ${folderId}`);
    const s = settingsOf(folder);
    const plan: BatchPlan = { target: s.target, run: s.run };
    const ready: FileRow[] = [];
    const problems: string[] = [];
    for (const id of fileIds) {
      const f = this.store.files.get(id);
      if (!f || f.state !== 'failed' || f.folderId !== folderId) continue;
      try {
        await this.bringBack(f, folder);
        const problem = await readProblem(f.path);
        if (problem) throw new Error(`${f.path}: ${problem}`);
        ready.push(f);
      } catch (e) {
        problems.push(e instanceof Error ? e.message : String(e));
      }
    }
    let batch: number[] = [];
    let bytes = 0;
    const flush = (): void => {
      if (batch.length > 0) this.enqueue(recordBatch(this.ctx, folderId, plan, batch));
      batch = [];
      bytes = 0;
    };
    for (const f of ready) {
      if (batch.length >= s.batching.maxFiles || (batch.length > 0 && bytes + f.size > s.batching.maxBytes)) flush();
      setState(this.ctx, f.id, 'queued');
      batch.push(f.id);
      bytes += f.size;
    }
    flush();
    return { retried: ready.length, problems };
  }

  /** A failed file that was moved to its folder's error folder goes back to where it was found. */
  private async bringBack(f: FileRow, folder: FolderRow | undefined): Promise<void> {
    if (await stat(f.path).catch(() => null)) return;
    const errorDir = folder ? settingsOf(folder).afterFailure.errorDir : null;
    const moved = errorDir ? join(errorDir, basename(f.path)) : null;
    if (!moved || !(await stat(moved).catch(() => null))) throw new Error(`${f.path} is gone; put the file back to retry it`);
    await rename(moved, f.path);
    await rm(`${moved}.error.txt`, { force: true });
  }

  /** When the open batch holding this file closes (ms since the epoch), or null when it is in none. */
  batchClosesAt(f: Pick<FileRow, 'folderId' | 'path' | 'batchId'>): number | null {
    if (f.batchId !== null || f.folderId === null) return null;
    const loop = this.folders.get(f.folderId);
    const at = loop?.planner.has(f.path) ? loop.planner.nextDeadline() : undefined;
    return typeof at === 'number' ? Date.now() + Math.max(0, at - performance.now()) : null;
  }

  /** A file in a message: its name, and its folder when another file has the same name. */
  private named(f: FileRow): string {
    return fileNamed(f.path, f.originalName, this.store.files.hasNamesake(f));
  }

  /** A file not yet uploading is set aside. */
  cancelFile(fileId: number): FileRow {
    const f = this.store.files.get(fileId);
    if (!f) throw new Error(`no file with id ${fileId}`);
    if (!['discovered', 'stable', 'queued'].includes(f.state)) throw new Error(`${this.named(f)} is ${f.state}; only a file waiting for upload can be cancelled`);
    for (const loop of this.folders.values()) loop.planner.remove(f.path);
    return setState(this.ctx, f.id, 'skipped', 'cancelled by the user');
  }

  /** The agents of a shared folder's share, as of the last heartbeat look (empty for a folder not shared or not running). */
  fleet(folderId: number): FleetAgent[] {
    return this.shared.fleet(folderId);
  }

  /** Calls this agent made to the service for a shared folder's share, by kind (for calls per file). */
  shareCalls(folderId: number): Record<string, number> {
    return this.shared.shareOf(folderId)?.calls() ?? {};
  }

  status(): EngineStatus {
    return {
      counts: this.store.files.countByState(),
      transfers: [...this.transfers].map(([fileId, t]) => ({ fileId, path: this.store.files.get(fileId)?.path ?? '', ...t })),
      paused: this.paused,
      activeRuns: this.store.runs.activeRuns().length,
    };
  }

  /** Resolves once nothing is queued, uploading or running (for one-shot commands and tests). */
  async idle(timeoutMs = 10 * 60_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const c = this.store.files.countByState();
      const busy = c.stable + c.queued + c.uploading + c.uploaded + c.running + this.queue.length + this.uploading.size;
      if (busy === 0 && this.store.runs.activeRuns(this.serviceId).length === 0) return;
      if (Date.now() > end) throw new Error('timed out waiting for the engine to finish its work');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  // ---- scheduling --------------------------------------------------------------------------

  /** Files wait to be taken in, batched or uploaded (and uploads are not paused). */
  private uploadsPending(): boolean {
    if (this.paused) return false;
    if (this.queue.length > 0 || this.uploading.size > 0) return true;
    for (const loop of this.folders.values()) if (loop.waiting.size > 0 || loop.takers > 0 || loop.planner.nextDeadline() !== undefined) return true;
    return false;
  }

  private async uploadsFirst(): Promise<void> {
    const until = performance.now() + UPLOADS_FIRST_MAX_MS;
    while (this.uploadsPending() && performance.now() < until && !this.ctl.signal.aborted) await new Promise((r) => setTimeout(r, UPLOADS_FIRST_POLL_MS));
  }

  private task(fn: () => Promise<unknown>): void {
    const p = fn()
      .catch((e: unknown) => log(this.ctx, 'error', `Something went wrong: ${inWords(e)}`, { detail: technical(e) }))
      .finally(() => this.tasks.delete(p));
    this.tasks.add(p);
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.ctl.signal.aborted) fn();
    }, ms);
    this.timers.add(t);
  }

  private enqueue(batchId: number): void {
    if (!this.queue.includes(batchId) && !this.uploading.has(batchId)) this.queue.push(batchId);
    this.pump();
  }

  private pump(): void {
    while (!this.paused && !this.ctl.signal.aborted && this.uploading.size < this.uploadConcurrency && this.queue.length) {
      const id = this.queue.shift() as number;
      this.uploading.add(id);
      this.task(async () => {
        try {
          const fresh = await uploadBatch(this.ctx, id, this.ctl.signal);
          this.retryDelay.delete(id);
          if (fresh !== undefined) this.enqueue(fresh);
          const run = this.store.runs.runForBatch(id);
          if (run) this.followStarted(run, id);
        } catch (e) {
          if (!(e instanceof TryLater)) throw e;
          const delay = Math.min(this.retry.maxMs, (this.retryDelay.get(id) ?? this.retry.initialMs / 2) * 2);
          this.retryDelay.set(id, delay);
          const files = this.store.files.list({ batchId: id }).filter((f) => !['done', 'failed', 'skipped'].includes(f.state)).length;
          log(this.ctx, 'warn', retryLater(inWords(e.reason), delay, files), { detail: `batch ${id}: ${technical(e.reason)}`, topic: 'service' });
          this.later(delay, () => this.enqueue(id));
        } finally {
          this.uploading.delete(id);
          this.pump();
        }
      });
    }
  }

  /**
   * A batch's run, just started (or found) by the uploader: its start's answer said how it is, so the
   * first poll waits the policy's first delay, counted from when the start was sent (issue 27: a poll
   * right after that answer was a round trip that found the run where the answer had left it).
   */
  private followStarted(run: RunRow, batchId: number): void {
    const sent = this.ctx.runStartSent?.get(batchId);
    this.ctx.runStartSent?.delete(batchId);
    const settled = run.status === 'COMPLETE' || run.status === 'FAILED' || run.status === 'CANCELLED';
    if (sent === undefined || settled) return this.follow(run.id, 0);
    this.follow(run.id, Math.max(0, this.poll.initialMs - (performance.now() - sent)), this.poll.initialMs);
  }

  /** `delay` until the next poll; `pollDelay`: the delay the following one doubles (followRun). */
  private follow(runId: number, delay: number, pollDelay?: number): void {
    const cur = this.follows.get(runId) ?? { delay: 0, busy: false };
    if (pollDelay !== undefined) cur.delay = pollDelay;
    clearTimeout(cur.timer);
    cur.timer = setTimeout(() => this.pollRun(runId), delay);
    this.follows.set(runId, cur);
  }

  private pollRun(runId: number): void {
    const cur = this.follows.get(runId);
    if (!cur || cur.busy || this.ctl.signal.aborted) return;
    const run = this.store.runs.run(runId);
    // A run of another service is never asked about here: this client would send it this service's token.
    if (!run || run.serviceId !== this.serviceId) return;
    cur.busy = true;
    // The next poll is counted from when this one is sent, not from its answer: on a distant service
    // the schedule would otherwise slip by a round trip at every poll (issue 27).
    const sentAt = performance.now();
    this.task(async () => {
      let next: number | null = this.poll.maxMs;
      try {
        next = await followRun(this.ctx, run, cur.delay, this.poll, this.ctl.signal);
      } catch (e) {
        log(this.ctx, 'warn', `DocSync could not check on run ${run.serviceRunId}: ${inWords(e)}. It asks again shortly.`, { detail: technical(e), topic: 'service' });
        next = Math.min(this.poll.maxMs, Math.max(this.poll.initialMs, cur.delay * 2));
      } finally {
        cur.busy = false;
      }
      if (next === null) {
        this.follows.delete(runId);
        const done = this.store.runs.run(runId);
        if (done) this.emit('run', { run: done });
      } else if (!this.ctl.signal.aborted) {
        cur.delay = next;
        this.follow(runId, Math.max(0, next - (performance.now() - sentAt)));
      }
    });
  }
}
