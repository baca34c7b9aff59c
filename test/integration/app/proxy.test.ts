/**
 * The app's side of proxies (issue 27, section 2) through a real squid (test/helpers/proxy-net.ts):
 * the sign-in form's proxy choices, "from the system" through the host's resolveProxy (Electron's
 * session answers as a PAC result; here the test answers for it), credentials kept with the token
 * and never in connection.json, and the connection's state named as the proxy's problem.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../electron/engine/config/credentials.js';
import { loadProxyCredentials } from '../../../electron/engine/config/proxy-credentials.js';
import { splitProxyUrl } from '../../../electron/engine/service/proxy.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';
import { proxyNetUnavailable, startProxyNet, type ProxyNet } from '../../helpers/proxy-net.js';

const skip = proxyNetUnavailable();
if (skip) console.warn(`proxy tests skipped: ${skip}`);

let net: ProxyNet;
let env: CoreEnv;
const keychain = new MemoryStore();
const asked: string[] = [];

describe.skipIf(skip !== null)('the app through squid', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    net = await startProxyNet();
    // What Electron's session.resolveProxy would answer for the service: the proxy that wants a password.
    const system = async (url: string) => (asked.push(url), `PROXY ${new URL(net.auth).host}; DIRECT`);
    env = await coreEnv({ credentials: keychain, hooks: { resolveProxy: system } });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await net?.close();
  });

  it('"Test connection" through a given proxy; without one the sandbox is out of reach', async () => {
    const ok = await env.call('connection.test', { url: net.serviceUrl, token: 'admin-token', proxy: { mode: 'url', url: net.open } });
    expect(ok).toMatchObject({ ok: true });
    const direct = await env.call('connection.test', { url: net.serviceUrl, token: 'admin-token', proxy: { mode: 'none' } });
    expect(direct.ok).toBe(false);
  });

  it('wrong proxy credentials: the sign-in says the proxy refused them', async () => {
    await expect(env.call('connection.signIn', { url: net.serviceUrl, token: 'admin-token', proxy: { mode: 'system', user: net.user, password: 'nope' } }))
      .rejects.toThrow(/^http:\/\/\S+: The proxy refused DocSync's credentials \(proxy /);
  });

  it('"From the system" with a user and password: signed in through the proxy the system names; the credentials kept with the token only', async () => {
    const info = await env.call('connection.signIn', { url: net.serviceUrl, token: 'admin-token', proxy: { mode: 'system', user: net.user, password: net.password } });
    expect(asked).toContain(net.serviceUrl);
    expect(info.account).toMatchObject({ proxy: { mode: 'system' }, proxyInUse: new URL(net.auth).host, proxyCredentials: true });
    expect(info.connection.kind).toBe('online');
    expect(await loadProxyCredentials(keychain, net.serviceUrl, 'default')).toEqual({ user: net.user, password: net.password });
    const saved = await readFile(join(env.home, 'connection.json'), 'utf8');
    expect(JSON.parse(saved)).toMatchObject({ url: net.serviceUrl, proxy: { mode: 'system' } });
    expect(saved).not.toContain(net.password);
    expect(saved).not.toContain(net.user);
    // Nothing of the credentials reaches the UI.
    expect(JSON.stringify(info)).not.toContain(net.password);
  });

  it('the connection state names the proxy: refused credentials or tunnel as "refused", a proxy down as offline at the proxy', async () => {
    const base = { url: net.serviceUrl, token: 'admin-token', context: undefined, source: 'memory' as const };
    await env.core.openSession({ ...base, proxy: splitProxyUrl(net.refusing) }, 'memory', { settle: true });
    expect(env.core.connection).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/does not let DocSync through to the service/) });
    await env.core.openSession({ ...base, proxy: splitProxyUrl(net.deadProxy) }, 'memory', { settle: true });
    const state = env.core.connection;
    expect(state).toMatchObject({ kind: 'offline', atProxy: true, reason: expect.stringMatching(/^DocSync cannot reach the proxy at /) });
  });
});
