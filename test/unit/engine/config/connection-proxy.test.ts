/** A connection's proxy: the saved choice, DOCSYNC_PROXY, credentials kept with the token and never in connection.json. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseProxyChoice } from '../../../../electron/engine/config/connection-proxy.js';
import { resolveConnection, saveConnectionSettings } from '../../../../electron/engine/config/connection.js';
import { MemoryStore } from '../../../../electron/engine/config/credentials.js';
import { loadProxyCredentials, saveProxyCredentials } from '../../../../electron/engine/config/proxy-credentials.js';

const URL_ = 'https://svc.example';
let home: string;
let store: MemoryStore;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'docsync-proxy-conn-'));
  store = new MemoryStore();
  await store.set(URL_, 'default', 'tok');
});
afterEach(() => rm(home, { recursive: true, force: true }));

describe('a connection through a proxy', () => {
  it('reads the choices as typed, and takes the credentials out of an address', () => {
    expect(parseProxyChoice('none').choice).toEqual({ mode: 'none' });
    expect(parseProxyChoice('env').choice).toEqual({ mode: 'environment' });
    expect(parseProxyChoice('system').choice).toEqual({ mode: 'system' });
    expect(parseProxyChoice('http://ann:s3cret@proxy.corp:3128')).toEqual({ choice: { mode: 'url', url: 'http://proxy.corp:3128' }, credentials: { user: 'ann', password: 's3cret' } });
  });

  it('a saved address with its credentials from the credential store; connection.json holds no credential', async () => {
    await saveConnectionSettings(home, { url: URL_, account: 'default', proxy: { mode: 'url', url: 'http://proxy.corp:3128' } });
    await saveProxyCredentials(store, URL_, 'default', { user: 'ann', password: 's3cret' });
    const c = await resolveConnection(home, store, {});
    expect(c?.proxy).toEqual({ url: 'http://proxy.corp:3128', credentials: { user: 'ann', password: 's3cret' } });
    const file = await readFile(join(home, 'connection.json'), 'utf8');
    expect(file).not.toMatch(/s3cret|ann/);
    await saveProxyCredentials(store, URL_, 'default', null);
    expect(await loadProxyCredentials(store, URL_, 'default')).toBeUndefined();
  });

  it('the environment by default; DOCSYNC_PROXY for one command; the system through the host, else the environment', async () => {
    await saveConnectionSettings(home, { url: URL_, account: 'default' });
    expect((await resolveConnection(home, store, { HTTPS_PROXY: 'http://p:1' }))?.proxy).toEqual({ url: 'http://p:1' });
    expect((await resolveConnection(home, store, { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'svc.example' }))?.proxy).toBeNull();
    expect((await resolveConnection(home, store, { HTTPS_PROXY: 'http://p:1', DOCSYNC_PROXY: 'none' }))?.proxy).toBeNull();
    expect((await resolveConnection(home, store, { DOCSYNC_PROXY: 'http://u:pw@q:2' }))?.proxy).toEqual({ url: 'http://q:2', credentials: { user: 'u', password: 'pw' } });
    await saveConnectionSettings(home, { url: URL_, account: 'default', proxy: { mode: 'system' } });
    const asked: string[] = [];
    const system = async (u: string) => (asked.push(u), 'PROXY pac.corp:8080; DIRECT');
    expect((await resolveConnection(home, store, {}, { systemProxy: system }))?.proxy).toEqual({ url: 'http://pac.corp:8080' });
    expect(asked).toEqual([URL_]);
    expect((await resolveConnection(home, store, { HTTPS_PROXY: 'http://p:1' }))?.proxy).toEqual({ url: 'http://p:1' });
  });
});
