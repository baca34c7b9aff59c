// Issue 11: a file or subfolder of a hot folder that DocSync may not read. The engine runs in its own
// process as an unprivileged user (test/helpers/unprivileged.ts: root reads whatever the mode says),
// on real folders whose modes really deny it, against the sandbox over HTTP; this process reads its
// store and runs `docsync folders list` as the same user.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { folderView } from '../../../electron/engine/app/views.js';
import { openStore, STORE_FILE, type FileRow, type Store } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { buildCliIfNeeded, MAIN } from '../../helpers/build-cli.js';
import { numberedInvoice } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { startEngineProcess, type EngineProcess } from '../../helpers/engine-process.js';
import { cannotRunUnprivileged, giveToEngine, runAs } from '../../helpers/unprivileged.js';
import { waitUntil } from '../../helpers/wait.js';

await buildCliIfNeeded();
const skip = cannotRunUnprivileged();

let sb: RunningSandbox;
let root: string;
let engine: EngineProcess | undefined;
let store: Store | undefined;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb?.close();
});
afterEach(async () => {
  store?.close();
  store = undefined;
  await engine?.stop();
  engine = undefined;
  await rm(root, { recursive: true, force: true });
});

const invoice = numberedInvoice;

/** A temp root others may enter, a data home the engine owns, an inbox; the engine watching it. */
async function start(): Promise<{ inbox: string; home: string }> {
  root = await mkdtemp(join(tmpdir(), 'docsync-unreadable-'));
  await chmod(root, 0o755);
  const home = join(root, 'home');
  const inbox = join(root, 'inbox');
  // As DocSync makes a data home: its owner's alone (else the command tightens it and says so, issue 26).
  await mkdir(home, { mode: 0o700 });
  await giveToEngine(home);
  await mkdir(inbox, { recursive: true });
  return { inbox, home };
}

async function run(home: string, inbox: string, folder: Record<string, unknown>): Promise<void> {
  engine = await startEngineProcess({ home, url: sb.url, folder: { path: inbox, deployment: 'sandbox-invoices', stabilityMs: 150, batching: { quietMs: 300 }, ...folder } }, { as: runAs });
  // The engine process created the store and its WAL files: this connection only reads beside it.
  store = openStore(join(home, STORE_FILE));
}

const latest = (path: string): FileRow | undefined => store?.files.byPath(path);

/** The docsync command as the engine's user, on its data home, signed in to the sandbox. */
function docsync(home: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, DOCSYNC_HOME: home, LANG: 'C.UTF-8', DOCSYNC_URL: sb.url, DOCSYNC_TOKEN: 'admin-token' }, ...runAs,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const foldersList = (home: string, json = false) => docsync(home, ['folders', 'list', ...(json ? ['--json'] : [])]);

