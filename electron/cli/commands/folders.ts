import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { validateFolderSettings, type HotFolderSettings } from '../../../shared/hot-folder.js';
import type { FolderRow } from '../../engine/store/index.js';
import type { FolderTarget } from '../../../shared/hot-folder.js';
import { resolveConnection } from '../../engine/config/connection.js';
import { KeytarStore } from '../../engine/config/credentials.js';
import { checkTarget, unknownTarget } from '../../engine/service/targets.js';
import { intFlag, parseArgs, UsageError } from '../args.js';
import { serviceClient } from '../host.js';
import { dataHome, openLocalStore } from '../local.js';
import { printJson, table } from '../output.js';

export const FOLDERS_HELP = `docsync folders add PATH (--deployment ID | --app ID [--app-version V]) [options]
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
  --reprocess-duplicates         take files whose content was already processed`;

const target = (r: FolderRow): string => (r.deploymentId ? `deployment ${r.deploymentId}` : `app ${r.appId ?? '?'}`);

/** Folder settings from the command line, in the shape validateFolderSettings takes. */
function settingsFromArgs(argv: string[]): Record<string, unknown> {
  const args = parseArgs(argv, {
    values: ['deployment', 'app', 'app-version', 'poll', 'stability', 'rescan', 'min-quiet', 'quiet', 'max-files', 'max-bytes', 'archive', 'error-dir', 'output'],
    repeatable: ['include', 'ignore', 'tag'],
    booleans: ['recursive', 'no-recursive', 'delete-after', 'post-process-pdf', 'reprocess-duplicates'],
  });
  if (args.positional.length !== 1) throw new UsageError(args.positional.length ? `give one folder; got ${args.positional.length}` : 'give the folder to watch: docsync folders add PATH --deployment ID');
  const b = args.booleans;
  const f = args.flags;
  if (!f.has('deployment') && !f.has('app')) throw new UsageError('a deployment or an app is required: --deployment ID or --app ID');
  if (f.has('deployment') && f.has('app')) throw new UsageError('give --deployment or --app, not both');
  if (b.has('recursive') && b.has('no-recursive')) throw new UsageError('give --recursive or --no-recursive, not both');
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
  return s;
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
    console.log(`added hot folder ${row.id}: ${row.path} -> ${target(row)}${note ? `; ${note}` : ''}`);
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
    for (const r of rows) for (const dir of r.unreadableFolders) console.log(`folder ${r.id}: cannot read ${dir} (permission denied); its files are not taken`);
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
  if (sub === 'list') return list(rest);
  if (sub === 'remove') return remove(rest);
  throw new UsageError(sub ? `unknown subcommand "folders ${sub}"; use add, list or remove` : 'folders needs a subcommand: add, list or remove');
}
