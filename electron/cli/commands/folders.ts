import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { validateFolderSettings, type HotFolderSettings } from '../../../shared/hot-folder.js';
import type { FolderRow } from '../../engine/store/index.js';
import type { FolderTarget } from '../../../shared/hot-folder.js';
import { resolveConnection } from '../../engine/config/connection.js';
import { KeytarStore } from '../../engine/config/credentials.js';
import { checkTarget, unknownTarget } from '../../engine/service/targets.js';
import { intFlag, parseArgs, UsageError, type ParsedArgs } from '../args.js';
import { serviceClient } from '../host.js';
import { dataHome, openLocalStore } from '../local.js';
import { printJson, table } from '../output.js';
import { shown } from '../../../shared/shown.js';

export const FOLDERS_HELP = `docsync folders add PATH (--deployment ID | --app ID [--app-version V]) [options]
docsync folders update PATH [options]
docsync folders list [--json]
docsync folders remove PATH
  Hot folders are kept in the local store; a running "docsync serve" picks up changes within 3 s.
  add asks the configured service whether the deployment or app exists and refuses one it does not
  know; with no service configured, or one that cannot be reached, it adds the folder "not checked yet".
  add options:
  --recursive / --no-recursive   watch subfolders too (default: recursive)
  --include GLOB                 take only matching files (repeatable)
  --ignore GLOB                  also ignore matching files (repeatable; dotfiles, *.part, *.crdownload, ~$*, *.tmp always are)
  --poll MS                      poll every MS instead of native events (network shares)
  --stability MS                 size and mtime unchanged this long before a file is taken (default 2000; on
                                 Linux, unpolled: 500 once no program has the file open for writing)
  --rescan MS                    full rescan period (default 300000)
  --min-quiet MS                 a batch closes MS after its last file (default 1000); while files keep
                                 coming, the wait grows to twice the longest gap between them
  --quiet MS                     ... up to MS (default 10000); the same for both: a fixed wait
  --max-files N, --max-bytes N   a batch closes at N files / before N bytes
  --archive DIR | --delete-after after success: move into DIR, or delete (default: keep)
  --error-dir DIR                after failure: move there with <name>.error.txt
  --output DIR                   write each file's results as JSON and CSV into DIR
  --tag T                        run tag (repeatable)
  --post-process-pdf             ask for post-processed PDFs
  --reprocess-duplicates         take files whose content was already processed
  --follow-links / --no-follow-links
                                 take links to files outside the folder (default: off; such a link is
                                 skipped, as anyone who can write to the folder could link your files)
  sharing a folder with other computers (each runs "docsync serve" on the same network folder):
  --share NAME                   work on the folder together with every computer that names the same
                                 share on the same service: each file is processed by one of them
  --coordination-folder PATH     folder on the service where they keep track of who does what
                                 (default: docsync-shares in your workspace on the service)
  --lease SECONDS                a computer silent this long is taken for stopped, and another one
                                 finishes its files (default 60)
  --heartbeat SECONDS            how often each computer says it is still working (default 5; at most
                                 half the lease)
  update changes only the options given (the folder's path stays); --no-share stops sharing it.`;

const target = (r: FolderRow): string => (r.deploymentId ? `deployment ${r.deploymentId}` : `app ${r.appId ?? '?'}`);

