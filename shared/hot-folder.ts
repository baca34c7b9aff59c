/**
 * Settings of one hot folder (issue 4, "Hot folders"): the type, its defaults and the validation the UI,
 * the CLI and the engine share. Pure: no Node built-ins.
 */
import { globError } from './glob.js';

/** What a folder's files are run through: a deployment, or an app (optionally a pinned version). */
export type FolderTarget = { type: 'deployment'; id: string } | { type: 'app'; id: string; version?: string };

export type AfterSuccess = { action: 'keep' } | { action: 'archive'; archiveDir: string } | { action: 'delete' };

export interface FolderRunSettings {
  tags: string[];
  /** Custom keys passed as `settings.keys.custom` (any JSON value). */
  customKeys: Record<string, unknown>;
  /** PDF passwords by document title (`runtime_config.<namespace>.pdf.passwords`; the client's namespace segment, default svc). */
  pdfPasswords: Record<string, string>;
  /** `runtime_config.generate_post_process_pdf`. */
  postProcessPdf: boolean;
}

export interface FolderBatching {
  /**
   * A batch closes after `minQuietMs` without a new file; while files keep coming, that wait grows to
   * twice the longest gap between the batch's files, up to `quietMs` (see electron/engine/watch/batcher.ts).
   * A single scan is not held back; a scanner feeding a stack still fills one batch.
   */
  minQuietMs: number;
  /** The longest wait without a new file that keeps a batch open. */
  quietMs: number;
  /** A batch closes as soon as it holds this many files. */
  maxFiles: number;
  /** A batch closes before it would exceed this many bytes (a larger single file forms a batch alone). */
  maxBytes: number;
}

export interface HotFolderSettings {
  /** Absolute path of the watched folder. */
  path: string;
  target: FolderTarget;
  recursive: boolean;
  /** When non-empty, only files matching one of these are taken (see shared/glob.ts). */
  include: string[];
  /** Added to the default ignores (dotfiles, *.part, *.crdownload, ~$*, *.tmp). */
  ignore: string[];
  /** Polling instead of native events (network shares). */
  polling: { enabled: boolean; intervalMs: number };
  /**
   * A file is stable when its size and mtime are unchanged for this long. In a folder that is not
   * polled, on Linux, a file no visible program has open for writing is stable sooner (QUICK_STABLE_MS).
   */
  stabilityMs: number;
  /** Full rescan period; catches whatever the watcher misses. */
  rescanIntervalMs: number;
  batching: FolderBatching;
  afterSuccess: AfterSuccess;
  /** Failed files are moved here with a `<name>.error.txt`; null leaves them in place. */
  afterFailure: { errorDir: string | null };
  run: FolderRunSettings;
  /** Each file's results are written here as JSON and CSV; null for none. */
  outputDir: string | null;
  /** Take files whose content (sha256) was already processed. */
  reprocessDuplicates: boolean;
  /**
   * Take links to files outside the folder (issue 26). Off: such a link is skipped with the reason, so
   * whoever may write into a shared folder cannot have the owner's own files uploaded.
   */
  followLinks: boolean;
  /** Worked on together with other DocSync agents watching the same share (issue 15); null: this agent alone. */
  share: ShareSettings | null;
}

/** A folder's share (issue 15): agents naming the same share on the same service split its files between them. */
export interface ShareSettings {
  /** Set the same on every agent. Letters, digits, '.', '_' and '-' (it names a service folder). */
  name: string;
  /** Service folder for the coordination records; empty: `<default drive>/workspaces/<workspace>/docsync-shares`. */
  coordinationFolder: string;
  /** A claim whose holder's heartbeat has not changed for this long may be taken over by another agent. */
  leaseMs: number;
  /** How often this agent writes its heartbeat and looks at the others'. */
  heartbeatMs: number;
}

/**
 * How long a file's size and mtime must hold when no visible program has it open for writing (the
 * quick stability rule): two looks this far apart, so a writer that closes and reopens is still seen.
 */
export const QUICK_STABLE_MS = 500;

export const FOLDER_DEFAULTS = {
  recursive: true,
  include: [] as string[],
  ignore: [] as string[],
  polling: { enabled: false, intervalMs: 2000 },
  stabilityMs: 2000,
  rescanIntervalMs: 5 * 60_000,
  batching: { minQuietMs: 1000, quietMs: 10_000, maxFiles: 100, maxBytes: 1024 * 1024 * 1024 },
  afterSuccess: { action: 'keep' } as AfterSuccess,
  afterFailure: { errorDir: null as string | null },
  run: { tags: [] as string[], customKeys: {} as Record<string, unknown>, pdfPasswords: {} as Record<string, string>, postProcessPdf: false },
  outputDir: null as string | null,
  reprocessDuplicates: false,
  followLinks: false,
  share: null as ShareSettings | null,
} as const;

