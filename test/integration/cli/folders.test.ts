// `docsync folders add|list|remove` and the offline listing commands (issue 4, "The docsync command"):
// they work on the local store alone, with no service configured at all.
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FolderRow } from '../../../electron/engine/store/index.js';
import { buildIfNeeded, cliEnv, expectOneLineError, type Cli } from './cli-env.js';

let cli: Cli;
beforeAll(async () => {
  await buildIfNeeded();
  cli = await cliEnv(); // no DOCSYNC_URL, no login: offline
}, 120_000);
afterAll(async () => {
  await cli.close();
});

describe('docsync folders (offline)', () => {
  it('folders add stores the folder with every given setting; folders list --json shows it', async () => {
    const inbox = cli.dir('inbox');
    await mkdir(inbox);
    const r = await cli.run([
      'folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--no-recursive', '--include', '*.pdf', '--include', '*.PDF',
      '--ignore', 'draft-*', '--poll', '500', '--stability', '300', '--min-quiet', '400', '--quiet', '700', '--max-files', '5', '--max-bytes', '1000000',
      '--archive', cli.dir('archive'), '--error-dir', cli.dir('errors'), '--output', cli.dir('out'), '--tag', 'a', '--tag', 'b',
      '--post-process-pdf', '--reprocess-duplicates',
    ]);
    expect(r.code, r.stderr).toBe(0);
    // No service configured: taken, and said to be checked with the first upload.
    expect(r.stdout).toMatch(/^added hot folder 1: .*inbox -> deployment sandbox-invoices; not checked yet: no service is configured/m);
    const rows = await cli.json<FolderRow[]>(['folders', 'list']);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ path: inbox, deploymentId: 'sandbox-invoices', appId: null, enabled: true });
    expect(rows[0]?.settings).toMatchObject({
      recursive: false, include: ['*.pdf', '*.PDF'], ignore: ['draft-*'], polling: { enabled: true, intervalMs: 500 }, stabilityMs: 300,
      batching: { minQuietMs: 400, quietMs: 700, maxFiles: 5, maxBytes: 1000000 }, afterSuccess: { action: 'archive', archiveDir: cli.dir('archive') },
      afterFailure: { errorDir: cli.dir('errors') }, outputDir: cli.dir('out'), run: { tags: ['a', 'b'], postProcessPdf: true }, reprocessDuplicates: true,
    });
  });

  it('a relative path is resolved against the working directory; --app targets an app; text list shows both', async () => {
    await mkdir(cli.dir('second'));
    const r = await cli.run(['folders', 'add', 'second', '--app', 'app-invoice-extractor', '--delete-after']);
    expect(r.code, r.stderr).toBe(0);
    const rows = await cli.json<FolderRow[]>(['folders', 'list']);
    expect(rows.map((f) => [f.path, f.deploymentId, f.appId])).toEqual([
      [cli.dir('inbox'), 'sandbox-invoices', null],
      [cli.dir('second'), null, 'app-invoice-extractor'],
    ]);
    expect(rows[1]?.settings).toMatchObject({ afterSuccess: { action: 'delete' }, recursive: true });
    const text = await cli.run(['folders', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/deployment sandbox-invoices\s+0\s+.*inbox/);
    expect(text.stdout).toMatch(/app app-invoice-extractor\s+0\s+.*second/);
  });

  it.each([
    ['a missing folder', ['folders', 'add', '/no/such/folder', '--deployment', 'sandbox-invoices'], /\/no\/such\/folder is not a folder/],
    ['no deployment or app', ['folders', 'add', '.'], /a deployment or an app is required/],
    ['both deployment and app', ['folders', 'add', '.', '--deployment', 'd', '--app', 'a'], /not both/],
    ['an invalid pattern', ['folders', 'add', '.', '--deployment', 'd', '--include', '[oops'], /include\[0\]/],
    ['a non-numeric --quiet', ['folders', 'add', '.', '--deployment', 'd', '--quiet', 'soon'], /--quiet must be an integer/],
    ['an archive inside the watched folder', ['folders', 'add', '.', '--deployment', 'd', '--archive', 'done'], /archiveDir is inside the watched folder/],
    ['an unknown option', ['folders', 'add', '.', '--deployment', 'd', '--frobnicate'], /unknown option --frobnicate/],
    ['an unknown subcommand', ['folders', 'rename'], /unknown subcommand "folders rename"/],
  ])('folders add with %s exits 2 with one line and stores nothing', async (_what, args, msg) => {
    const r = await cli.run(args);
    expectOneLineError(r, msg, 2);
    expect(await cli.json<FolderRow[]>(['folders', 'list'])).toHaveLength(2);
  });

  it('adding the same folder twice is refused', async () => {
    expectOneLineError(await cli.run(['folders', 'add', cli.dir('inbox'), '--deployment', 'x']), /already a hot folder/, 2);
  });

  it('links to files outside the folder are off by default; --follow-links on add and update turns them on, --no-follow-links off (issue 26)', async () => {
    const settingsOf = async (path: string): Promise<Record<string, unknown> | undefined> =>
      (await cli.json<FolderRow[]>(['folders', 'list'])).find((f) => f.path === path)?.settings;
    expect(await settingsOf(cli.dir('inbox'))).toMatchObject({ followLinks: false });
    await mkdir(cli.dir('links'));
    const added = await cli.run(['folders', 'add', cli.dir('links'), '--deployment', 'sandbox-invoices', '--follow-links']);
    expect(added.code, added.stderr).toBe(0);
    expect(await settingsOf(cli.dir('links'))).toMatchObject({ followLinks: true });
    const off = await cli.run(['folders', 'update', cli.dir('links'), '--no-follow-links']);
    expect(off.code, off.stderr).toBe(0);
    expect(await settingsOf(cli.dir('links'))).toMatchObject({ followLinks: false });
    const on = await cli.run(['folders', 'update', cli.dir('inbox'), '--follow-links']);
    expect(on.code, on.stderr).toBe(0);
    // Only what was given changes: the inbox keeps its other settings.
    expect(await settingsOf(cli.dir('inbox'))).toMatchObject({ followLinks: true, recursive: false, reprocessDuplicates: true });
    expectOneLineError(await cli.run(['folders', 'update', cli.dir('inbox'), '--follow-links', '--no-follow-links']), /give --follow-links or --no-follow-links, not both/, 2);
    expect((await cli.run(['folders', '--help'])).stdout).toMatch(/--follow-links .*take links to files outside the folder/s);
    expect((await cli.run(['folders', 'remove', cli.dir('links')])).code).toBe(0);
  });

  it('folders remove of an unknown folder is a one-line error; of a known one removes it', async () => {
    expectOneLineError(await cli.run(['folders', 'remove', cli.dir('nope')]), /nope is not a hot folder/, 2);
    const r = await cli.run(['folders', 'remove', cli.dir('second')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^removed hot folder 2: /);
    expect((await cli.json<FolderRow[]>(['folders', 'list'])).map((f) => f.path)).toEqual([cli.dir('inbox')]);
  });
});

