/**
 * The proxy's user name and password, kept with the token (issue 27, section 2): in the same
 * credential store (keychain, or memory for a session), under the token's entry name with
 * "#proxy" added. Never in connection.json, a log or the UI.
 */
import type { ProxyCredentials } from '../service/proxy.js';
import type { CredentialStore } from './credentials.js';

const entry = (account: string): string => `${account}#proxy`;

export async function loadProxyCredentials(store: CredentialStore, url: string, account: string): Promise<ProxyCredentials | undefined> {
  const text = await store.get(url, entry(account));
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Partial<ProxyCredentials>;
    return typeof v.user === 'string' && typeof v.password === 'string' ? { user: v.user, password: v.password } : undefined;
  } catch {
    return undefined;
  }
}

/** Stores them, or forgets them (null). */
export async function saveProxyCredentials(store: CredentialStore, url: string, account: string, c: ProxyCredentials | null | undefined): Promise<void> {
  if (c) await store.set(url, entry(account), JSON.stringify({ user: c.user, password: c.password }));
  else await store.delete(url, entry(account)).catch(() => false);
}