export const SHARE_DEFAULTS = { coordinationFolder: '', leaseMs: 60_000, heartbeatMs: 5_000 } as const;

export const LIMITS = {
  pollIntervalMs: { min: 100, max: 3_600_000 },
  stabilityMs: { min: 0, max: 3_600_000 },
  rescanIntervalMs: { min: 1000, max: 24 * 3_600_000 },
  quietMs: { min: 0, max: 24 * 3_600_000 },
  maxFiles: { min: 1, max: 100_000 },
  maxBytes: { min: 1, max: Number.MAX_SAFE_INTEGER },
  leaseMs: { min: 1_000, max: 24 * 3_600_000 },
  heartbeatMs: { min: 200, max: 3_600_000 },
} as const;

export type ValidationResult = { ok: true; settings: HotFolderSettings } | { ok: false; errors: string[] };

const TOP_KEYS = new Set([
  'path', 'target', 'deployment', 'app', 'appVersion', 'recursive', 'include', 'ignore', 'polling', 'stabilityMs', 'rescanIntervalMs',
  'batching', 'afterSuccess', 'afterFailure', 'run', 'outputDir', 'reprocessDuplicates', 'followLinks', 'share',
]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? 'an object' : String(v));

/** Absolute on POSIX (`/x`), Windows (`C:\x`, `C:/x`) or UNC (`\\server\share`). */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/** Comparable form of a path: `/` separators, no trailing separator, lower-cased on Windows-style paths. */
function comparable(p: string): string {
  let s = p.replace(/\\/g, '/');
  while (s.length > 1 && s.endsWith('/')) s = s.slice(0, -1);
  return /^[A-Za-z]:\//.test(s) || s.startsWith('//') ? s.toLowerCase() : s;
}

/** True when `inner` is `outer` or inside it. */
export function isInside(inner: string, outer: string): boolean {
  const a = comparable(inner);
  const b = comparable(outer);
  return a === b || a.startsWith(b.endsWith('/') ? b : `${b}/`);
}

/**
 * Validate raw settings (from JSON, the CLI or a form) and fill in defaults. Every problem is reported, each
 * as one sentence naming the setting. Accepts the shorthands `deployment: ID` and `app: ID` (+ `appVersion`)
 * for `target`.
 */