describe('read-only commands work offline', () => {
  it('status --json gives a count for every state, the folder count and no active runs', async () => {
    const s = await cli.json<{ counts: Record<string, number>; folders: number; activeRuns: unknown[] }>(['status']);
    expect(s.counts).toEqual({ discovered: 0, stable: 0, queued: 0, uploading: 0, uploaded: 0, running: 0, done: 0, failed: 0, skipped: 0, elsewhere: 0 });
    expect(s.folders).toBe(1);
    expect(s.activeRuns).toEqual([]);
  });

  it('files, runs and search give empty JSON arrays; results and export say there is nothing', async () => {
    expect(await cli.json(['files'])).toEqual([]);
    expect(await cli.json(['files', '--state', 'failed'])).toEqual([]);
    expect(await cli.json(['runs'])).toEqual([]);
    expect(await cli.json(['search', 'invoice'])).toEqual([]);
    expectOneLineError(await cli.run(['results']), /no run has results yet/, 2);
    expectOneLineError(await cli.run(['export', 'run-x', '--format', 'csv', '--out', cli.dir('x.csv')]), /no run "run-x"/, 2);
    expectOneLineError(await cli.run(['files', '--state', 'lost']), /--state must be one of discovered, .*skipped, elsewhere; got "lost"/, 2);
  });

  it('commands that need the service say how to configure one', async () => {
    expectOneLineError(await cli.run(['upload', cli.dir('inbox'), '--deployment', 'sandbox-invoices']), /no service configured: run "docsync login --url URL" or set DOCSYNC_URL/, 2);
    expectOneLineError(await cli.run(['retry', '1']), /no service configured/, 2);
  });

  it('an unknown command is a one-line error listing the commands', async () => {
    expectOneLineError(await cli.run(['frobnicate']), /unknown command "frobnicate"; commands: serve, login, logout, folders/, 2);
  });
});
