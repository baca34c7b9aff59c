import { serviceProblem } from '../../../shared/ui/messages.js';
import { isServiceError, type ServiceClient } from '../service/index.js';
import type { Store } from '../store/index.js';
import type { FileRow, FileState } from '../store/index.js';
import type { FolderRow, RunRow } from '../store/index.js';
import { validateFolderSettings, type HotFolderSettings } from '../../../shared/hot-folder.js';
import { GroupCommit } from './group-commit.js';
import type { ShareHooks } from './shared-folder.js';

/** Typed events of the engine: every persisted change is announced after it is stored. */
export interface EngineEvents {
  file: [{ file: FileRow; from: FileState | null }];
  progress: [{ fileId: number; sent: number; total: number }];
  run: [{ run: RunRow }];
  /** `msg` in the user's words; `detail` the technical words; `topic` what it is about (see Notice). */
  log: [{ level: 'info' | 'warn' | 'error'; msg: string; detail?: string; topic?: string }];
  /** Hot folders changed without a call of this engine (another process edited the store, a scan found subfolders it cannot read). */
  folders: [];
}

/** What every pipeline stage works with. */
export interface PipelineContext {
  store: Store;
  client: ServiceClient;
  /** Data home: artifacts are downloaded below it. */
  home: string;
  /** The service `client` talks to (services.id): batches, runs and sessions of others are not its to touch. */
  serviceId: number;
  emit<K extends keyof EngineEvents>(event: K, ...args: EngineEvents[K]): void;
  /** Runs store writes in the next group commit (group-commit.ts); resolves once they are committed. */
  commit<T>(fn: () => T): Promise<T>;
  /**
   * Runs `fn` (storing a finished run's results and finishing its files) when it is results' turn:
   * one run at a time engine-wide, after the files waiting to be taken in or uploaded (at most a
   * while). Results are local work that can wait; uploads are work the service waits for; and each
   * run's results being read at once held a page of every finished run in memory (with the run's
   * whole case_info in every page, several MB each). Absent: at once.
   */
  resultsTurn?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Resolves once no file waits to be taken in or uploaded, or after a while at the latest (between results pages). Absent: at once. */
  uploadsFirst?: () => Promise<void>;
  /** Shared folders' re-checks before irreversible steps (shared-folder.ts); absent: no folder is shared. */
  shared?: ShareHooks;
  /** After each results page is stored: the engine's memory budget (memory.ts) may ask V8 for a collection. */
  memoryCheck?: () => void;
  /**
   * Batches recorded by this process and not tried yet (issue 27, round trips): nothing of theirs can
   * be on the service, so their first try skips the looks for a service batch or run made before a
   * crash (two calls, one after another, on every upload's critical path). Any later try looks.
   */
  freshBatches?: Set<number>;
  /** Batches whose service path is being asked for after their run started (uploader.ts), awaited before their files finish. */
  batchPaths?: Map<number, Promise<void>>;
  /** When each batch's run start was sent (performance.now()): its first poll is counted from then (engine.ts). */
  runStartSent?: Map<number, number>;
}

type Emit = PipelineContext['emit'];

/**
 * A context whose grouped writes announce their events after their commit. `emit` sends an event
 * (the engine's own emitter); `onError`: a listener threw on an event sent after a commit.
 */
export function pipelineContext(base: Omit<PipelineContext, 'emit' | 'commit'>, emit: Emit, onError: (e: unknown) => void = () => undefined): PipelineContext {
  const group = new GroupCommit(base.store, onError);
  return {
    freshBatches: new Set(),
    batchPaths: new Map(),
    runStartSent: new Map(),
    ...base,
    emit: (event, ...args) => group.announce(() => emit(event, ...args)),
    commit: (fn) => group.run(fn),
  };
}

/** Persists a state change, then announces it: the store is the truth, events are news. */
export function setState(ctx: PipelineContext, fileId: number, to: FileState, error: string | null = null): FileRow {
  const [moved] = ctx.store.files.transitionMany([{ fileId, to, error }]);
  const { file, from } = moved as { file: FileRow; from: FileState };
  ctx.emit('file', { file, from });
  return file;
}

/** setState for many files in one transaction (each with its history row), announced after it. */
export function setStates(ctx: PipelineContext, fileIds: number[], to: FileState, error: string | null = null): FileRow[] {
  const moved = ctx.store.files.transitionMany(fileIds.map((fileId) => ({ fileId, to, error })));
  for (const { file, from } of moved) ctx.emit('file', { file, from });
  return moved.map((m) => m.file);
}

/** setState in the next group commit: resolves once it is stored (then the file may be acted on). */
export const storeState = (ctx: PipelineContext, fileId: number, to: FileState, error: string | null = null): Promise<FileRow> =>
  ctx.commit(() => setState(ctx, fileId, to, error));

export function log(ctx: PipelineContext, level: 'info' | 'warn' | 'error', msg: string, o: { detail?: string; topic?: string } = {}): void {
  ctx.emit('log', { level, msg, ...o });
}

/** An error's technical words, for a notice's detail or a file's detail lines. */
export function technical(e: unknown): string {
  return isServiceError(e) ? e.describe() : e instanceof Error ? e.message : String(e);
}

/** An error in the user's words. */
export function inWords(e: unknown): string {
  return isServiceError(e) ? serviceProblem(e) : e instanceof Error ? e.message : String(e);
}

/** A stored folder's settings, checked again on the way out (they were validated on the way in). */
export function settingsOf(row: FolderRow): HotFolderSettings {
  const v = validateFolderSettings(row.settings);
  if (!v.ok) throw new Error(`stored settings of ${row.path} are invalid: ${v.errors.join('; ')}`);
  return v.settings;
}
