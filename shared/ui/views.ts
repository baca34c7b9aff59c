/**
 * What the UI sees of the engine: plain data, no Node or DOM types. The engine's store rows are
 * mapped onto these (electron/engine/app/views.ts); the renderer imports only this side.
 */
import type { ProxyChoice } from './proxy-setting.js';
import type { SourceMediaType } from '../media-type.js';
import type { FileState } from '../file-states.js';
import type { FolderTarget, HotFolderSettings } from '../hot-folder.js';
import type { RunStatus } from '../service/runs.js';

export type { FileState, FolderTarget, HotFolderSettings, RunStatus };

export interface FileView {
  id: number;
  folderId: number | null;
  path: string;
  /** The name as found on disk (the service may see a safe, unique variant). */
  name: string;
  size: number;
  state: FileState;
  error: string | null;
  batchId: number | null;
  /** Local run id once the file's batch has a run. */
  runId: number | null;
  updatedMs: number;
  /** Running in a run that waits for a person's review. */
  reviewWaiting: boolean;
  /** Since when the run waits for review (ms since the epoch, as first seen here), else null. */
  reviewSinceMs: number | null;
  /** Queued in a batch still open for more files: when it closes (ms since the epoch), else null. */
  batchClosesMs: number | null;
  /** In a shared folder, the name of the other agent handling it (state `elsewhere`), else null. */
  handledBy: string | null;
}

export interface FileHistoryEntry {
  from: FileState | null;
  to: FileState;
  atMs: number;
  error: string | null;
}

export interface Page<T> {
  total: number;
  offset: number;
  rows: T[];
}

export interface Transfer {
  fileId: number;
  sent: number;
  total: number;
}

export interface StatusView {
  counts: Record<FileState, number>;
  transfers: Transfer[];
  paused: boolean;
  activeRuns: number;
  reviewWaiting: number;
  /** The bandwidth limit in force now, or null when transfers are not limited (issue 27). */
  bandwidth: BandwidthStatus | null;
}

/** A bandwidth limit in force: bytes per second each way (null: that way is not limited) and when it next changes. */
export interface BandwidthStatus {
  up: number | null;
  down: number | null;
  untilMs: number | null;
  /** Saved in the app, DOCSYNC_BWLIMIT, or --bwlimit. */
  source: 'saved' | 'env' | 'flag';
}

/** The bandwidth setting: what is saved for every host, and what overrides it in this process. */
export interface BandwidthSettingView {
  saved: string | null;
  override: { source: 'env' | 'flag'; spec: string } | null;
}

export interface FolderView {
  id: number;
  path: string;
  settings: HotFolderSettings;
  enabled: boolean;
  counts: Record<FileState, number>;
  /** Last time a file of this folder changed state; null when none has yet. */
  lastActivityMs: number | null;
  /** Why the folder cannot be watched right now (missing, unreadable), else null. */
  problem: string | null;
  /** Subfolders (absolute paths) its last scan could not read: their files are not taken. */
  unreadableFolders: string[];
  /** Its deployment or app was set while the service could not be asked: not checked yet. */
  targetUnchecked: boolean;
  /** A shared folder's agents (this one included), as this agent last saw their heartbeats; null when the folder is not shared. */
  fleet: FleetAgentView[] | null;
}

/** One DocSync agent of a shared folder (issue 15), as this agent sees it. */
export interface FleetAgentView {
  /** Stable per data home (for keys; people see `name`). */
  id: string;
  /** Its --agent-name, else its host name. */
  name: string;
  host: string;
  /** When its heartbeat last changed, on this agent's clock (ms since the epoch); null: not seen change yet. */
  lastHeartbeatMs: number | null;
  /** Files it holds and has not finished. */
  inFlight: number;
  /** The agent this UI belongs to ("this computer"). */
  self: boolean;
  /** No sign of life for longer than the lease: its files are being taken over. */
  stale: boolean;
}

export interface RunView {
  id: number;
  serviceRunId: string;
  deploymentId: string | null;
  appId: string | null;
  status: RunStatus | null;
  msg: string | null;
  reviewWaiting: boolean;
  files: number;
  /** Of `files`: done, and failed (a completed run can have failed files). */
  done: number;
  failed: number;
  folderId: number | null;
  createdMs: number;
  startMs: number | null;
  finishMs: number | null;
  resultsStored: boolean;
  /** Where the run ran, as a person says it: "the sandbox", "https://host" (shown as "from ..."); null when not known. */
  origin: string | null;
}

/** A validation alert; `level` as the service sent it (open: `FAILURE` on the real service, also WARNING, INFO...). */
export interface AlertView { level: string | null; type: string | null; msg: string | null }

/**
 * A field's source box on a page (the service's source_coordinates: top_x -> left, top_y -> top,
 * bottom_x -> right, bottom_y -> bottom), in the units of the document's pageLayouts, origin top-left.
 */
