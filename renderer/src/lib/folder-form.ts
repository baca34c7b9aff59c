/**
 * The hot-folder form: every HotFolderSettings field as a person edits it (seconds, minutes, MB, one
 * pattern per line, JSON for custom keys), converted to the engine's ms and bytes, and the engine's
 * validation messages mapped back onto the form's fields. Pure.
 */
import { FOLDER_DEFAULTS, LIMITS, SHARE_DEFAULTS, type HotFolderSettings } from '../../../shared/hot-folder.js';
import { draftOf, targetOf, type TargetDraft } from './target.js';

export interface PasswordRow {
  title: string;
  password: string;
}

export interface FolderForm {
  path: string;
  target: TargetDraft;
  recursive: boolean;
  /** One pattern per line. */
  include: string;
  ignore: string;
  polling: boolean;
  pollSeconds: string;
  stableSeconds: string;
  rescanMinutes: string;
  /** Wait after a batch's last file (it grows while files keep coming). */
  minQuietSeconds: string;
  /** The longest that wait grows to. */
  quietSeconds: string;
  maxFiles: string;
  maxMB: string;
  afterSuccess: 'keep' | 'archive' | 'delete';
  archiveDir: string;
  /** Empty: failed files stay where they are. */
  errorDir: string;
  /** Comma- or line-separated. */
  tags: string;
  /** A JSON object; empty for none. */
  customKeys: string;
  passwords: PasswordRow[];
  postProcessPdf: boolean;
  /** Empty: no result files written. */
  outputDir: string;
  reprocessDuplicates: boolean;
  /** Take links to files outside the folder (off: they are skipped, issue 26). */
  followLinks: boolean;
  /** Worked on together with other DocSync agents (issue 15). The share's fields below are kept while it is off, but not sent. */
  shared: boolean;
  /** Set the same on every agent. */
  shareName: string;
  /** A folder on the service; empty: the default in the workspace. */
  coordinationFolder: string;
  /** Without a sign of life for this long, another agent's files are taken over. */
  leaseSeconds: string;
  /** How often this agent gives a sign of life. */
  heartbeatSeconds: string;
}

export type FormField = keyof FolderForm | 'form';

export interface FieldError {
  field: FormField;
  msg: string;
}

const MB = 1024 * 1024;
/** A number as a form shows it: no float noise (0.30000000000000004), no trailing zeros. */
const show = (n: number): string => String(Number(n.toFixed(3)));

export function formOf(s: HotFolderSettings | null, path = ''): FolderForm {
  const d = s ?? { ...FOLDER_DEFAULTS, path, target: null };
  return {
    path: d.path,
    target: draftOf(d.target),
    recursive: d.recursive,
    include: d.include.join('\n'),
    ignore: d.ignore.join('\n'),
    polling: d.polling.enabled,
    pollSeconds: show(d.polling.intervalMs / 1000),
    stableSeconds: show(d.stabilityMs / 1000),
    rescanMinutes: show(d.rescanIntervalMs / 60_000),
    minQuietSeconds: show(d.batching.minQuietMs / 1000),
    quietSeconds: show(d.batching.quietMs / 1000),
    maxFiles: String(d.batching.maxFiles),
    maxMB: show(d.batching.maxBytes / MB),
    afterSuccess: d.afterSuccess.action,
    archiveDir: d.afterSuccess.action === 'archive' ? d.afterSuccess.archiveDir : '',
    errorDir: d.afterFailure.errorDir ?? '',
    tags: d.run.tags.join(', '),
    customKeys: Object.keys(d.run.customKeys).length > 0 ? JSON.stringify(d.run.customKeys, null, 2) : '',
    passwords: Object.entries(d.run.pdfPasswords).map(([title, password]) => ({ title, password })),
    postProcessPdf: d.run.postProcessPdf,
    outputDir: d.outputDir ?? '',
    reprocessDuplicates: d.reprocessDuplicates,
    followLinks: d.followLinks,
    shared: d.share !== null,
    shareName: d.share?.name ?? '',
    coordinationFolder: d.share?.coordinationFolder ?? SHARE_DEFAULTS.coordinationFolder,
    leaseSeconds: show((d.share?.leaseMs ?? SHARE_DEFAULTS.leaseMs) / 1000),
    heartbeatSeconds: show((d.share?.heartbeatMs ?? SHARE_DEFAULTS.heartbeatMs) / 1000),
  };
}

type NumberOf = (field: FormField, label: string, raw: string, scale: number, lim: { min: number; max: number }, unit: string) => number;

