// "The token lives in the OS keychain and in the engine's memory, never in SQLite, logs, the
// renderer or the URL bar": a distinctive token is signed in through the UI transport of a real
// `docsync serve`, used for a whole flow (hot folder, run, results, export, offline, sign out),
// then searched for in every byte the UI received, in the command's output and in every file of
// the data home (SQLite database and WAL included). The sandbox's own records prove it was used.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_USERS, type RunningSandbox } from '../../../sandbox/index.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { uiClient } from '../../helpers/ui-client.js';
import { waitUntil } from '../../helpers/wait.js';
import { buildIfNeeded, cliEnv, lineMatching, type Cli } from './cli-env.js';

const TOKEN = `tok-${randomBytes(24).toString('hex')}`;
const USERS = {
  ...DEFAULT_USERS,
  users: [...DEFAULT_USERS.users, { token: TOKEN, username: 'leak-check', email: 'l@sandbox.test', orgAdmin: false, auditLogs: false, serviceAccount: false, workspaces: ['team'] }],
};
let sb: RunningSandbox;
let cli: Cli;
beforeAll(async () => {
  await buildIfNeeded();
  cli = await cliEnv();
  sb = await sandbox({ users: USERS, dataDir: cli.dir('service') });
}, 120_000);
afterAll(async () => {
  await sb?.close().catch(() => undefined);
  await cli?.close();
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

it('the token never reaches the UI, the output, the store or any file of the data home', async () => {
  const { child, exit } = cli.spawn(['serve', '--port', '0']);
  try {
    const line = await lineMatching(child, /^ui listening on /);
    const openUrl = line.replace('ui listening on ', '');
    expect(openUrl).not.toContain(TOKEN);
    const ui = await uiClient(openUrl);
    const info = await ui.call('connection.signIn', { url: sb.url, token: TOKEN, sessionOnly: true });
    expect(info.account?.tokenSource).toBe('memory');

    const inbox = cli.dir('inbox');
    await mkdir(inbox);
    await ui.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER } });
    await writeFile(join(inbox, 'inv-5.pdf'), await invoicePdf({ invoiceNumber: 'INV-5', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$5.00', vendor: 'Five' }));
    await waitUntil(async () => (await ui.call('status.get', {})).counts.done === 1, 'the file is done', 30_000);
    const [run] = (await ui.call('runs.page', { offset: 0, limit: 1 })).rows;
    await ui.call('results.run', { runId: run!.id });
    await ui.call('export.run', { runId: run!.id, format: 'json' });
    await ui.call('search', { query: 'INV-5' });
    expect((await ui.call('connection.test', { url: sb.url })).ok).toBe(true);
    // The service goes away: offline warnings are logged; then a failed test call with the token.
    await sb.close();
    await waitUntil(async () => (await ui.call('app.info', {})).connection.kind === 'offline', 'offline', 20_000);
    expect((await ui.call('connection.test', { url: sb.url })).ok).toBe(false);
    await ui.call('connection.signOut', {});
    ui.close();
    const received = ui.received();
    expect(received).toContain('INV-5');
    expect(received).not.toContain(TOKEN);

    child.kill('SIGTERM');
    const done = await exit;
    expect(done.code).toBe(0);
    expect(done.stdout + done.stderr).not.toContain(TOKEN);
    const files = await filesUnder(cli.home);
    expect(files.some((f) => f.endsWith('docsync.db'))).toBe(true);
    for (const f of files) expect((await readFile(f)).includes(TOKEN), f).toBe(false);
  } finally {
    child.kill('SIGKILL');
  }
  // It was really used: the service (restarted on its data) has the batch in the token user's workspace.
  const sb2 = await sandbox({ dataDir: sb.dataDir, users: USERS });
  try {
    const listed = await caller(sb2.url, TOKEN)('GET', '/v2/batches?workspace=personal-leak-check');
    expect(listed.status).toBe(200);
    expect((listed.body as { batches: unknown[] }).batches.length).toBeGreaterThan(0);
  } finally {
    await sb2.close();
  }
});
