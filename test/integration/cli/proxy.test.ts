/**
 * The docsync command through a real squid (issue 27, section 2; test/helpers/proxy-net.ts): the
 * sandbox is reachable only through the proxy. DOCSYNC_PROXY with Basic credentials and
 * HTTPS_PROXY/HTTP_PROXY from the environment carry `upload --wait` end to end (got, raw upload,
 * results pages); wrong credentials read in the command line's words. Skipped without root, squid or ip.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { proxyNetUnavailable, startProxyNet, type ProxyNet } from '../../helpers/proxy-net.js';
import { cliEnv, expectOneLineError, type Cli, inKeychainSession, keychainMissing, NODE_MAIN } from './cli-env.js';

const noKeyring = keychainMissing;

const skip = proxyNetUnavailable();
if (skip) console.warn(`proxy tests skipped: ${skip}`);

let net: ProxyNet;
let cli: Cli;

describe.skipIf(skip !== null)('docsync through squid', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    net = await startProxyNet();
    cli = await cliEnv({ url: net.serviceUrl, token: 'admin-token' });
    await writeFile(join(cli.dir(''), 'inv.txt'), invoiceText({ invoiceNumber: 'INV-9', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$9.00', vendor: 'Acme' }));
  }, 120_000);
  afterAll(async () => {
    await net?.close();
    await cli?.close();
  });

  const withCredentials = (password: string): string => {
    const u = new URL(net.auth);
    u.username = net.user;
    u.password = password;
    return u.toString();
  };

  it('fails without the proxy: the sandbox is not reachable directly', async () => {
    const r = await cli.run(['upload', 'inv.txt', '--deployment', 'sandbox-invoices'], { env: { DOCSYNC_PROXY: 'none' } });
    expectOneLineError(r, /cannot be reached/);
  });

  it('DOCSYNC_PROXY with a user and password: upload --wait goes end to end, and the password is printed nowhere', async () => {
    const r = await cli.run(['upload', 'inv.txt', '--deployment', 'sandbox-invoices', '--wait'], { env: { DOCSYNC_PROXY: withCredentials(net.password) } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\bdone\s+run_\w+\s+\S*inv\.txt/);
    expect(r.stdout + r.stderr).not.toContain(net.password);
  });

  it('HTTP_PROXY from the environment, when nothing else is set', async () => {
    const r = await cli.run(['upload', 'inv.txt', '--deployment', 'sandbox-invoices'], { env: { HTTP_PROXY: net.open } });
    expect(r.code, r.stderr).toBe(0);
  });

  it('wrong credentials: one line saying the proxy refused them, never "cannot be reached"', async () => {
    const r = await cli.run(['upload', 'inv.txt', '--deployment', 'sandbox-invoices'], { env: { DOCSYNC_PROXY: withCredentials('not-the-password') } });
    expectOneLineError(r, new RegExp(`the proxy refused DocSync's credentials \\(proxy ${new URL(net.auth).host.replace(/\./g, '\\.')}\\)`));
    expect(r.stderr).not.toMatch(/cannot be reached|not-the-password/);
    // serve stops at once on it, as on a refused token: it would not fix itself.
    expectOneLineError(await cli.run(['serve', '--no-ui'], { env: { DOCSYNC_PROXY: withCredentials('not-the-password') } }), /the proxy refused DocSync's credentials/);
  });

  it.skipIf(noKeyring.length > 0)(`login --proxy with a user and password: they go to the keychain, connection.json keeps the address only, later commands use both${noKeyring.length ? ` (skipped: ${noKeyring.join(', ')} not installed)` : ''}`, async () => {
    const { DOCSYNC_URL: _u, DOCSYNC_TOKEN: _t, ...env } = cli.env;
    const r = await inKeychainSession(cli, [
      `printf %s admin-token | ${NODE_MAIN} login --url ${net.serviceUrl} --proxy '${withCredentials(net.password)}'; echo "login=$?"`,
      `cat "$DOCSYNC_HOME/connection.json"; echo`,
      `${NODE_MAIN} upload inv.txt --deployment sandbox-invoices >/dev/null; echo "upload=$?"`,
      `${NODE_MAIN} logout; echo "logout=$?"`,
    ], env);
    const host = new URL(net.auth).host;
    expect(r.stdout, r.stderr).toContain(`; through the proxy at ${host} (its user and password kept in the keychain)`);
    expect(r.stdout).toMatch(/^login=0$/m);
    expect(r.stdout).toContain(`"proxy": {\n    "mode": "url",\n    "url": "http://${host}"`);
    expect(r.stdout + r.stderr).not.toContain(net.password);
    expect(r.stdout).not.toContain(net.user);
    // Only squid reaches the sandbox, and only with the user and password: the keychain's were used.
    expect(r.stdout, r.stderr).toMatch(/^upload=0$/m);
    expect(r.stdout).toMatch(/^logout=0$/m);
  }, 60_000);
});