export function validateFolderSettings(raw: unknown): ValidationResult {
  const errors: string[] = [];
  if (!isRecord(raw)) return { ok: false, errors: [`folder settings must be an object, got ${describe(raw)}`] };
  for (const k of Object.keys(raw)) if (!TOP_KEYS.has(k)) errors.push(`unknown setting "${k}"`);

  const str = (v: unknown, name: string): string | undefined => {
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
    errors.push(`${name} must be a non-empty string, got ${describe(v)}`);
    return undefined;
  };
  const bool = (v: unknown, name: string, dflt: boolean): boolean => {
    if (v === undefined) return dflt;
    if (typeof v === 'boolean') return v;
    errors.push(`${name} must be true or false, got ${describe(v)}`);
    return dflt;
  };
  const int = (v: unknown, name: string, dflt: number, lim: { min: number; max: number }): number => {
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      errors.push(`${name} must be a whole number, got ${describe(v)}`);
      return dflt;
    }
    if (v < lim.min || v > lim.max) {
      errors.push(`${name} must be between ${lim.min} and ${lim.max}, got ${v}`);
      return dflt;
    }
    return v;
  };
  const obj = (v: unknown, name: string): Record<string, unknown> => {
    if (v === undefined) return {};
    if (isRecord(v)) return v;
    errors.push(`${name} must be an object, got ${describe(v)}`);
    return {};
  };
  const onlyKeys = (o: Record<string, unknown>, name: string, keys: string[]): void => {
    for (const k of Object.keys(o)) if (!keys.includes(k)) errors.push(`unknown setting "${name}.${k}" (known: ${keys.join(', ')})`);
  };
  const absPath = (v: unknown, name: string): string | undefined => {
    const s = str(v, name);
    if (s !== undefined && !isAbsolutePath(s)) {
      errors.push(`${name} must be an absolute path, got ${JSON.stringify(s)}`);
      return undefined;
    }
    return s;
  };
  const patterns = (v: unknown, name: string): string[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      errors.push(`${name} must be a list of patterns, got ${describe(v)}`);
      return [];
    }
    const out: string[] = [];
    v.forEach((p, i) => {
      const why = globError(p);
      if (why) errors.push(`${name}[${i}]: ${why}`);
      else out.push((p as string).trim());
    });
    return out;
  };
  const stringList = (v: unknown, name: string): string[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === '')) {
      errors.push(`${name} must be a list of non-empty strings, got ${describe(v)}`);
      return [];
    }
    return [...(v as string[])];
  };

  // path
  const path = absPath(raw.path, 'path');

  // target
  let target: FolderTarget | undefined;
  const given = ['target', 'deployment', 'app'].filter((k) => raw[k] !== undefined);
  if (given.length === 0) errors.push('a deployment or an app is required (set "deployment" or "app")');
  else if (given.length > 1) errors.push(`set only one of ${given.map((k) => `"${k}"`).join(', ')}`);
  else if (raw.deployment !== undefined) {
    const id = str(raw.deployment, 'deployment');
    if (id) target = { type: 'deployment', id };
  } else if (raw.app !== undefined) {
    const id = str(raw.app, 'app');
    const version = raw.appVersion === undefined ? undefined : str(raw.appVersion, 'appVersion');
    if (id) target = version ? { type: 'app', id, version } : { type: 'app', id };
  } else {
    const t = obj(raw.target, 'target');
    if (t.type === 'deployment') {
      onlyKeys(t, 'target', ['type', 'id']);
      const id = str(t.id, 'target.id');
      if (id) target = { type: 'deployment', id };
    } else if (t.type === 'app') {
      onlyKeys(t, 'target', ['type', 'id', 'version']);
      const id = str(t.id, 'target.id');
      const version = t.version === undefined ? undefined : str(t.version, 'target.version');
      if (id) target = version ? { type: 'app', id, version } : { type: 'app', id };
    } else if (isRecord(raw.target)) {
      errors.push(`target.type must be "deployment" or "app", got ${describe(t.type)}`);
    }
  }
  if (raw.appVersion !== undefined && raw.app === undefined) errors.push('appVersion is only allowed with "app"');

  const recursive = bool(raw.recursive, 'recursive', FOLDER_DEFAULTS.recursive);
  const include = patterns(raw.include, 'include');
  const ignore = patterns(raw.ignore, 'ignore');

  const pollingRaw = obj(raw.polling, 'polling');
  onlyKeys(pollingRaw, 'polling', ['enabled', 'intervalMs']);
  const polling = {
    enabled: bool(pollingRaw.enabled, 'polling.enabled', FOLDER_DEFAULTS.polling.enabled),
    intervalMs: int(pollingRaw.intervalMs, 'polling.intervalMs', FOLDER_DEFAULTS.polling.intervalMs, LIMITS.pollIntervalMs),
  };
  const stabilityMs = int(raw.stabilityMs, 'stabilityMs', FOLDER_DEFAULTS.stabilityMs, LIMITS.stabilityMs);
  const rescanIntervalMs = int(raw.rescanIntervalMs, 'rescanIntervalMs', FOLDER_DEFAULTS.rescanIntervalMs, LIMITS.rescanIntervalMs);

  const b = obj(raw.batching, 'batching');
  onlyKeys(b, 'batching', ['minQuietMs', 'quietMs', 'maxFiles', 'maxBytes']);
  const quietMs = int(b.quietMs, 'batching.quietMs', FOLDER_DEFAULTS.batching.quietMs, LIMITS.quietMs);
  // Folders stored before minQuietMs existed get the default, or their quietMs when that is shorter.
  const minQuietMs = int(b.minQuietMs, 'batching.minQuietMs', Math.min(FOLDER_DEFAULTS.batching.minQuietMs, quietMs), LIMITS.quietMs);
  if (minQuietMs > quietMs) errors.push(`batching.minQuietMs must not be longer than batching.quietMs (${minQuietMs} > ${quietMs})`);
  const batching: FolderBatching = {
    minQuietMs,
    quietMs,
    maxFiles: int(b.maxFiles, 'batching.maxFiles', FOLDER_DEFAULTS.batching.maxFiles, LIMITS.maxFiles),
    maxBytes: int(b.maxBytes, 'batching.maxBytes', FOLDER_DEFAULTS.batching.maxBytes, LIMITS.maxBytes),
  };

  let afterSuccess: AfterSuccess = FOLDER_DEFAULTS.afterSuccess;
  if (raw.afterSuccess !== undefined) {
    const s = obj(raw.afterSuccess, 'afterSuccess');
    if (s.action === 'keep' || s.action === 'delete') {
      onlyKeys(s, 'afterSuccess', ['action']);
      afterSuccess = { action: s.action };
    } else if (s.action === 'archive') {
      onlyKeys(s, 'afterSuccess', ['action', 'archiveDir']);
      if (s.archiveDir === undefined) errors.push('afterSuccess.archiveDir is required when afterSuccess.action is "archive"');
      else {
        const dir = absPath(s.archiveDir, 'afterSuccess.archiveDir');
        if (dir) afterSuccess = { action: 'archive', archiveDir: dir };
      }
    } else if (isRecord(raw.afterSuccess)) {
      errors.push(`afterSuccess.action must be "keep", "archive" or "delete", got ${describe(s.action)}`);
    }
  }

  const f = obj(raw.afterFailure, 'afterFailure');
  onlyKeys(f, 'afterFailure', ['errorDir']);
  const errorDir = f.errorDir === undefined || f.errorDir === null ? null : (absPath(f.errorDir, 'afterFailure.errorDir') ?? null);

  const r = obj(raw.run, 'run');
  onlyKeys(r, 'run', ['tags', 'customKeys', 'pdfPasswords', 'postProcessPdf']);
  const customKeys = obj(r.customKeys, 'run.customKeys');
  const pdfRaw = obj(r.pdfPasswords, 'run.pdfPasswords');
  const pdfPasswords: Record<string, string> = {};
  for (const [title, pw] of Object.entries(pdfRaw)) {
    if (typeof pw === 'string') pdfPasswords[title] = pw;
    else errors.push(`run.pdfPasswords["${title}"] must be a string`);
  }
  const run: FolderRunSettings = {
    tags: stringList(r.tags, 'run.tags'),
    customKeys: { ...customKeys },
    pdfPasswords,
    postProcessPdf: bool(r.postProcessPdf, 'run.postProcessPdf', FOLDER_DEFAULTS.run.postProcessPdf),
  };

  const outputDir = raw.outputDir === undefined || raw.outputDir === null ? null : (absPath(raw.outputDir, 'outputDir') ?? null);
  const reprocessDuplicates = bool(raw.reprocessDuplicates, 'reprocessDuplicates', FOLDER_DEFAULTS.reprocessDuplicates);
  const followLinks = bool(raw.followLinks, 'followLinks', FOLDER_DEFAULTS.followLinks);

  let share: ShareSettings | null = null;
  if (raw.share !== undefined && raw.share !== null) {
    const sh = obj(raw.share, 'share');
    onlyKeys(sh, 'share', ['name', 'coordinationFolder', 'leaseMs', 'heartbeatMs']);
    const name = str(sh.name, 'share.name');
    if (name !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(name)) errors.push(`share.name may hold only letters, digits, ".", "_" and "-" (up to 100), got ${JSON.stringify(name)}`);
    let coordinationFolder: string = SHARE_DEFAULTS.coordinationFolder;
    if (sh.coordinationFolder !== undefined && sh.coordinationFolder !== '') {
      const c = str(sh.coordinationFolder, 'share.coordinationFolder');
      // A service path: drive/folder/..., never local, never leaving the drive.
      if (c !== undefined && (c.startsWith('/') || c.includes('\\') || c.split('/').some((seg) => seg === '..' || seg === '.'))) {
        errors.push(`share.coordinationFolder must be a folder on the service such as svc-drive/shared/docsync, got ${JSON.stringify(c)}`);
      } else if (c !== undefined) coordinationFolder = c.replace(/\/+$/, '');
    }
    const leaseMs = int(sh.leaseMs, 'share.leaseMs', SHARE_DEFAULTS.leaseMs, LIMITS.leaseMs);
    const heartbeatMs = int(sh.heartbeatMs, 'share.heartbeatMs', SHARE_DEFAULTS.heartbeatMs, LIMITS.heartbeatMs);
    // Two heartbeats must fit in a lease, or a live agent looks dead between them.
    if (heartbeatMs * 2 > leaseMs) errors.push(`share.heartbeatMs must be at most half of share.leaseMs (${heartbeatMs} > ${leaseMs} / 2)`);
    if (name !== undefined) share = { name, coordinationFolder, leaseMs, heartbeatMs };
  }

  // Folders the engine writes into must not be re-read as new input.
  if (path) {
    const written: [string, string | null][] = [
      ['afterSuccess.archiveDir', afterSuccess.action === 'archive' ? afterSuccess.archiveDir : null],
      ['afterFailure.errorDir', errorDir],
      ['outputDir', outputDir],
    ];
    for (const [name, dir] of written) {
      if (dir === null) continue;
      if (isInside(path, dir)) errors.push(`${name} must not be the watched folder or contain it`);
      else if (isInside(dir, path)) {
        const rel = comparable(dir).slice(comparable(path).length + 1);
        const hidden = rel.split('/').some((seg) => seg.startsWith('.'));
        // A non-recursive folder never reads its subfolders; a recursive one skips dot-folders by default.
        if (recursive && !hidden) errors.push(`${name} is inside the watched folder and would be picked up again; put it outside, or in a folder whose name starts with "."`);
      }
    }
  }

  if (errors.length > 0 || !path || !target) return { ok: false, errors };
  return {
    ok: true,
    settings: { path, target, recursive, include, ignore, polling, stabilityMs, rescanIntervalMs, batching, afterSuccess, afterFailure: { errorDir }, run, outputDir, reprocessDuplicates, followLinks, share },
  };
}