describe.skipIf(skip !== null)(`what DocSync may not read${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('an unreadable file shows as failed with the reason, and is taken once it can be read, without a restart', async () => {
    const { inbox, home } = await start();
    const secret = join(inbox, 'secret.pdf');
    await writeFile(secret, await invoice(1), { mode: 0o000 });
    await writeFile(join(inbox, 'open.pdf'), await invoice(2));
    // No periodic rescan within the test: only the change event of the chmod can bring it back.
    await run(home, inbox, { rescanIntervalMs: 600_000 });
    await waitUntil(() => latest(secret)?.state === 'failed', 'secret.pdf shows as failed');
    const failed = latest(secret)!;
    expect(failed.error).toBe('DocSync cannot read this file: permission denied');
    await waitUntil(() => latest(join(inbox, 'open.pdf'))?.state === 'done', 'the readable file beside it is done', 30_000);
    expect(latest(secret)?.state).toBe('failed');

    await chmod(secret, 0o644);
    await waitUntil(() => latest(secret)?.state === 'done', 'secret.pdf is done once readable', 30_000);
    // The same row went on: the queue shows one secret.pdf, failed, then taken.
    expect(latest(secret)?.id).toBe(failed.id);
    expect(store!.files.history(failed.id).map((e) => e.toState)).toEqual(
      ['discovered', 'failed', 'stable', 'queued', 'uploading', 'uploaded', 'running', 'done'],
    );
  }, 60_000);

  it('a file whose read permission goes before its upload fails with the reason, out of its batch, and is taken once readable', async () => {
    const { inbox, home } = await start();
    const late = join(inbox, 'late.pdf');
    await writeFile(late, await invoice(6));
    // A long quiet period: the file waits queued in the open batch while its permission is taken away.
    await run(home, inbox, { rescanIntervalMs: 600_000, batching: { minQuietMs: 1500, quietMs: 1500 } });
    await waitUntil(() => latest(late)?.state === 'queued', 'late.pdf is queued');
    await chmod(late, 0o000);
    await waitUntil(() => latest(late)?.state === 'failed', 'late.pdf fails at upload', 30_000);
    expect(latest(late)).toMatchObject({ error: 'DocSync cannot read this file: permission denied', batchId: null });
    await chmod(late, 0o644);
    await waitUntil(() => latest(late)?.state === 'done', 'late.pdf is done once readable', 30_000);
  }, 60_000);

  it('docsync upload of a file or subfolder it cannot read: one line with the reason, nothing stored or sent', async () => {
    const { inbox, home } = await start();
    const secret = join(inbox, 'secret.pdf');
    await writeFile(secret, await invoice(4), { mode: 0o000 });
    const batchCount = async (): Promise<number> =>
      ((await (await fetch(`${sb.url}/v2/batches`, { headers: { Authorization: 'Bearer admin-token' } })).json()) as { batches: unknown[] }).batches.length;
    const before = await batchCount();
    const up = await docsync(home, ['upload', secret, '--deployment', 'sandbox-invoices']);
    expect(up.code, up.stderr).toBe(2);
    expect(up.stderr.trimEnd()).toBe(`docsync: ${secret}: DocSync cannot read this file: permission denied`);
    // A folder given whole, with a subfolder it cannot list: refused, naming the subfolder.
    const locked = join(inbox, 'more', 'locked');
    await mkdir(locked, { recursive: true });
    await writeFile(join(inbox, 'more', 'open.pdf'), await invoice(5));
    await chmod(locked, 0o000);
    const folder = await docsync(home, ['upload', join(inbox, 'more'), '--deployment', 'sandbox-invoices']);
    expect(folder.code, folder.stderr).toBe(2);
    expect(folder.stderr.trimEnd()).toBe(`docsync: ${locked}: DocSync cannot read this folder: permission denied`);
    const files = await docsync(home, ['files', '--json']);
    expect(JSON.parse(files.stdout)).toEqual([]);
    expect(await batchCount()).toBe(before);
  }, 60_000);

  it('an unreadable subfolder shows on the folder with its path (app and docsync folders list), and clears once it can be read', async () => {
    const { inbox, home } = await start();
    const locked = join(inbox, 'locked');
    await mkdir(join(locked, 'deeper'), { recursive: true });
    await writeFile(join(locked, 'inside.pdf'), await invoice(3));
    await chmod(locked, 0o000);
    // As above, only change events between the first scan and the end: the chmod of the folder is one.
    await run(home, inbox, { rescanIntervalMs: 600_000 });
    const folderId = store!.folders.byPath(inbox)!.id;
    await waitUntil(() => store!.folders.unreadable(folderId).length > 0, 'the scan reports the locked subfolder');
    expect(store!.folders.unreadable(folderId)).toEqual([locked]);

    // The app's folder card is drawn from this view.
    const view = folderView(store!.folders.get(folderId)!, store!.browse.folderStats(), store!, null);
    expect(view.unreadableFolders).toEqual([locked]);
    const listed = await foldersList(home);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`folder ${folderId}: cannot read ${locked} (permission denied); its files are not taken`);
    const json = JSON.parse((await foldersList(home, true)).stdout) as { unreadableFolders: string[] }[];
    expect(json[0]?.unreadableFolders).toEqual([locked]);

    await chmod(locked, 0o755);
    await waitUntil(() => store!.folders.unreadable(folderId).length === 0, 'the problem clears once the folder can be read');
    await waitUntil(() => latest(join(locked, 'inside.pdf'))?.state === 'done', 'its file is taken and done', 30_000);
    expect((await foldersList(home)).stdout).not.toContain('cannot read');
  }, 60_000);
});