/** Reads a number typed in the form's unit (seconds, MB...) as the engine's (ms, bytes); a problem goes into `errors`. */
function numberIn(errors: FieldError[]): NumberOf {
  return (field, label, raw, scale, lim, unit) => {
    const t = raw.trim();
    const n = t === '' ? NaN : Number(t);
    if (!Number.isFinite(n)) {
      errors.push({ field, msg: `${label} must be a number${unit ? ` of ${unit}` : ''}` });
      return 0;
    }
    const v = Math.round(n * scale);
    if (v < lim.min || v > lim.max) {
      const max = lim.max === Number.MAX_SAFE_INTEGER ? '' : ` and ${show(lim.max / scale)}`;
      errors.push({ field, msg: max ? `${label} must be between ${show(lim.min / scale)}${max}${unit ? ` ${unit}` : ''}` : `${label} must be at least ${show(lim.min / scale)}${unit ? ` ${unit}` : ''}` });
    }
    return v;
  };
}

/**
 * The settings the engine takes (its validator fills in nothing the form leaves out: every field is
 * sent), plus the problems only the form can see: numbers that are not numbers or out of range in the
 * form's units, JSON that does not parse, a password without a title.
 */
export function settingsOf(f: FolderForm): { settings: Record<string, unknown>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const num = numberIn(errors);
  const lines = (s: string): string[] => s.split('\n').map((x) => x.trim()).filter(Boolean);
  const dir = (s: string): string | null => (s.trim() === '' ? null : s.trim());

  const target = targetOf(f.target);
  if (!target) errors.push({ field: 'target', msg: `Give the ${f.target.type === 'app' ? 'app' : 'deployment'} id the files go to` });

  let customKeys: unknown = {};
  if (f.customKeys.trim() !== '') {
    try {
      customKeys = JSON.parse(f.customKeys);
      if (typeof customKeys !== 'object' || customKeys === null || Array.isArray(customKeys)) {
        errors.push({ field: 'customKeys', msg: 'Custom keys must be a JSON object, like {"team": "north"}' });
      }
    } catch (e) {
      errors.push({ field: 'customKeys', msg: `Custom keys are not valid JSON: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  const pdfPasswords: Record<string, string> = {};
  for (const row of f.passwords) {
    const title = row.title.trim();
    if (title === '' && row.password === '') continue;
    if (title === '') errors.push({ field: 'passwords', msg: 'Each PDF password needs the document title it opens' });
    else if (title in pdfPasswords) errors.push({ field: 'passwords', msg: `Two passwords for the title "${title}"` });
    else pdfPasswords[title] = row.password;
  }

  const settings: Record<string, unknown> = {
    path: f.path.trim(),
    target: target ?? { type: f.target.type, id: '' },
    recursive: f.recursive,
    include: lines(f.include),
    ignore: lines(f.ignore),
    polling: { enabled: f.polling, intervalMs: num('pollSeconds', 'Polling interval', f.pollSeconds, 1000, LIMITS.pollIntervalMs, 'seconds') },
    stabilityMs: num('stableSeconds', 'Stable after', f.stableSeconds, 1000, LIMITS.stabilityMs, 'seconds'),
    rescanIntervalMs: num('rescanMinutes', 'Full rescan', f.rescanMinutes, 60_000, LIMITS.rescanIntervalMs, 'minutes'),
    batching: {
      minQuietMs: num('minQuietSeconds', 'Wait after the last file', f.minQuietSeconds, 1000, LIMITS.quietMs, 'seconds'),
      quietMs: num('quietSeconds', 'Longest wait', f.quietSeconds, 1000, LIMITS.quietMs, 'seconds'),
      maxFiles: num('maxFiles', 'Files per batch', f.maxFiles, 1, LIMITS.maxFiles, ''),
      maxBytes: num('maxMB', 'Batch size', f.maxMB, MB, LIMITS.maxBytes, 'MB'),
    },
    afterSuccess: f.afterSuccess === 'archive' ? { action: 'archive', archiveDir: f.archiveDir.trim() } : { action: f.afterSuccess },
    afterFailure: { errorDir: dir(f.errorDir) },
    run: {
      tags: f.tags.split(/[,\n]/).map((t) => t.trim()).filter(Boolean),
      customKeys,
      pdfPasswords,
      postProcessPdf: f.postProcessPdf,
    },
    outputDir: dir(f.outputDir),
    reprocessDuplicates: f.reprocessDuplicates,
    followLinks: f.followLinks,
    share: f.shared ? shareOf(f, num, errors) : null,
  };
  const b = settings.batching as { minQuietMs: number; quietMs: number };
  if (!errors.some((e) => e.field === 'minQuietSeconds' || e.field === 'quietSeconds') && b.minQuietMs > b.quietMs) {
    errors.push({ field: 'minQuietSeconds', msg: 'Wait after the last file cannot be longer than the longest wait' });
  }
  if (!f.path.trim()) errors.push({ field: 'path', msg: 'Give the folder to watch' });
  if (f.afterSuccess === 'archive' && !f.archiveDir.trim()) errors.push({ field: 'archiveDir', msg: 'Give the folder processed files are moved to' });
  return { settings, errors };
}

/** The share's settings, and the problems only the form sees, in its words. */
function shareOf(f: FolderForm, num: NumberOf, errors: FieldError[]): Record<string, unknown> {
  const name = f.shareName.trim();
  if (name === '') errors.push({ field: 'shareName', msg: 'Give the share a name, the same on every agent that shares this folder' });
  else if (!/^[A-Za-z0-9._-]{1,100}$/.test(name)) errors.push({ field: 'shareName', msg: 'The share name may hold only letters, digits, “.”, “_” and “-” (up to 100)' });
  const leaseMs = num('leaseSeconds', 'Take over after', f.leaseSeconds, 1000, LIMITS.leaseMs, 'seconds');
  const heartbeatMs = num('heartbeatSeconds', 'Sign of life every', f.heartbeatSeconds, 1000, LIMITS.heartbeatMs, 'seconds');
  const bad = (field: FormField): boolean => errors.some((e) => e.field === field);
  // Two signs of life must fit in the wait, or a live agent would look stopped between them.
  if (!bad('leaseSeconds') && !bad('heartbeatSeconds') && heartbeatMs * 2 > leaseMs) {
    errors.push({ field: 'heartbeatSeconds', msg: 'A sign of life must come at least twice within the wait before files are taken over' });
  }
  return { name, coordinationFolder: f.coordinationFolder.trim().replace(/\/+$/, ''), leaseMs, heartbeatMs };
}

/** Which form field an engine message is about, by the setting it names first. */
const FIELD_OF: [RegExp, FormField][] = [
  [/^(?:unknown setting "?)?path\b/, 'path'],
  [/^(?:target|deployment|app|appVersion)\b|^a deployment or an app|^set only one of/, 'target'],
  [/^include\b/, 'include'],
  [/^ignore\b/, 'ignore'],
  [/^polling\b/, 'pollSeconds'],
  [/^stabilityMs\b/, 'stableSeconds'],
  [/^rescanIntervalMs\b/, 'rescanMinutes'],
  [/^batching\.minQuietMs\b/, 'minQuietSeconds'],
  [/^batching\.quietMs\b/, 'quietSeconds'],
  [/^batching\.maxFiles\b/, 'maxFiles'],
  [/^batching\.maxBytes\b/, 'maxMB'],
  [/^afterSuccess\b/, 'archiveDir'],
  [/^afterFailure\b/, 'errorDir'],
  [/^run\.tags\b/, 'tags'],
  [/^run\.customKeys\b/, 'customKeys'],
  [/^run\.pdfPasswords\b/, 'passwords'],
  [/^run\.postProcessPdf\b/, 'postProcessPdf'],
  [/^outputDir\b/, 'outputDir'],
  [/^reprocessDuplicates\b/, 'reprocessDuplicates'],
  [/^followLinks\b/, 'followLinks'],
  [/^share\.coordinationFolder\b/, 'coordinationFolder'],
  [/^share\.leaseMs\b/, 'leaseSeconds'],
  [/^share\.heartbeatMs\b/, 'heartbeatSeconds'],
  [/^(?:unknown setting "?)?share\b/, 'shareName'],
];

/**
 * The engine's one-line error split into its problems, each put on the field it names. The line lists
 * the problems separated by "; " (possibly after a lead-in ending in ": "). `path` is the folder the
 * form sent: the engine names it first when it is the folder itself that is wrong ("… is not a
 * folder", "… is already a hot folder"), which belongs on the path field, not in a banner.
 */
export function engineErrors(line: string, path = ''): FieldError[] {
  if (path !== '' && line.startsWith(`${path} `) && !line.includes('; ')) return [{ field: 'path', msg: line }];
  const body = line.replace(/^[^:;"]*\bsettings?\b[^:;"]*:\s*/i, '');
  const out: FieldError[] = [];
  for (const part of body.split(/;\s+/).map((s) => s.trim()).filter(Boolean)) {
    const field = FIELD_OF.find(([re]) => re.test(part))?.[1];
    const prev = out[out.length - 1];
    // Some problems carry their own "; " ("... picked up again; put it outside, ..."): a part naming
    // no setting and not starting a sentence of its own continues the one before.
    if (!field && prev && !/^(unknown|folder settings|[A-Z])/.test(part)) prev.msg += `; ${part}`;
    else out.push({ msg: part, field: field ?? 'form' });
  }
  return out;
}

/** JSON with object keys sorted, so two settings compare by content whatever order they were built in. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/**
 * True when a save changed what the service is given for the folder's files (the target and the run
 * options: tags, custom keys, PDF passwords, post-processing): only such a change can fix files that
 * failed at the service, so only then is retrying them offered.
 */
export function serviceSettingsChanged(before: HotFolderSettings, after: Record<string, unknown>): boolean {
  return canonical({ target: before.target, run: before.run }) !== canonical({ target: after.target, run: after.run });
}