export interface SourceBox {
  /** 0-based page of the original (the service's source_coordinates page_number): index it, do not show it. */
  page: number | null;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface FieldView {
  id: number;
  name: string;
  value: string | null;
  type: string | null;
  errorMsg: string | null;
  confidence: number | null;
  ocrConfidence: number | null;
  valid: boolean | null;
  alerts: AlertView[];
  boxes: SourceBox[];
  isError: boolean;
}

/** Size of a page in the units of its fields' source boxes (the service's page_layouts). */
export interface PageLayoutView {
  /** 0-based page of the original. */
  page: number;
  width: number;
  height: number;
}

export interface DocumentView {
  id: number;
  className: string | null;
  /** The service's page_numbers: pages of the original counted from 1, as a person counts them (show these). */
  pageNumbers: number[];
  /** The same pages counted from 0: the page indexes of the original that source boxes and page layouts use. */
  pageIndexes: number[];
  /** Page sizes for scaling source boxes onto a rendered page; empty when the service sent none. */
  pageLayouts: PageLayoutView[];
  classificationConfidence: number | null;
  hasPostProcessedPdf: boolean;
  fields: FieldView[];
}

export interface ResultFileView {
  id: number;
  runId: number;
  serviceRunId: string;
  fileId: number | null;
  name: string;
  /** What the original on this disk is, by its own bytes, when the UI can draw its pages (PDF, PNG, JPEG, TIFF); null otherwise or when it is gone. */
  originalType: SourceMediaType | null;
  originalAvailable: boolean;
  documents: DocumentView[];
}

export interface CaseFieldView {
  name: string;
  value: string | null;
  errorMsg: string | null;
  valid: boolean | null;
  /** Why it is not valid: the service's validations.failures. */
  failures: { type: string | null; msg: string | null }[];
}

export interface RunResultsView {
  run: RunView;
  files: ResultFileView[];
  caseFields: CaseFieldView[];
}

export interface ResultTreeFolder {
  /** null: files dropped in by hand. */
  folderId: number | null;
  path: string | null;
  runs: { id: number; serviceRunId: string; createdMs: number; files: number; status: RunStatus | null; origin: string | null; deploymentId: string | null; appId: string | null }[];
}

export interface SearchHitView {
  kind: 'field' | 'document';
  runId: number;
  serviceRunId: string;
  /** When the run was made (ms since the epoch): how the hit names it. */
  runCreatedMs: number | null;
  /** Where the run ran (see RunView.origin). */
  origin: string | null;
  resultFileId: number;
  documentId: number;
  fieldId: number | null;
  fieldName: string | null;
  className: string | null;
  fileName: string | null;
  /** Text around the match; matched terms between \u0001 and \u0002 (the UI highlights them). */
  snippet: string;
}

export type ConnectionState =
  | { kind: 'none' }
  | { kind: 'connecting'; url: string }
  | { kind: 'online'; url: string }
  /** atProxy: the proxy cannot be reached (or cannot reach the service); `reason` is then a whole sentence about the proxy. */
  | { kind: 'offline'; url: string; reason: string; sinceMs: number; atProxy?: boolean }
  | { kind: 'refused'; url: string; reason: string };

export interface AccountView {
  url: string;
  context: string | null;
  /** The deployment's namespace segment when not the default `svc`. */
  namespace: string | null;
  /** Where the token is kept: the OS keychain, memory (session only), the environment, or the built-in sandbox. */
  tokenSource: 'keychain' | 'memory' | 'environment' | 'sandbox';
  /** "signed in as ..." (a user name when the service tells one, else the account key). */
  signedInAs: string;
  /** Whether the connection trusts a CA certificate of its own (a company CA). */
  ownCa?: boolean;
  /** How the service is reached (never the proxy's credentials), and the proxy in use, if any (`host:port`). */
  proxy?: ProxyChoice;
  proxyInUse?: string | null;
  /** Whether a proxy user name and password are kept with the token. */
  proxyCredentials?: boolean;
}

export interface AppInfo {
  version: string;
  host: 'electron' | 'headless';
  platform: string;
  dataHome: string;
  account: AccountView | null;
  connection: ConnectionState;
  /** Null when the keychain works; else why not (the UI offers a session-only token). */
  keychainProblem: string | null;
  /** Deployments and apps seen in folders and runs, for the pickers. */
  knownTargets: FolderTarget[];
}

export interface ExportFile {
  name: string;
  mime: string;
  text: string;
}

export interface Notice {
  level: 'info' | 'warn' | 'error';
  /** One sentence in the user's words: what happened and what DocSync will do. */
  msg: string;
  atMs: number;
  /** The technical words behind it (shown on request), or null. */
  detail?: string | null;
  /**
   * What the notice is about, so the UI can take it away once that is resolved: `files:ID,ID` (goes
   * once those files are done), `signin` (once signed in), `service` (once the service answers).
   */
  topic?: string | null;
}

/** One step of the way to the service, as "Test connection" and `docsync doctor` walk it (electron/engine/service/doctor.ts). */
export interface ConnectionStep {
  step: 'name' | 'proxy' | 'connect' | 'tls' | 'http' | 'token' | 'context' | 'namespace';
  outcome: 'ok' | 'failed' | 'skipped';
  /** What was found, or why it failed. */
  said: string;
  /** What helps, for a failed step. */
  help?: string;
}