/** Folder settings from the command line, in the shape validateFolderSettings takes. */
function settingsFromArgs(argv: string[], update = false): Record<string, unknown> {
  const args = parseArgs(argv, {
    values: ['deployment', 'app', 'app-version', 'poll', 'stability', 'rescan', 'min-quiet', 'quiet', 'max-files', 'max-bytes', 'archive', 'error-dir', 'output',
      'share', 'coordination-folder', 'lease', 'heartbeat'],
    repeatable: ['include', 'ignore', 'tag'],
    booleans: ['recursive', 'no-recursive', 'delete-after', 'post-process-pdf', 'reprocess-duplicates', 'follow-links', 'no-follow-links', ...(update ? ['no-share'] : [])],
  });
  if (args.positional.length !== 1) throw new UsageError(args.positional.length ? `give one folder; got ${args.positional.length}` : `give the folder: docsync folders ${update ? 'update PATH [options]' : 'add PATH --deployment ID'}`);
  const b = args.booleans;
  const f = args.flags;
  if (!update && !f.has('deployment') && !f.has('app')) throw new UsageError('a deployment or an app is required: --deployment ID or --app ID');
  if (f.has('deployment') && f.has('app')) throw new UsageError('give --deployment or --app, not both');
  if (b.has('recursive') && b.has('no-recursive')) throw new UsageError('give --recursive or --no-recursive, not both');
  if (b.has('follow-links') && b.has('no-follow-links')) throw new UsageError('give --follow-links or --no-follow-links, not both');
  if (f.has('archive') && b.has('delete-after')) throw new UsageError('give --archive DIR or --delete-after, not both');
  const s: Record<string, unknown> = { path: resolve(args.positional[0] as string) };
  if (f.has('deployment')) s.deployment = f.get('deployment');
  if (f.has('app')) s.app = f.get('app');
  if (f.has('app-version')) s.appVersion = f.get('app-version');
  if (b.has('recursive') || b.has('no-recursive')) s.recursive = b.has('recursive');
  if (args.lists.has('include')) s.include = args.lists.get('include');
  if (args.lists.has('ignore')) s.ignore = args.lists.get('ignore');
  const poll = intFlag(args, 'poll', 1);
  if (poll !== undefined) s.polling = { enabled: true, intervalMs: poll };
  const stability = intFlag(args, 'stability');
  if (stability !== undefined) s.stabilityMs = stability;
  const rescan = intFlag(args, 'rescan', 1);
  if (rescan !== undefined) s.rescanIntervalMs = rescan;
  const batching: Record<string, number> = {};
  const minQuiet = intFlag(args, 'min-quiet');
  if (minQuiet !== undefined) batching.minQuietMs = minQuiet;
  const quiet = intFlag(args, 'quiet');
  if (quiet !== undefined) batching.quietMs = quiet;
  const maxFiles = intFlag(args, 'max-files', 1);
  if (maxFiles !== undefined) batching.maxFiles = maxFiles;
  const maxBytes = intFlag(args, 'max-bytes', 1);
  if (maxBytes !== undefined) batching.maxBytes = maxBytes;
  if (Object.keys(batching).length) s.batching = batching;
  if (f.has('archive')) s.afterSuccess = { action: 'archive', archiveDir: resolve(f.get('archive') as string) };
  if (b.has('delete-after')) s.afterSuccess = { action: 'delete' };
  if (f.has('error-dir')) s.afterFailure = { errorDir: resolve(f.get('error-dir') as string) };
  if (f.has('output')) s.outputDir = resolve(f.get('output') as string);
  const run: Record<string, unknown> = {};
  if (args.lists.has('tag')) run.tags = args.lists.get('tag');
  if (b.has('post-process-pdf')) run.postProcessPdf = true;
  if (Object.keys(run).length) s.run = run;
  if (b.has('reprocess-duplicates')) s.reprocessDuplicates = true;
  if (b.has('follow-links') || b.has('no-follow-links')) s.followLinks = b.has('follow-links');
  const share = shareFromArgs(args, update);
  if (share !== undefined) s.share = share;
  return s;
}

/** --share and its options, in the shape validateFolderSettings takes; undefined: none given; null: --no-share. */
function shareFromArgs(args: ParsedArgs, update: boolean): Record<string, unknown> | null | undefined {
  const f = args.flags;
  const given = ['coordination-folder', 'lease', 'heartbeat'].filter((k) => f.has(k));
  if (args.booleans.has('no-share')) {
    if (f.has('share') || given.length) throw new UsageError('give --no-share alone, without --share or its options');
    return null;
  }
  if (!f.has('share') && given.length === 0) return undefined;
  // update may change the options of a folder shared already; the name is then kept (see update()).
  if (!f.has('share') && !update) throw new UsageError(`--${given[0]} needs --share NAME`);
  const share: Record<string, unknown> = f.has('share') ? { name: f.get('share') } : {};
  if (f.has('coordination-folder')) share.coordinationFolder = f.get('coordination-folder');
  const lease = intFlag(args, 'lease', 1);
  if (lease !== undefined) share.leaseMs = lease * 1000;
  const heartbeat = intFlag(args, 'heartbeat', 1);
  if (heartbeat !== undefined) share.heartbeatMs = heartbeat * 1000;
  return share;
}

/**
 * Asks the configured service whether the target exists: a mistyped deployment is caught now, not after
 * the first upload. Resolves with a note when it could not be asked (no service configured, offline).
 */
async function checkWithService(target: FolderTarget): Promise<string | null> {
  const conn = await resolveConnection(dataHome(), new KeytarStore()).catch(() => null);
  if (!conn) return `not checked yet: no service is configured, so whether ${target.type} "${target.id}" exists is checked with the first upload`;
  const client = serviceClient(conn);
  try {
    const known = await checkTarget(client, target);
    if (known === false) throw new Error(unknownTarget(target, conn.url));
    return known ? null : `not checked yet: ${conn.url} could not be asked, so whether ${target.type} "${target.id}" exists is checked with the first upload`;
  } finally {
    client.close();
  }
}

