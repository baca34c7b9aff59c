/**
 * What the docsync commands share: the data home, the local store, the service connection and
 * the engine built on them. Commands that only read the store never touch the service.
 */
import { clientConfigOf, resolveConnection, type Connection } from '../engine/config/connection.js';
import { KeytarStore } from '../engine/config/credentials.js';
import { Engine } from '../engine/engine.js';
import { ServiceClient } from '../engine/service/index.js';
import { probeOnce } from '../engine/service/probe.js';
import type { Store } from '../engine/store/index.js';
import { UsageError } from './args.js';
import { dataHome, openLocalStore } from './local.js';
import { inCliWords } from './words.js';
import { shown } from '../../shared/shown.js';

export { dataHome, openLocalStore };

/** The configured connection, or a one-line error saying how to configure one. */
export async function requireConnection(home = dataHome()): Promise<Connection> {
  const conn = await resolveConnection(home, new KeytarStore());
  if (!conn) throw new UsageError('no service configured: run "docsync login --url URL" or set DOCSYNC_URL and DOCSYNC_TOKEN');
  return conn;
}

/** What the command line offers where the keychain cannot be used: a token given per command, never saved. */
export const NO_KEYCHAIN_OFFER = 'give the token to each command instead with DOCSYNC_URL and DOCSYNC_TOKEN (used for that command only, never saved)';

/**
 * Checks the URL and token with one cheap call (see service/probe.ts),
 * so a wrong token or an unreachable service fails at once instead of inside the engine.
 */
export async function verifyConnection(conn: Pick<Connection, 'url' | 'token' | 'context' | 'ca' | 'proxy'>): Promise<void> {
  try {
    await probeOnce(conn);
  } catch (err) {
    throw inCliWords(err, conn.url);
  }
}

export function serviceClient(conn: Pick<Connection, 'url' | 'token' | 'context' | 'namespace' | 'ca' | 'proxy'>): ServiceClient {
  return new ServiceClient(clientConfigOf(conn));
}

export interface Host {
  home: string;
  store: Store;
  client: ServiceClient;
  engine: Engine;
  /** With `verifyLater`: the connection's check, under way (rejects in the command line's words). */
  verified?: Promise<void>;
  close(): Promise<void>;
}

/**
 * Store + verified connection + engine (not started). `close` stops the engine and closes everything.
 * `verifyLater`: the connection is checked while the command goes on (`verified`), which must await
 * it before it acts on the service: a distant service's round trip is then not one more in a row.
 */
export async function openHost(o: { home?: string; conn?: Connection; quietLogs?: boolean; verifyLater?: boolean } = {}): Promise<Host> {
  const home = o.home ?? dataHome();
  const conn = o.conn ?? (await requireConnection(home));
  const verified = o.verifyLater ? verifyConnection(conn) : undefined;
  verified?.catch(() => undefined);
  if (!verified) await verifyConnection(conn);
  const store = openLocalStore(home);
  const client = serviceClient(conn);
  const engine = new Engine({ store, client, service: { url: conn.url, context: conn.context ?? null }, home });
  if (!o.quietLogs) engine.on('log', ({ level, msg }) => {
    if (level !== 'info') console.error(`${level}: ${shown(msg)}`);
  });
  let closed = false;
  return {
    home, store, client, engine, ...(verified ? { verified } : {}),
    async close() {
      if (closed) return;
      closed = true;
      await engine.stop();
      client.close();
      store.close();
    },
  };
}
