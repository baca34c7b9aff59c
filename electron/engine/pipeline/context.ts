import { serviceProblem } from '../../../shared/ui/messages.js';
import { isServiceError, type ServiceClient } from '../service/index.js';
import type { Store } from '../store/index.js';
import type { FileRow, FileState } from '../store/index.js';
import type { FolderRow, RunRow } from '../store/index.js';
import { validateFolderSettings, type HotFolderSettings } from '../../../shared/hot-folder.js';

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
}

/** Persists a state change, then announces it: the store is the truth, events are news. */
export function setState(ctx: PipelineContext, fileId: number, to: FileState, error: string | null = null): FileRow {
  const before = ctx.store.files.get(fileId);
  const file = ctx.store.files.transition(fileId, to, error);
  ctx.emit('file', { file, from: before?.state ?? null });
  return file;
}

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