async function add(argv: string[]): Promise<void> {
  const v = validateFolderSettings(settingsFromArgs(argv));
  if (!v.ok) throw new UsageError(v.errors.join('; '));
  const s: HotFolderSettings = v.settings;
  const st = await stat(s.path).catch(() => null);
  if (!st?.isDirectory()) throw new UsageError(`${s.path} is not a folder`);
  const store = openLocalStore();
  try {
    if (store.folders.byPath(s.path)) throw new UsageError(`${s.path} is already a hot folder`);
    const note = await checkWithService(s.target);
    const row = store.folders.add({
      path: s.path,
      deploymentId: s.target.type === 'deployment' ? s.target.id : null,
      appId: s.target.type === 'app' ? s.target.id : null,
      settings: s as unknown as Record<string, unknown>,
    });
    const shared = s.share ? `; shared as "${s.share.name}"` : '';
    console.log(`added hot folder ${row.id}: ${shown(row.path)} -> ${target(row)}${shared}${note ? `; ${note}` : ''}`);
  } finally {
    store.close();
  }
}

/** Stored settings with what the command line changes laid over them (nested groups merged key by key). */
function merged(cur: HotFolderSettings, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...cur, ...over };
  if ('deployment' in over || 'app' in over) delete out.target;
  else if ('appVersion' in over && cur.target.type === 'app') {
    out.app = cur.target.id;
    delete out.target;
  }
  for (const k of ['batching', 'run', 'polling'] as const) if (over[k]) out[k] = { ...cur[k], ...(over[k] as object) };
  if (over.share !== undefined && over.share !== null) {
    const share = over.share as Record<string, unknown>;
    if (!cur.share && share.name === undefined) throw new UsageError(`${cur.path} is not shared: give --share NAME`);
    out.share = { ...(cur.share ?? {}), ...share };
  }
  return out;
}

async function update(argv: string[]): Promise<void> {
  const over = settingsFromArgs(argv, true);
  const store = openLocalStore();
  try {
    const row = store.folders.byPath(over.path as string);
    if (!row) throw new UsageError(`${over.path as string} is not a hot folder (see: docsync folders list)`);
    const cur = validateFolderSettings(row.settings);
    if (!cur.ok) throw new Error(`the stored settings of ${row.path} are invalid: ${cur.errors.join('; ')}`);
    const v = validateFolderSettings(merged(cur.settings, over));
    if (!v.ok) throw new UsageError(v.errors.join('; '));
    const s = v.settings;
    const targetChanged = s.target.type !== cur.settings.target.type || s.target.id !== cur.settings.target.id;
    const note = targetChanged ? await checkWithService(s.target) : null;
    const updated = store.folders.update(row.id, {
      deploymentId: s.target.type === 'deployment' ? s.target.id : null,
      appId: s.target.type === 'app' ? s.target.id : null,
      settings: s as unknown as Record<string, unknown>,
    }) as FolderRow;
    const shared = s.share ? `; shared as "${s.share.name}" (lease ${s.share.leaseMs / 1000} s, heartbeat ${s.share.heartbeatMs / 1000} s)` : '; not shared';
    console.log(`updated hot folder ${updated.id}: ${shown(updated.path)} -> ${target(updated)}${shared}${note ? `; ${note}` : ''}`);
  } finally {
    store.close();
  }
}

function list(argv: string[]): void {
  const args = parseArgs(argv, { values: [], booleans: ['json'] });
  if (args.positional.length) throw new UsageError(`unexpected argument "${args.positional[0]}"`);
  const store = openLocalStore();
  try {
    const rows = store.folders.list().map((r) => ({ ...r, unreadableFolders: store.folders.unreadable(r.id) }));
    if (args.booleans.has('json')) return printJson(rows);
    if (rows.length === 0) return console.log('no hot folders; add one with: docsync folders add PATH --deployment ID');
    console.log(table(['ID', 'TARGET', 'FILES', 'PATH'], rows.map((r) => [r.id, target(r), store.files.list({ folderId: r.id }).length, r.enabled ? r.path : `${r.path} (disabled)`])));
    // What the last scan could not read, below the table: one line per subfolder, its path in full.
    for (const r of rows) for (const dir of r.unreadableFolders) console.log(`folder ${r.id}: cannot read ${shown(dir)} (permission denied); its files are not taken`);
  } finally {
    store.close();
  }
}

function remove(argv: string[]): void {
  const args = parseArgs(argv, { values: [] });
  if (args.positional.length !== 1) throw new UsageError('give one folder: docsync folders remove PATH');
  const path = resolve(args.positional[0] as string);
  const store = openLocalStore();
  try {
    const row = store.folders.byPath(path);
    if (!row) throw new UsageError(`${path} is not a hot folder (see: docsync folders list)`);
    store.folders.remove(row.id);
    console.log(`removed hot folder ${row.id}: ${row.path} (its files' records stay in the store)`);
  } finally {
    store.close();
  }
}

export async function foldersCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'add') return add(rest);
  if (sub === 'update') return update(rest);
  if (sub === 'list') return list(rest);
  if (sub === 'remove') return remove(rest);
  throw new UsageError(sub ? `unknown subcommand "folders ${sub}"; use add, update, list or remove` : 'folders needs a subcommand: add, update, list or remove');
}
