/**
 * The one contract between the UI and the engine (issue 5). Request channels carry an argument and
 * return a result; event channels are pushed by the engine. Electron IPC (electron/main/ipc.ts +
 * the preload) and the headless HTTP bridge (electron/cli/ui-server.ts) are two transports of it,
 * served by one handler table (electron/engine/app/handlers.ts). Every argument is checked in the
 * engine's process with REQUEST_CHECKS before a handler sees it.
 */
import { FILE_STATES } from '../file-states.js';
import type { FolderTarget } from '../hot-folder.js';
import { arrayOf, bool, bytes, int, obj, oneOf, optional, str, union, unknown, type Check } from './check.js';
import type { IpcReply } from './ipc.js';
import type {
  ConnectionStep,
  AppInfo, ExportFile, FileHistoryEntry, FileState, FileView, FolderView, Notice, Page, ResultFileView, ResultTreeFolder, RunResultsView,
  RunView, SearchHitView, StatusView, ConnectionState, Transfer, BandwidthSettingView,
} from './views.js';

const id = int(1);
const none = obj({});
const target: Check<FolderTarget> = union(
  obj({ type: oneOf(['deployment'] as const), id: str({ min: 1, max: 200 }) }),
  obj({ type: oneOf(['app'] as const), id: str({ min: 1, max: 200 }), version: optional(str({ min: 1, max: 100 })) }),
  'a deployment or an app ({ type, id })',
) as Check<FolderTarget>;
const which = oneOf(['original', 'processed'] as const);
/** csv: one row per field; csv-wide: one row per document, one column per field; json. */
const exportFormat = oneOf(['csv', 'csv-wide', 'json'] as const);
/** A time in Unix ms; before 1970 too (a date typed as such). */
const when = int(Number.MIN_SAFE_INTEGER);
/** Largest file a browser may hand over in one piece (headless drops); larger files go through a hot folder. */
export const MAX_STAGED_BYTES = 200 * 1024 * 1024;

/**
 * How to reach the service (issue 27): none, the environment's, the system's, or this proxy with, for
 * Basic authentication, a user and password (kept with the token, never saved in a file).
 */
const proxyChoice = optional(obj({
  mode: oneOf(['none', 'environment', 'system', 'url'] as const),
  url: optional(str({ max: 2000 })),
  user: optional(str({ max: 500 })),
  password: optional(str({ max: 2000 })),
}));

export const REQUEST_CHECKS = {
  'app.info': none,
  // ca: the connection's own CA certificates, PEM text (a company CA; "More settings").
  'connection.test': obj({ url: str({ min: 1, max: 2000 }), token: optional(str({ max: 10_000 })), context: optional(str({ max: 200 })), ca: optional(str({ max: 200_000 })), proxy: proxyChoice }),
  'connection.signIn': obj({ url: str({ min: 1, max: 2000 }), token: str({ min: 1, max: 10_000 }), context: optional(str({ max: 200 })), namespace: optional(str({ max: 100 })), ca: optional(str({ max: 200_000 })), proxy: proxyChoice, sessionOnly: optional(bool) }),
  'connection.signOut': none,
  'connection.trySandbox': none,
  'status.get': none,
  'engine.pause': none,
  'engine.resume': none,
  'files.page': obj({
    states: optional(arrayOf(oneOf(FILE_STATES), FILE_STATES.length)),
    /** A folder id, or 0 for files dropped in by hand. */
    folderId: optional(int(0)),
    name: optional(str({ max: 500 })),
    offset: int(0),
    limit: int(1, 1000),
  }),
  'files.history': obj({ id }),
  'files.retry': obj({ id }),
  'files.cancel': obj({ id }),
  'files.reveal': obj({ id }),
  'files.content': obj({ which, fileId: optional(id), documentId: optional(id) }),
  'files.openExternal': obj({ which, fileId: optional(id), documentId: optional(id) }),
  'folders.list': none,
  'folders.add': obj({ settings: unknown }),
  'folders.update': obj({ id, settings: unknown }),
  'folders.remove': obj({ id }),
  'folders.setEnabled': obj({ id, enabled: bool }),
  'folders.pick': none,
  /** How many failed files of the folder a change of its settings may fix (electron/engine/pipeline/retryable.ts). */
  'folders.failedBySettings': obj({ id }),
  /** Retries those files with the folder's current settings. */
  'folders.retryFailed': obj({ id }),
  'runs.page': obj({ offset: int(0), limit: int(1, 1000) }),
  'results.tree': none,
  'results.run': obj({ runId: id }),
  'results.file': obj({ fileId: id }),
  search: obj({ query: str({ max: 500 }), limit: optional(int(1, 500)) }),
  'export.run': obj({ runId: id, format: exportFormat }),
  /** Every run with results of a folder (0: files added by hand; none: every folder) started in [sinceMs, untilMs). */
  'export.selection': obj({ folderId: optional(int(0)), sinceMs: optional(when), untilMs: optional(when), format: exportFormat }),
  'upload.paths': obj({ paths: arrayOf(str({ min: 1, max: 4096 }), 10_000), target }),
  'upload.stage': obj({ dropId: str({ min: 8, max: 64 }), relPath: str({ min: 1, max: 1024 }), bytes: bytes(MAX_STAGED_BYTES) }),
  'upload.staged': obj({ dropId: str({ min: 8, max: 64 }), target }),
  /** A drop stopped (or failed) halfway: its staged files are deleted. */
  'upload.discard': obj({ dropId: str({ min: 8, max: 64 }) }),
  /** The bandwidth limit (issue 27): rclone's --bwlimit syntax; an empty spec removes it. */
  'bandwidth.get': none,
  'bandwidth.set': obj({ spec: str({ max: 2000 }) }),
} satisfies Record<string, Check<unknown>>;

