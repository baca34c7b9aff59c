// Issue 11: `docsync upload` takes regular files only, refused in one line before a byte is read
// (a FIFO used to hang it, /dev/zero to read forever), and checks the deployment or app with the
// service before uploading anything (a wrong one used to leave an uploaded batch with no run).
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileRow } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { buildIfNeeded, cliEnv, expectOneLineError, type Cli } from './cli-env.js';

let sb: RunningSandbox;
let cli: Cli;
let socket: Server;
beforeAll(async () => {
  await buildIfNeeded();
  sb = await sandbox();
  cli = await cliEnv({ url: sb.url, token: 'admin-token' });
  await writeFile(cli.dir('inv.pdf'), await invoicePdf({ invoiceNumber: 'INV-7', invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: '7.50', vendor: 'Vendor 7' }));
  execFileSync('mkfifo', [cli.dir('pipe')]);
  socket = createServer();
  await new Promise<void>((resolve) => socket.listen(cli.dir('sock'), resolve));
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => socket?.close(resolve));
  await sb?.close();
  await cli?.close();
});

/** What the service holds: batches and runs (the admin sees every one). */
async function onService(): Promise<{ batches: number; runs: number }> {
  const call = caller(sb.url);
  const b = await call<{ batches: unknown[] }>('GET', '/v2/batches?limit=100');
  const r = await call<{ runs: unknown[] }>('GET', '/v2/apps/runs?limit=100');
  return { batches: b.body.batches.length, runs: r.body.runs.length };
}

describe('docsync upload refuses what it cannot take, before uploading anything', () => {
  it('a FIFO, a device and a socket: one line each, at once, nothing stored or sent', async () => {
    expectOneLineError(await cli.run(['upload', 'pipe', '--deployment', 'sandbox-invoices']), /pipe is a named pipe \(FIFO\): only regular files/, 2);
    expectOneLineError(await cli.run(['upload', '/dev/zero', '--deployment', 'sandbox-invoices']), /\/dev\/zero is a device: only regular files/, 2);
    expectOneLineError(await cli.run(['upload', 'sock', '--deployment', 'sandbox-invoices']), /sock is a socket: only regular files/, 2);
    // Refused before a byte was read, even beside a good file.
    expectOneLineError(await cli.run(['upload', 'inv.pdf', 'pipe', '--deployment', 'sandbox-invoices']), /named pipe/, 2);
    expect(await cli.json<FileRow[]>(['files'])).toEqual([]);
    expect(await onService()).toEqual({ batches: 0, runs: 0 });
  }, 60_000);

  it('a deployment or an app the service does not know: one line naming it and the service, no batch', async () => {
    expectOneLineError(
      await cli.run(['upload', 'inv.pdf', '--deployment', 'no-such-deployment']),
      new RegExp(`^docsync: no deployment "no-such-deployment" on ${sb.url.replace(/[.]/g, '\\.')}/?$`),
      2,
    );
    expectOneLineError(await cli.run(['upload', 'inv.pdf', '--app', 'no-such-app']), /^docsync: no app "no-such-app" on http:\/\/127\.0\.0\.1:\d+/, 2);
    expect(await cli.json<FileRow[]>(['files'])).toEqual([]);
    expect(await onService()).toEqual({ batches: 0, runs: 0 });
  }, 60_000);

  it('a known deployment and app pass the check, which itself starts nothing: one batch and one run each', async () => {
    const byDeployment = await cli.run(['upload', 'inv.pdf', '--deployment', 'sandbox-invoices']);
    expect(byDeployment.code, byDeployment.stderr).toBe(0);
    const byApp = await cli.run(['upload', 'inv.pdf', '--app', 'app-invoice-extractor']);
    expect(byApp.code, byApp.stderr).toBe(0);
    expect(await onService()).toEqual({ batches: 2, runs: 2 });
  }, 60_000);
});
