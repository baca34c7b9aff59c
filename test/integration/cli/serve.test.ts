// `docsync serve` (issue 4): runs the engine until SIGINT/SIGTERM, prints `engine running` once
// watching, and uses the built-in sandbox when no service is configured.
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileRow } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { buildIfNeeded, cliEnv, expectOneLineError, lineMatching, type Cli } from './cli-env.js';

let sb: RunningSandbox;
const envs: Cli[] = [];
beforeAll(async () => {
  await buildIfNeeded();
  sb = await sandbox();
}, 120_000);
afterAll(async () => {
  await sb?.close();
  for (const c of envs) await c.close();
});

async function env(service?: { url: string; token: string }): Promise<Cli> {
  const c = await cliEnv(service);
  envs.push(c);
  return c;
}

describe('docsync serve', () => {
  it('with no service configured it starts the built-in sandbox, says so, prints "engine running" once, and exits 0 on SIGTERM', async () => {
    const cli = await env();
    const { child, exit } = cli.spawn(['serve']);
    try {
      const said = await lineMatching(child, /built-in sandbox/);
      const url = /at (http:\/\/127\.0\.0\.1:\d+) /.exec(said)?.[1];
      expect(said).toMatch(/^no service configured: using the built-in sandbox at http:\/\/127\.0\.0\.1:\d+ \(data .*home\/sandbox, with a token of its own kept there for you alone\)$/);
      await lineMatching(child, /^engine running$/);
      // The sandbox really serves there, and keeps its state in the data home.
      const health = await fetch(`${url}/sandbox/health`);
      expect(health.status).toBe(200);
      expect(existsSync(join(cli.home, 'sandbox', 'sandbox.db'))).toBe(true);
      // Issue 26: not with the documented token, which any local account knows; with the one made for
      // this data home, kept there for its owner alone and never printed.
      const runs = (token: string) => fetch(`${url}/v2/apps/runs`, { headers: { Authorization: `Bearer ${token}` } });
      expect((await runs('admin-token')).status).toBe(401);
      const tokenFile = join(cli.home, 'sandbox', 'access-token');
      const token = (await readFile(tokenFile, 'utf8')).trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
      expect((await runs(token)).status).toBe(200);
      child.kill('SIGTERM');
      const done = await exit;
      expect(done).toMatchObject({ code: 0, signal: null });
      expect(done.stdout.split('\n').filter((l) => l === 'engine running')).toHaveLength(1);
      expect(done.stdout.trimEnd().split('\n').at(-1)).toBe('engine stopped');
      expect(done.stderr).toBe('');
      expect(done.stdout).not.toContain(token);
      await expect(fetch(`${url}/sandbox/health`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('with DOCSYNC_URL it watches the hot folders: a dropped invoice is processed and reported; SIGINT exits 0', async () => {
    const cli = await env({ url: sb.url, token: 'admin-token' });
    const inbox = cli.dir('inbox');
    await mkdir(inbox);
    const added = await cli.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--stability', '150', '--quiet', '300', '--rescan', '1000']);
    expect(added.code, added.stderr).toBe(0);
    const { child, exit } = cli.spawn(['serve']);
    try {
      await lineMatching(child, /^engine running$/);
      await writeFile(join(inbox, 'inv-7.pdf'), await invoicePdf({ invoiceNumber: 'INV-7', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$7.00', vendor: 'Seven Ltd' }));
      await lineMatching(child, /^done\s+.*inv-7\.pdf$/, 30_000);
      child.kill('SIGINT');
      const done = await exit;
      expect(done).toMatchObject({ code: 0, signal: null });
      expect(done.stdout).not.toMatch(/built-in sandbox/);
      expect(done.stdout).toMatch(/^service: http:\/\/127\.0\.0\.1:\d+; data: .*; hot folders: 1$/m);
    } finally {
      child.kill('SIGKILL');
    }
    // The store, read offline afterwards, has the file done with its results.
    const files = await cli.json<FileRow[]>(['files', '--state', 'done']);
    expect(files.map((f) => f.originalName)).toEqual(['inv-7.pdf']);
    const hits = await cli.json<{ value: string }[]>(['search', 'INV-7']);
    expect(hits.map((h) => h.value)).toContain('INV-7');
  });

  it('a polled hot folder (a network share) is processed the same way, found by the poller alone (the rescan is an hour away)', async () => {
    const cli = await env({ url: sb.url, token: 'admin-token' });
    const share = cli.dir('share');
    await mkdir(join(share, 'scans'), { recursive: true });
    const added = await cli.run(['folders', 'add', share, '--deployment', 'sandbox-invoices', '--poll', '200', '--stability', '150', '--quiet', '300', '--rescan', '3600000']);
    expect(added.code, added.stderr).toBe(0);
    const { child, exit } = cli.spawn(['serve']);
    try {
      await lineMatching(child, /^engine running$/);
      // Let the poller take its first listings (an interval), then drop a file into a subfolder.
      await new Promise((r) => setTimeout(r, 600));
      await writeFile(join(share, 'scans', 'inv-8.pdf'), await invoicePdf({ invoiceNumber: 'INV-8', invoiceDate: 'May 2, 2026', dueDate: 'June 1, 2026', total: '$8.00', vendor: 'Eight Ltd' }));
      await lineMatching(child, /^done\s+.*inv-8\.pdf$/, 30_000);
      child.kill('SIGTERM');
      expect(await exit).toMatchObject({ code: 0, signal: null });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('with a wrong token serve fails at once in one line (exit 1) instead of running', async () => {
    const cli = await env({ url: sb.url, token: 'nope' });
    const { child, exit } = cli.spawn(['serve']);
    const done = await exit;
    child.kill('SIGKILL');
    expectOneLineError(done, /did not accept the sign-in \(the token may be wrong or expired\): give a new token with "docsync login --url URL"/, 1);
    expect(done.stderr).not.toMatch(/\b401\b|listBatches|failed \(http/);
    expect(done.stdout).not.toContain('engine running');
  });

  it('a hot folder added by another docsync command is picked up by the running serve, and removed again', async () => {
    const cli = await env({ url: sb.url, token: 'admin-token' });
    const { child, exit } = cli.spawn(['serve', '--no-ui']);
    try {
      await lineMatching(child, /^engine running$/);
      const inbox = cli.dir('late');
      await mkdir(inbox);
      const added = await cli.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--stability', '150', '--quiet', '300', '--rescan', '1000']);
      expect(added.code, added.stderr).toBe(0);
      await writeFile(join(inbox, 'late-8.pdf'), await invoicePdf({ invoiceNumber: 'INV-8', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$8.00', vendor: 'Eight Ltd' }));
      await lineMatching(child, /^done\s+.*late-8\.pdf$/, 30_000);
      expect((await cli.run(['folders', 'remove', inbox])).code).toBe(0);
      // Removed: within the sync period the watcher stops, and a new file is left alone.
      await new Promise((r) => setTimeout(r, 4000));
      await writeFile(join(inbox, 'after.pdf'), await invoicePdf({ invoiceNumber: 'INV-80', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$8.00', vendor: 'Eight Ltd' }));
      await new Promise((r) => setTimeout(r, 2000));
      child.kill('SIGTERM');
      const done = await exit;
      expect(done.code).toBe(0);
      expect(done.stdout).not.toContain('after.pdf');
      expect(done.stdout).not.toContain('ui listening');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serve --port must be a port number', async () => {
    const cli = await env({ url: sb.url, token: 'admin-token' });
    expectOneLineError(await cli.run(['serve', '--port', '70000']), /--port must be at most 65535/, 2);
  });
});