export type RequestChannel = keyof typeof REQUEST_CHECKS;
export type Args<C extends RequestChannel> = ReturnType<(typeof REQUEST_CHECKS)[C]>;

/** What each request channel resolves to. */
export interface Results {
  'app.info': AppInfo;
  'connection.test': { ok: boolean; message: string; steps: ConnectionStep[] };
  'connection.signIn': AppInfo;
  'connection.signOut': AppInfo;
  'connection.trySandbox': AppInfo;
  'status.get': StatusView;
  'engine.pause': StatusView;
  'engine.resume': StatusView;
  'files.page': Page<FileView>;
  'files.history': FileHistoryEntry[];
  'files.retry': FileView;
  'files.cancel': FileView;
  'files.reveal': { path: string; revealed: boolean };
  'files.content': { name: string; mime: string; bytes: Uint8Array };
  'files.openExternal': { path: string; opened: boolean };
  'folders.list': FolderView[];
  'folders.add': FolderView;
  'folders.update': FolderView;
  'folders.remove': { removed: true };
  'folders.setEnabled': FolderView;
  'folders.pick': { path: string | null };
  'folders.failedBySettings': { count: number };
  /** problems: one line per file that could not go again (gone, unreadable). */
  'folders.retryFailed': { retried: number; problems: string[] };
  'runs.page': Page<RunView>;
  'results.tree': ResultTreeFolder[];
  'results.run': RunResultsView;
  'results.file': ResultFileView[];
  search: SearchHitView[];
  'export.run': ExportFile;
  'export.selection': ExportFile;
  'upload.paths': FileView[];
  'upload.stage': { staged: number };
  'upload.staged': FileView[];
  'upload.discard': { discarded: true };
  'bandwidth.get': BandwidthSettingView;
  'bandwidth.set': BandwidthSettingView;
}

export const REQUEST_CHANNELS = Object.keys(REQUEST_CHECKS) as RequestChannel[];

/**
 * Channels only the desktop host serves, never HTTP: they act on local paths the person chose in
 * the OS (a drop's paths, the folder picker). Over HTTP any local process that has the secret could
 * name any path; the browser needs neither (it stages a drop's bytes, and a folder's path is typed).
 */
export const DESKTOP_ONLY: ReadonlySet<RequestChannel> = new Set<RequestChannel>(['upload.paths', 'folders.pick']);

/** Events pushed by the engine. */
export interface Events {
  /** A file was seen or changed state. */
  file: FileView;
  /** Bytes sent of the uploads in progress (throttled). */
  progress: Transfer[];
  run: RunView;
  connection: ConnectionState;
  /** Counts changed (debounced). */
  status: StatusView;
  /** Folders were added, changed or removed. */
  folders: FolderView[];
  /** Sign-in state or what the app knows changed. */
  app: AppInfo;
  /** Something a person should hear about: a run finished, a problem. */
  notice: Notice;
}

export type EventChannel = keyof Events;
export const EVENT_CHANNELS: readonly EventChannel[] = ['file', 'progress', 'run', 'connection', 'status', 'folders', 'app', 'notice'];

/** The engine's side: one function per request channel. */
export type Handlers = { [C in RequestChannel]: (args: Args<C>) => Promise<Results[C]> };

/** The UI's side: what lib/bridge.ts offers the views, whatever the transport. */
export interface Bridge {
  call<C extends RequestChannel>(channel: C, args: Args<C>): Promise<Results[C]>;
  on<E extends EventChannel>(event: E, fn: (payload: Events[E]) => void): () => void;
}

/** Checks a renderer's argument for a channel; throws PayloadError with a one-line reason. */
export function checkArgs<C extends RequestChannel>(channel: C, raw: unknown): Args<C> {
  const c = REQUEST_CHECKS[channel] as Check<Args<C>> | undefined;
  if (!c) throw new Error(`unknown channel "${String(channel)}"`);
  return c(raw ?? {}, channel);
}

export function isRequestChannel(s: string): s is RequestChannel {
  return Object.prototype.hasOwnProperty.call(REQUEST_CHECKS, s);
}

export type { FileState };

/** What the Electron preload exposes as `window.docsync`: one method per channel, nothing generic. */
export type PreloadApi = {
  /**
   * The reply envelope, not a thrown Error: an Error crossing Electron's contextBridge keeps only its
   * message, and the renderer needs the error's code too (shared/ui/errors.ts).
   */
  readonly requests: { readonly [C in RequestChannel]: (args: Args<C>) => Promise<IpcReply<Results[C]>> };
  readonly events: { readonly [E in EventChannel]: (fn: (payload: Events[E]) => void) => () => void };
  /** Electron only: the local path of a dropped File (webUtils.getPathForFile). */
  readonly pathForFile: (file: unknown) => string;
};

/** HTTP transport paths (headless host). */
export const HTTP = {
  call: '/api/call/',
  events: '/api/events',
  /** Header every API request must carry: a cross-site form or <img> cannot set it. */
  header: 'x-docsync',
} as const;
