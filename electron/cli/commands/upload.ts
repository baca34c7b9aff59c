import { resolve } from 'node:path';
import { fileProblem } from '../../../shared/ui/messages.js';
import type { FolderRunSettings, FolderTarget } from '../../../shared/hot-folder.js';
import type { FileRow, FileState } from '../../engine/store/index.js';
import { intFlag, parseArgs, UsageError } from '../args.js';
import { openHost, type Host } from '../host.js';
import { printJson, table } from '../output.js';
import { BWLIMIT_HELP, cliBwOverride } from '../bwlimit.js';
import { applyBwLimit } from '../../engine/config/bwlimit-setting.js';

/** This upload's bandwidth limit: the flag, DOCSYNC_BWLIMIT, else the app's saved setting (one that cannot be read is said, and not applied). */
function applyLimit(home: string, bw: ReturnType<typeof cliBwOverride>): void {
  try {
    applyBwLimit(home, bw);
  } catch (e) {
    console.error(`warn: ${(e as Error).message}; this upload is not limited`);
  }
}

export const UPLOAD_HELP = `docsync upload FILE... (--deployment ID | --app ID [--app-version V]) [--wait] [--timeout S] [--tag T]... [--post-process-pdf] [--bwlimit SPEC] [--json]
  Uploads the files (folders: every file in them) as one batch and starts its run. Without --wait
  it returns once the run has started ("docsync serve" follows it to the end); with --wait it
  follows the run and prints each file's final state (exit 1 if any failed).
${BWLIMIT_HELP}`;

export const RETRY_HELP = `docsync retry FILE_ID [--timeout S] [--json]
  Uploads a failed file again in a batch of its own and follows its run until it is done or
  failed (default timeout 600 s; after it, "docsync serve" finishes the work).`;

const FINAL: FileState[] = ['done', 'failed', 'skipped'];
const PAST_UPLOAD: FileState[] = ['running', ...FINAL];

/** Waits until every file is in one of `states`; false on timeout. Looks again at each change of a file the engine announces, and every 100 ms. */
async function until(host: Host, ids: number[], states: FileState[], timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  let wake = (): void => undefined;
  const onFile = (): void => wake();
  host.engine.on('file', onFile);
  try {
    for (;;) {
      if (ids.every((id) => states.includes(host.store.files.get(id)?.state as FileState))) return true;
      if (Date.now() > end) return false;
      await new Promise<void>((r) => {
        const t = setTimeout(r, 100);
        wake = () => (clearTimeout(t), r());
      });
    }
  } finally {
    host.engine.off('file', onFile);
  }
}

function report(host: Host, ids: number[], json: boolean): FileRow[] {
  const rows = ids.map((id) => host.store.files.get(id) as FileRow);
  const runs = new Map(rows.map((f) => [f.id, f.batchId === null ? undefined : host.store.runs.runForBatch(f.batchId)]));
  if (json) {
    printJson(rows.map((f) => ({ ...f, serviceRunId: runs.get(f.id)?.serviceRunId ?? null })));
  } else {
    console.log(table(['ID', 'STATE', 'RUN', 'FILE', 'ERROR'], rows.map((f) => [f.id, f.state, runs.get(f.id)?.serviceRunId, f.path, f.error && fileProblem(f.error).summary])));
  }
  return rows;
}

const timeoutOf = (args: ReturnType<typeof parseArgs>): number => (intFlag(args, 'timeout', 1) ?? 600) * 1000;

export async function uploadCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: ['deployment', 'app', 'app-version', 'timeout', 'bwlimit'], repeatable: ['tag'], booleans: ['wait', 'post-process-pdf', 'json'] });
  const bw = cliBwOverride(args.flags.get('bwlimit'));
  if (args.positional.length === 0) throw new UsageError('give the files to upload: docsync upload FILE... --deployment ID');
  const f = args.flags;
  if (f.has('deployment') === f.has('app')) throw new UsageError(f.has('app') ? 'give --deployment or --app, not both' : 'a deployment or an app is required: --deployment ID or --app ID');
  const target: FolderTarget = f.has('deployment')
    ? { type: 'deployment', id: f.get('deployment') as string }
    : { type: 'app', id: f.get('app') as string, ...(f.has('app-version') ? { version: f.get('app-version') as string } : {}) };
  const run: Partial<FolderRunSettings> = {};
  if (args.lists.has('tag')) run.tags = args.lists.get('tag') as string[];
  if (args.booleans.has('post-process-pdf')) run.postProcessPdf = true;
  const timeoutMs = timeoutOf(args);
  const wait = args.booleans.has('wait');

  // The connection is checked while the files are read and the target is asked about (one round trip, not two in a row).
  const host = await openHost({ verifyLater: true });
  applyLimit(host.home, bw);
  let failed = false;
  try {
    // Not engine.start(): this process handles only its own batch, never another host's work.
    let rows: FileRow[];
    let unverified: unknown;
    const ready = host.verified?.catch((e: unknown) => Promise.reject((unverified = e)));
    // The upload may fail before it waits for `ready` (nothing to upload): the check's failure is then
    // said below, from host.verified, and `ready` must not end the process as an unhandled rejection.
    ready?.catch(() => undefined);
    try {
      // The target is asked about beside the connection check (both at once): no round trip of its own.
      rows = await host.engine.uploadFiles(args.positional.map((p) => resolve(p)), target, run, { checkTarget: 'always', ...(ready ? { ready } : {}) });
    } catch (err) {
      if (unverified !== undefined) throw unverified;
      // The connection's failure, if any, says more than the upload's.
      await host.verified;
      throw new UsageError((err as Error).message);
    }
    const ids = rows.map((r) => r.id);
    const ok = await until(host, ids, wait ? FINAL : PAST_UPLOAD, timeoutMs);
    const final = report(host, ids, args.booleans.has('json'));
    failed = final.some((r) => r.state === 'failed');
    if (!ok) throw new Error(`timed out after ${timeoutMs / 1000} s; "docsync serve" continues the work`);
  } finally {
    await host.close();
  }
  return failed ? 1 : 0;
}

export async function retryCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: ['timeout'], booleans: ['json'] });
  if (args.positional.length !== 1 || !/^\d+$/.test(args.positional[0] as string)) throw new UsageError('give one file id: docsync retry FILE_ID (see: docsync files --state failed)');
  const id = Number(args.positional[0]);
  const timeoutMs = timeoutOf(args);
  const host = await openHost();
  let failed = false;
  try {
    if (!host.store.files.get(id)) throw new UsageError(`no file with id ${id} (see: docsync files --state failed)`);
    try {
      await host.engine.retryFile(id);
    } catch (err) {
      // The engine names the file; the id is what was typed, so it goes beside the name.
      throw new UsageError(`${(err as Error).message} (file id ${id})`);
    }
    const ok = await until(host, [id], FINAL, timeoutMs);
    failed = report(host, [id], args.booleans.has('json'))[0]?.state === 'failed';
    if (!ok) throw new Error(`timed out after ${timeoutMs / 1000} s; "docsync serve" continues the work`);
  } finally {
    await host.close();
  }
  return failed ? 1 : 0;
}
