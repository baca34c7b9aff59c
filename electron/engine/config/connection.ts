import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClientConfig } from '../service/config.js';
import { loadConnectionCa, readCaFile } from './ca-file.js';
import type { ProxyChoice } from '../../../shared/ui/proxy-setting.js';
import type { ProxyRoute } from '../service/proxy.js';
import { parseProxyChoice, proxyRouteFor, type SystemProxyResolver } from './connection-proxy.js';
import type { CredentialStore } from './credentials.js';
import { loadProxyCredentials } from './proxy-credentials.js';

/** What is remembered about the service connection. No token: that lives in the keychain. */
export interface ConnectionSettings {
  url: string;
  context?: string;
  /** The deployment's namespace segment (secrets path and PDF passwords); absent: the spec's `svc`. */
  namespace?: string;
  /** The keychain account the token is stored under. */
  account: string;
  /** The proxy choice; absent: the environment's. Its credentials are kept with the token. */
  proxy?: ProxyChoice;
  /** The connection's own CA certificates: a file of the data home (ca-file.ts), trusted beside the usual roots. */
  caFile?: string;
}

export interface Connection {
  url: string;
  context: string | undefined;
  /** The deployment's namespace segment; undefined: the spec's `svc`. */
  namespace?: string | undefined;
  token: string;
  /** How the service is reached (DOCSYNC_PROXY's choice, or the saved one; default the environment's). */
  proxyChoice?: ProxyChoice | undefined;
  /** The proxy that choice gives for this service, credentials included; null: a direct connection. */
  proxy?: ProxyRoute | null | undefined;
  /** The connection's own CA certificates (PEM): DOCSYNC_CA_FILE's, or the saved connection's. */
  ca?: string | undefined;
  /** Where the values came from, for messages ("signed in via DOCSYNC_TOKEN"). */
  source: 'environment' | 'keychain' | 'memory';
}

/** The saved connection's file in the data home (also read by store migration 005). */
export const CONNECTION_FILE = 'connection.json';
const FILE = CONNECTION_FILE;

export async function loadConnectionSettings(home: string): Promise<ConnectionSettings | null> {
  let text: string;
  try {
    text = await readFile(join(home, FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const v = JSON.parse(text) as Partial<ConnectionSettings>;
  if (typeof v.url !== 'string' || typeof v.account !== 'string') throw new Error(`${join(home, FILE)} is damaged: run "docsync login" again`);
  return {
    url: v.url, account: v.account,
    ...(typeof v.context === 'string' ? { context: v.context } : {}),
    ...(typeof v.namespace === 'string' ? { namespace: v.namespace } : {}),
    ...(proxyChoiceOf(v.proxy) ? { proxy: proxyChoiceOf(v.proxy) as ProxyChoice } : {}),
    ...(typeof v.caFile === 'string' ? { caFile: v.caFile } : {}),
  };
}

/** A saved proxy choice, or undefined for one missing or not understood (the environment's then applies). */
function proxyChoiceOf(v: unknown): ProxyChoice | undefined {
  const c = v as Partial<ProxyChoice> | undefined;
  if (!c || typeof c !== 'object') return undefined;
  if (c.mode === 'none' || c.mode === 'environment' || c.mode === 'system') return { mode: c.mode };
  if (c.mode === 'url' && typeof c.url === 'string') return { mode: 'url', url: c.url };
  return undefined;
}

/** Written to a temporary file and renamed, so a crash never leaves half a file; null forgets them. */
export async function saveConnectionSettings(home: string, s: ConnectionSettings | null): Promise<void> {
  const path = join(home, FILE);
  if (s === null) return rm(path, { force: true });
  await mkdir(home, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(s, null, 2), { mode: 0o600 });
  await rename(tmp, path);
}

export function normalizeUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`"${raw}" is not a URL; give e.g. https://service.example or http://127.0.0.1:8080`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`"${raw}" must be an http or https URL`);
  if (u.username || u.password) throw new Error('put no credentials in the URL: the token is read from standard input');
  return u.toString().replace(/\/+$/, '');
}

/**
 * A namespace segment as typed (blank: the default). It goes into URL paths and run settings, so it
 * must be one path segment.
 */
export function normalizeNamespace(raw: string | undefined): string | undefined {
  const ns = raw?.trim();
  if (!ns) return undefined;
  if (!/^[A-Za-z0-9._~-]+$/.test(ns) || ns === '.' || ns === '..') {
    throw new Error(`"${ns}" cannot be a namespace: use letters, digits, ".", "_", "~" or "-" only (the service's default is "svc")`);
  }
  return ns;
}

/** What a service client needs of a connection. */
export function clientConfigOf(conn: Pick<Connection, 'url' | 'token' | 'context' | 'namespace' | 'ca' | 'proxy'>): ClientConfig {
  return {
    baseUrl: conn.url, token: conn.token,
    ...(conn.context !== undefined ? { context: conn.context } : {}),
    ...(conn.namespace !== undefined ? { namespace: conn.namespace } : {}),
    ...(conn.ca !== undefined ? { ca: conn.ca } : {}),
    ...(conn.proxy !== undefined ? { proxy: conn.proxy } : {}),
  };
}

/**
 * The connection to use: DOCSYNC_URL / DOCSYNC_TOKEN / DOCSYNC_CONTEXT / DOCSYNC_NAMESPACE / DOCSYNC_CA_FILE override
 * (headless hosts, CI); otherwise the saved settings with the token from the credential store. Null when there is
 * no URL at all (then `serve` uses the built-in sandbox).
 */
export async function resolveConnection(
  home: string, creds: CredentialStore, env: NodeJS.ProcessEnv = process.env, o: { systemProxy?: SystemProxyResolver } = {},
): Promise<Connection | null> {
  const saved = await loadConnectionSettings(home);
  const url = env.DOCSYNC_URL ? normalizeUrl(env.DOCSYNC_URL) : saved?.url;
  if (!url) return null;
  const context = env.DOCSYNC_CONTEXT ?? (saved?.url === url ? saved.context : undefined);
  const namespace = normalizeNamespace(env.DOCSYNC_NAMESPACE ?? (saved?.url === url ? saved.namespace : undefined));
  const caFile = saved?.url === url ? saved.caFile : undefined;
  const ca = env.DOCSYNC_CA_FILE ? readCaFile(env.DOCSYNC_CA_FILE) : caFile ? await loadConnectionCa(home, caFile) : undefined;
  // DOCSYNC_PROXY (a choice, or an address that may carry credentials) is for this command only.
  const given = env.DOCSYNC_PROXY ? parseProxyChoice(env.DOCSYNC_PROXY, 'the proxy in DOCSYNC_PROXY') : undefined;
  const proxyChoice = given?.choice ?? (saved?.url === url ? saved.proxy : undefined) ?? { mode: 'environment' as const };
  const route = (stored: Awaited<ReturnType<typeof loadProxyCredentials>>) =>
    proxyRouteFor(proxyChoice, url, { env, stored: given?.credentials ?? stored, system: o.systemProxy });
  if (env.DOCSYNC_TOKEN) return { url, context, namespace, ca, token: env.DOCSYNC_TOKEN, proxyChoice, proxy: await route(undefined), source: 'environment' };
  const account = saved?.url === url ? saved.account : 'default';
  const token = await creds.get(url, account);
  if (!token) throw new Error(`no token for ${url}: run "docsync login --url ${url}" or set DOCSYNC_TOKEN`);
  const proxy = await route(await loadProxyCredentials(creds, url, account));
  return { url, context, namespace, ca, token, proxyChoice, proxy, source: creds.kind === 'keychain' ? 'keychain' : 'memory' };
}
