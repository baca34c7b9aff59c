/**
 * The keep-alive agents every request of the service client goes through: got, the raw upload and
 * results paths (raw-upload.ts, raw-get.ts), the probe and the shared folders' calls. One place to
 * decide whom the client trusts (and, later, which proxy it goes through), so no path can differ.
 *
 * Trust: Node's bundled roots, the OS's trust store where the runtime can read it, and the
 * connection's own CA file. An https.Agent given `ca` trusts ONLY those certificates, so the list is
 * the union of all three (trust-store.ts), made into one secure context per client: Node would
 * otherwise parse the whole list again for each new connection.
 *
 * Proxy: given a route (proxy.ts), both agents are proxy-aware ones (proxy-agents.ts) with the same
 * pool and trust; the service's TLS then runs inside the proxy's tunnel.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import { proxyAgents } from './proxy-agents.js';
import type { ProxyRoute } from './proxy.js';
import { trustedCertificates } from './trust-store.js';

export interface PoolOptions {
  keepAlive: boolean;
  maxSockets: number;
  maxFreeSockets: number;
  scheduling: 'lifo' | 'fifo';
}

export interface AgentOptions extends PoolOptions {
  /** Extra CA certificates (PEM), trusted beside the bundled and the system roots. */
  ca?: string | string[] | undefined;
  /** The proxy to go through; none: direct. */
  proxy?: ProxyRoute | null | undefined;
  /** How long the proxy may take to open a tunnel (the client's connect timeout). */
  connectMs?: number | undefined;
}

/** What http.ts, raw-get.ts and raw-upload.ts take: one agent per scheme. */
export interface ServiceAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

// Clients come and go (each probe makes one); parsing some 150 roots costs milliseconds, so the
// contexts of the few CA files in use are kept.
const contexts = new Map<string, SecureContext | undefined>();

/** The secure context for `ca`, or undefined where Node's own default is the same trust. */
export function secureContextFor(ca: string | string[] | undefined): SecureContext | undefined {
  const key = Array.isArray(ca) ? ca.join('\n') : (ca ?? '');
  if (contexts.has(key)) return contexts.get(key);
  const certs = trustedCertificates(ca);
  const made = certs ? createSecureContext({ ca: certs }) : undefined;
  if (contexts.size >= 8) contexts.clear();
  contexts.set(key, made);
  return made;
}

/** The agents for one client. */
export function serviceAgents(o: AgentOptions): ServiceAgents {
  const { ca, proxy, connectMs, ...pool } = o;
  const secureContext = secureContextFor(ca);
  if (proxy) return proxyAgents(proxy, connectMs ?? 10_000, pool, secureContext ? { secureContext } : {});
  return {
    http: new HttpAgent(pool),
    https: new HttpsAgent(secureContext ? { ...pool, secureContext } : pool),
  };
}
