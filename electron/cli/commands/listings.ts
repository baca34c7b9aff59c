/** Commands that only read the local store: they work offline. */
import { fileProblem } from '../../../shared/ui/messages.js';
import { FILE_STATES, type FileState } from '../../engine/store/index.js';
import { parseArgs, UsageError } from '../args.js';
import { openLocalStore } from '../local.js';
import type { Store } from '../../engine/store/index.js';
import { validateFolderSettings } from '../../../shared/hot-folder.js';
import { printJson, table, when } from '../output.js';
import { shown } from '../../../shared/shown.js';
import { limitAt } from '../../../shared/bwlimit.js';
import { bwOverride, effectiveBwLimit, type BwOverride } from '../../engine/config/bwlimit-setting.js';
import { bandwidthLine } from '../bwlimit.js';
import { dataHome } from '../local.js';

export const STATUS_HELP = `docsync status [--json]
  Files per state, uploads in progress (bytes of the parts recorded so far), hot folders, the
  runs still being followed, and for each shared hot folder the computers working on it (as the
  running serve or app last saw them); read from the local store, so it works beside a running
  serve or app. With a bandwidth limit set (saved in the app, or DOCSYNC_BWLIMIT), the limit in
  force now and until when.`;
export const FILES_HELP = `docsync files [--state S] [--json]
  Files seen, newest last. S: ${FILE_STATES.join(', ')}.`;
export const RUNS_HELP = `docsync runs [--json]
  Runs, newest first, each with the service that processed it (FROM).`;

/** "12 s ago", "5 min ago", "3 h ago". */
export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

/** Each shared hot folder with its agents as the running engine last stored them. */
function sharedFolders(store: Store) {
  const fleet = store.share.fleet();
  return store.folders.list().flatMap((f) => {
    const v = validateFolderSettings(f.settings);
    const share = v.ok ? v.settings.share : null;
    if (!share) return [];
    const agents = fleet.filter((a) => a.folderId === f.id).map(({ folderId: _folder, ...a }) => a);
    const seenMs = agents.length ? Math.max(...agents.map((a) => a.seenMs)) : null;
    return [{ folderId: f.id, path: f.path, share: share.name, seenMs, agents }];
  });
}

function printShares(shares: ReturnType<typeof sharedFolders>): void {
  for (const s of shares) {
    if (s.seenMs === null) {
      console.log(`shared folder ${shown(s.path)} (share "${shown(s.share)}"): no computer seen yet; they show here once "docsync serve" or the app runs`);
      continue;
    }
    console.log(`shared folder ${shown(s.path)} (share "${shown(s.share)}"), as seen ${ago(s.seenMs)}:`);
    console.log(table(['AGENT', 'HOST', 'LAST HEARTBEAT', 'FILES IN FLIGHT', 'STALE'], s.agents.map((a) => [
      a.self ? `${a.name} (this one)` : a.name, a.host, a.lastHeartbeatMs === null ? 'not yet' : ago(a.lastHeartbeatMs), a.inFlight, a.stale ? 'yes: its files go to the others' : 'no',
    ])));
  }
}

/** The limit this computer's serve or app uses now (DOCSYNC_BWLIMIT, else the saved setting; a serve's own --bwlimit is not known here). */
function effectiveLimit(): { line: string | null; json: { spec: string; source: string; up: number | null; down: number | null; untilMs: number | null } | null } {
  const home = dataHome();
  let override: BwOverride | null = null;
  try {
    override = bwOverride(undefined);
  } catch (e) {
    return { line: `bandwidth: ${(e as Error).message}`, json: null };
  }
  let e: ReturnType<typeof effectiveBwLimit> = null;
  try {
    e = effectiveBwLimit(home, override);
  } catch {
    // bandwidthLine says why.
  }
  const now = e ? limitAt(e.schedule, new Date()) : null;
  return {
    line: bandwidthLine(home, override),
    json: e && now ? { spec: e.schedule.spec, source: e.source, up: now.rates.up, down: now.rates.down, untilMs: now.untilMs } : null,
  };
}

function noPositional(args: { positional: string[] }): void {
  if (args.positional.length) throw new UsageError(`unexpected argument "${args.positional[0]}"`);
}

export function statusCommand(argv: string[]): void {
  const args = parseArgs(argv, { values: [], booleans: ['json'] });
  noPositional(args);
  const store = openLocalStore();
  try {
    const counts = store.files.countByState();
    const activeRuns = store.runs.activeRuns();
    const folders = store.folders.list().length;
    const transfers = store.browse.uploads();
    const shares = sharedFolders(store);
    const bw = effectiveLimit();
    if (args.booleans.has('json')) return printJson({ counts, transfers, folders, activeRuns, shares, bandwidth: bw.json });
    console.log(table(['STATE', 'FILES'], FILE_STATES.map((s) => [s, counts[s]])));
    if (bw.line) console.log(bw.line);
    if (transfers.length) {
      console.log(`uploading: ${transfers.length}`);
      console.log(table(['ID', 'SENT', 'SIZE', '%', 'PATH'], transfers.map((t) => [t.fileId, t.sent, t.total, t.total ? Math.floor((100 * t.sent) / t.total) : 100, t.path])));
    }
    console.log(`hot folders: ${folders}`);
    printShares(shares);
    if (activeRuns.length === 0) return console.log('active runs: none');
    console.log(`active runs: ${activeRuns.length}`);
    console.log(table(['RUN', 'STATUS', 'STARTED', 'FROM'], activeRuns.map((r) => [
      r.serviceRunId, r.reviewWaiting ? 'waiting for review' : (r.status ?? 'starting'), when(r.startMs ?? r.createdMs), store.services.label(r.serviceId),
    ])));
  } finally {
    store.close();
  }
}

export function filesCommand(argv: string[]): void {
  const args = parseArgs(argv, { values: ['state'], booleans: ['json'] });
  noPositional(args);
  const state = args.flags.get('state');
  if (state !== undefined && !(FILE_STATES as readonly string[]).includes(state)) throw new UsageError(`--state must be one of ${FILE_STATES.join(', ')}; got "${state}"`);
  const store = openLocalStore();
  try {
    const rows = store.files.list(state === undefined ? {} : { state: state as FileState });
    if (args.booleans.has('json')) return printJson(rows);
    if (rows.length === 0) return console.log(state ? `no ${state} files` : 'no files yet');
    console.log(table(['ID', 'STATE', 'SIZE', 'UPDATED', 'PATH', 'ERROR'], rows.map((f) => [f.id, f.state, f.size, when(f.updatedMs), f.path, f.error && fileProblem(f.error).summary])));
  } finally {
    store.close();
  }
}

export function runsCommand(argv: string[]): void {
  const args = parseArgs(argv, { values: [], booleans: ['json'] });
  noPositional(args);
  const store = openLocalStore();
  try {
    const runs = store.runs.listRuns();
    const withFiles = runs.map((r) => ({ ...r, files: r.batchId === null ? 0 : store.files.list({ batchId: r.batchId }).length, origin: store.services.label(r.serviceId) }));
    if (args.booleans.has('json')) return printJson(withFiles);
    if (runs.length === 0) return console.log('no runs yet');
    console.log(table(['RUN', 'STATUS', 'TARGET', 'FILES', 'CREATED', 'RESULTS', 'FROM'], withFiles.map((r) => [
      r.serviceRunId, r.reviewWaiting ? 'waiting for review' : (r.status ?? 'starting'), r.deploymentId ?? r.appId, r.files, when(r.createdMs),
      r.resultsStoredMs ? 'stored' : '', r.origin,
    ])));
  } finally {
    store.close();
  }
}
