// The service connection of the docsync command: login/logout, DOCSYNC_URL/DOCSYNC_TOKEN, and the
// one-line errors for a wrong token, an unreachable service and a missing keychain (issue 4).
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { sandbox } from '../../helpers/sandbox.js';
import { buildIfNeeded, cliEnv, expectOneLineError, type Cli, inKeychainSession, keychainMissing, NODE_MAIN } from './cli-env.js';

const missing = keychainMissing;

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

let sb: RunningSandbox;
let cli: Cli;
beforeAll(async () => {
  await buildIfNeeded();
  sb = await sandbox();
  cli = await cliEnv(); // no service in the environment; tests add it per call
}, 120_000);
afterAll(async () => {
  await sb?.close();
  await cli?.close();
});

describe('DOCSYNC_URL / DOCSYNC_TOKEN', () => {
  it('a wrong token is a one-line error naming the refusal, exit 1', async () => {
    const r = await cli.run(['upload', '.', '--deployment', 'sandbox-invoices'], { env: { DOCSYNC_URL: sb.url, DOCSYNC_TOKEN: 'wrong-token' } });
    expect(r.stderr.trimEnd()).toBe(`docsync: ${sb.url} did not accept the sign-in (the token may be wrong or expired): give a new token with "docsync login --url URL" (or DOCSYNC_TOKEN)`);
    expect(r.code).toBe(1);
  });

  it('an unreachable service is a one-line error saying it cannot be reached, within seconds', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const t0 = Date.now();
    const r = await cli.run(['retry', '1'], { env: { DOCSYNC_URL: url, DOCSYNC_TOKEN: 'admin-token' } });
    expect(r.stderr.trimEnd()).toBe(`docsync: ${url} cannot be reached: nothing answers at its address; check the address ("docsync login --url URL" or DOCSYNC_URL) and that the service is running`);
    expect(r.code).toBe(1);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('a DOCSYNC_URL that is not a URL is a one-line error', async () => {
    expectOneLineError(await cli.run(['retry', '1'], { env: { DOCSYNC_URL: 'not a url', DOCSYNC_TOKEN: 'x' } }), /"not a url" is not a URL/);
  });

  it('a right token passes the check (the command then fails on its own input)', async () => {
    const r = await cli.run(['retry', '424242'], { env: { DOCSYNC_URL: sb.url, DOCSYNC_TOKEN: 'member-token' } });
    expectOneLineError(r, /no file with id 424242/, 2);
  });
});

describe('docsync login / logout', () => {
  it('login with a wrong token on stdin fails in one line and saves nothing', async () => {
    const r = await cli.run(['login', '--url', sb.url], { input: 'wrong-token\n' });
    expectOneLineError(r, /did not accept the sign-in \(the token may be wrong or expired\)/, 1);
    expect(r.stderr).not.toMatch(/401|ECONN|listBatches|failed \(/);
    expect(existsSync(join(cli.home, 'connection.json'))).toBe(false);
  });

  it('login with no token on stdin, or a token given as an argument, is refused', async () => {
    expectOneLineError(await cli.run(['login', '--url', sb.url], { input: '' }), /no token on standard input/, 2);
    expectOneLineError(await cli.run(['login', '--url', sb.url, 'admin-token'], { input: '' }), /unexpected argument .*token is read from standard input/, 2);
    expectOneLineError(await cli.run(['login', '--url', sb.url, '--token', 'admin-token'], { input: '' }), /unknown option --token/, 2);
    expectOneLineError(await cli.run(['login'], { input: 'admin-token' }), /--url is required/, 2);
    expectOneLineError(await cli.run(['login', '--url', sb.url, '--namespace', 'a/b'], { input: 'admin-token' }), /"a\/b" cannot be a namespace/, 2);
  });

  it('login with a right token but no keychain (no D-Bus session) fails in one line and saves nothing', async () => {
    const r = await cli.run(['login', '--url', sb.url], { input: 'admin-token\n' });
    expectOneLineError(r, /no keychain available|the keychain failed|no keychain support/, 1);
    expect(r.stderr).not.toContain('admin-token');
    expect(existsSync(join(cli.home, 'connection.json'))).toBe(false);
  });

  it('logout when not signed in says so and exits 0', async () => {
    const r = await cli.run(['logout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('not signed in');
  });

  it.skipIf(missing.length > 0)(`login stores the token in a real keychain, commands use it, logout deletes it${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`, async () => {
    const r = await inKeychainSession(cli, [
      `printf %s admin-token | ${NODE_MAIN} login --url ${sb.url} --context sandbox-org; echo "login=$?"`,
      `${NODE_MAIN} retry 424242 2>&1; echo "retry=$?"`,
      `${NODE_MAIN} logout; echo "logout=$?"`,
      `${NODE_MAIN} retry 424242 2>&1; echo "after=$?"`,
    ]);
    const out = r.stdout;
    expect(out, r.stderr).toMatch(new RegExp(`^signed in to ${sb.url.replace(/[.]/g, '\\.')} \\(context sandbox-org\\); token stored in the keychain as "default"$`, 'm'));
    expect(out).toMatch(/^login=0$/m);
    // The saved URL and the keychain token were used: the service accepted them, the file id did not exist.
    expect(out).toMatch(/^docsync: no file with id 424242 \(see: docsync files --state failed\)\nretry=2$/m);
    expect(out).toMatch(/^signed out of .*; token deleted from the keychain\nlogout=0$/m);
    expect(out).toMatch(/^docsync: no service configured.*\nafter=2$/m);
  });
});
