/**
 * The way to the service, walked step by step (issue 27, section 4): `docsync doctor` and the app's
 * "Test connection". Each step says what it found, and the first that fails says what helps; the rest
 * are not tried. The same words as everywhere else (shared/ui/messages.ts serviceProblem), and no
 * secret: the token and the proxy's password are used, never said.
 */
import { lookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP } from 'node:net';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { serviceProblem, type ServiceHints } from '../../../shared/ui/messages.js';
import { shown } from '../../../shared/shown.js';
import type { ConnectionStep } from '../../../shared/ui/views.js';
import { secureContextFor } from './agents.js';
import { certificateFacts } from './certificate.js';
import { isServiceError, ServiceClient, type ServiceError } from './index.js';
import type { ProxyRoute } from './proxy.js';

export type DoctorStep = ConnectionStep;
export type StepName = ConnectionStep['step'];

export interface DoctorTarget {
  url: string;
  /** Absent: not signed in; the walk stops before the token. */
  token?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  ca?: string | undefined;
  proxy?: ProxyRoute | null | undefined;
  /** The proxy setting's kind, for what is said of it. */
  proxyMode?: 'none' | 'environment' | 'system' | 'url' | undefined;
}

const STEP_MS = 5000;
/** A token no service accepts: the HTTP step asks without the user's, so that an answer proves only HTTP. */
const NO_TOKEN = 'docsync-doctor-no-token';

const DIRECT_BECAUSE = {
  none: 'the proxy setting is "none"', environment: 'no proxy of the environment applies to this address', system: 'the system names no proxy for it', url: 'no proxy given',
};
const PROXY_FROM = { none: 'set to none', environment: 'from the environment', system: 'from the system', url: 'the proxy given' };

const bare = (host: string): string => host.replace(/^\[|\]$/g, '');
const port = (u: URL): number => Number(u.port || (u.protocol === 'https:' ? 443 : 80));

function tcp(host: string, p: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const s = tcpConnect({ host, port: p, timeout: STEP_MS });
    s.once('connect', () => (s.destroy(), resolve(Date.now() - started)));
    s.once('timeout', () => (s.destroy(), reject(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' }))));
    s.once('error', (e) => (s.destroy(), reject(e)));
  });
}

const WHY_NOT_CONNECTED: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there (refused)',
  ETIMEDOUT: `no answer within ${STEP_MS / 1000} s (a firewall may drop the connection)`,
  EHOSTUNREACH: 'this computer has no route to that address',
  ENETUNREACH: 'this computer has no route to that network',
};

/** The certificate as the service shows it (checked against DocSync's trust), or why it is refused. */
function tlsLook(u: URL, ca: string | undefined): Promise<{ cert: PeerCertificate; authorized: boolean; code?: string }> {
  const host = bare(u.hostname);
  const secureContext = secureContextFor(ca);
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host, port: port(u), rejectUnauthorized: false, timeout: STEP_MS, ...(isIP(host) ? {} : { servername: host }), ...(secureContext ? { secureContext } : {}) });
    s.once('secureConnect', () => {
      const err = s.authorizationError as unknown as Error | null;
      const code = err ? ((err as NodeJS.ErrnoException).code ?? String(err)) : undefined;
      resolve({ cert: s.getPeerCertificate(true), authorized: s.authorized, ...(code ? { code } : {}) });
      s.destroy();
    });
    s.once('timeout', () => (s.destroy(), reject(Object.assign(new Error('no TLS answer'), { code: 'ETIMEDOUT' }))));
    s.once('error', (e) => (s.destroy(), reject(e)));
  });
}

/** The chain's subjects, from the service's certificate up. */
function chainOf(cert: PeerCertificate): string[] {
  const out: string[] = [];
  let c: (PeerCertificate & { issuerCertificate?: PeerCertificate }) | undefined = cert;
  while (c && out.length < 6) {
    const cn = c.subject?.CN ?? c.subject?.O;
    out.push(Array.isArray(cn) ? cn.join(', ') : (cn ?? '?'));
    const next: PeerCertificate | undefined = (c as { issuerCertificate?: PeerCertificate }).issuerCertificate;
    if (!next || next === c || next.fingerprint256 === c.fingerprint256) break;
    c = next;
  }
  return out;
}

const day = (s: string): string => new Date(s).toISOString().slice(0, 10);

function client(t: DoctorTarget, token: string, context: string | undefined): ServiceClient {
  return new ServiceClient({
    baseUrl: t.url, token, ...(context !== undefined ? { context } : {}), ...(t.namespace !== undefined ? { namespace: t.namespace } : {}),
    ...(t.ca !== undefined ? { ca: t.ca } : {}), ...(t.proxy !== undefined ? { proxy: t.proxy } : {}),
    retry: { limit: 0, baseDelayMs: 100, maxDelayMs: 100, maxRetryAfterMs: 0 },
    timeouts: { connectMs: STEP_MS, responseMs: STEP_MS * 2, idleMs: STEP_MS * 2 },
  });
}

/** One call with a client made for it. */
async function ask<T>(t: DoctorTarget, token: string, context: string | undefined, call: (c: ServiceClient) => Promise<T>): Promise<T> {
  const c = client(t, token, context);
  try {
    return await call(c);
  } finally {
    c.close();
  }
}

/** Walks the way to the service; every step is in the answer, those after a failure as skipped. */
export async function walkToService(t: DoctorTarget, hints: ServiceHints = {}): Promise<DoctorStep[]> {
  const steps: DoctorStep[] = [];
  const u = new URL(t.url);
  const host = bare(u.hostname);
  const via = t.proxy ? new URL(t.proxy.url) : null;
  const fail = (step: StepName, said: string, help?: string): DoctorStep[] => {
    steps.push({ step, outcome: 'failed', said, ...(help ? { help } : {}) });
    const rest: StepName[] = ['name', 'proxy', 'connect', 'tls', 'http', 'token', 'context', 'namespace'];
    for (const s of rest.slice(rest.indexOf(step) + 1)) steps.push({ step: s, outcome: 'skipped', said: 'not tried: an earlier step failed' });
    return steps;
  };
  const words = (e: ServiceError): string => serviceProblem(e, hints);

  // 1. The name: the proxy's, when one carries the requests (the proxy looks up the service's).
  const named = via ? bare(via.hostname) : host;
  if (isIP(named)) steps.push({ step: 'name', outcome: 'ok', said: `${shown(named)} is an address: no name to look up` });
  else {
    try {
      const found = await lookup(named, { all: true });
      steps.push({ step: 'name', outcome: 'ok', said: `${shown(named)} is ${found.map((a) => a.address).join(', ')}${via ? ' (the proxy looks up the service\'s name)' : ''}` });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const said = code === 'ENOTFOUND' ? `the name ${shown(named)} is not known` : `the name ${shown(named)} could not be looked up (${code ?? 'no answer'})`;
      return fail('name', said, via ? 'check the proxy\'s address in the proxy setting' : 'check the service\'s address for a typing mistake, and that this computer is on the network');
    }
  }

  // 2. The proxy, and 3. the connection (to the proxy when there is one).
  if (!via) steps.push({ step: 'proxy', outcome: 'skipped', said: `none: DocSync connects directly (${DIRECT_BECAUSE[t.proxyMode ?? 'environment']})` });
  const target = via ? { host: bare(via.hostname), port: port(via) } : { host, port: port(u) };
  try {
    const ms = await tcp(target.host, target.port);
    if (via) steps.push({ step: 'proxy', outcome: 'ok', said: `${via.host} (${PROXY_FROM[t.proxyMode ?? 'environment']}) accepted the connection in ${ms} ms${t.proxy?.credentials ? '; DocSync has a user name and password for it' : ''}` });
    steps.push({ step: 'connect', outcome: 'ok', said: via ? `through the proxy: it connects to ${shown(u.host)}` : `${shown(target.host)}:${target.port} accepted the connection in ${ms} ms` });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    const why = WHY_NOT_CONNECTED[code] ?? `the connection failed (${code || (e as Error).message})`;
    if (via) return fail('proxy', `DocSync cannot reach the proxy at ${via.host}: ${why}`, `check ${hints.proxySetting ?? 'the proxy setting'}`);
    return fail('connect', `${shown(target.host)}:${target.port}: ${why}`, hints.reach ?? 'check the address and that the service is running');
  }

  // 4. TLS: the certificate, its names and dates, against what DocSync trusts (inside the tunnel with a proxy).
  if (u.protocol !== 'https:') steps.push({ step: 'tls', outcome: 'skipped', said: 'the address is http://: nothing is encrypted on the way' });
  else if (via) steps.push({ step: 'tls', outcome: 'skipped', said: 'checked inside the proxy\'s tunnel, with the next step' });
  else {
    try {
      const seen = await tlsLook(u, t.ca);
      if (!seen.authorized) {
        const facts = await certificateFacts(t.url, seen.code ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', secureContextFor(t.ca));
        const e = { kind: 'certificate' as const, message: seen.code ?? '', certificate: facts, code: seen.code };
        return fail('tls', serviceProblem(e, hints));
      }
      const c = seen.cert;
      const names = (c.subjectaltname ?? '').split(',').map((s) => s.trim().replace(/^(DNS|IP Address):/, '')).filter(Boolean);
      steps.push({ step: 'tls', outcome: 'ok', said: `trusted: issued to ${names.join(', ') || '?'} by ${chainOf(c).slice(1).join(' < ') || 'itself'}, valid ${day(c.valid_from)} to ${day(c.valid_to)}` });
    } catch (e) {
      return fail('tls', `no TLS answer from ${shown(u.host)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): is it an https:// service?`, 'check whether the address should start with http:// or https://');
    }
  }

  // 5. HTTP: the service answers its API (a refused made-up token is the answer expected).
  try {
    await ask(t, NO_TOKEN, undefined, (c) => c.listBatches({ limit: 1 }));
    steps.push({ step: 'http', outcome: 'ok', said: 'the service answered' });
  } catch (e) {
    if (!isServiceError(e)) return fail('http', (e as Error).message);
    if (e.kind === 'http' && (e.status === 401 || e.status === 403)) steps.push({ step: 'http', outcome: 'ok', said: `the service answered (${e.status} for a made-up token, as it should)` });
    else if (e.kind === 'proxy') return fail('proxy', words(e));
    else if (e.kind === 'certificate') return fail('tls', words(e));
    else if (e.kind === 'http' && e.status === 404) return fail('http', `${shown(u.host)} answers, but not as the service: its API is not at ${shown(t.url)}`, 'check the address: it is the service\'s base address, without a path');
    else return fail('http', words(e));
  }

  // 6. The token, 7. the context, 8. the namespace.
  if (!t.token) return fail('token', 'DocSync has no token for this service', hints.signIn ?? 'sign in');
  try {
    await ask(t, t.token, undefined, (c) => c.listBatches({ limit: 1 }));
    steps.push({ step: 'token', outcome: 'ok', said: 'the service accepted the token' });
  } catch (e) {
    return fail('token', isServiceError(e) ? words(e) : (e as Error).message);
  }
  if (t.context === undefined) steps.push({ step: 'context', outcome: 'skipped', said: 'none set' });
  else {
    try {
      await ask(t, t.token, t.context, (c) => c.listBatches({ limit: 1 }));
      steps.push({ step: 'context', outcome: 'ok', said: `the service accepted the context ${shown(t.context)}` });
    } catch (e) {
      const refused = isServiceError(e) && e.kind === 'http' && (e.status === 401 || e.status === 403);
      return fail('context', refused ? `the service accepted the token but not with the context ${shown(t.context)}` : isServiceError(e) ? words(e) : (e as Error).message,
        refused ? 'check the context (normally your organisation\'s id) with whoever runs the service' : undefined);
    }
  }
  const ns = t.namespace ?? 'svc';
  try {
    await ask(t, t.token, t.context, (c) => c.listSecrets());
    steps.push({ step: 'namespace', outcome: 'ok', said: `the service knows the namespace ${shown(ns)}${t.namespace ? '' : ' (the default)'}` });
  } catch (e) {
    // Reading secrets may be an administrator's right: then the namespace cannot be checked, which is no failure.
    if (isServiceError(e) && e.kind === 'http' && e.status === 403) {
      steps.push({ step: 'namespace', outcome: 'skipped', said: `not checked: this account may not read the secrets of the namespace ${shown(ns)}` });
      return steps;
    }
    if (isServiceError(e) && e.kind === 'http' && e.status === 404) return fail('namespace', `the service does not know the namespace ${shown(ns)}`, 'set the namespace the service\'s administrator gave you, or none for the default');
    return fail('namespace', isServiceError(e) ? words(e) : (e as Error).message);
  }
  return steps;
}

export const STEP_TITLES: Record<StepName, string> = {
  name: 'name', proxy: 'proxy', connect: 'connection', tls: 'TLS', http: 'HTTP', token: 'token', context: 'context', namespace: 'namespace',
};

/** The walk as plain text, a line a step: what support reads in a ticket. */
export function doctorText(url: string, steps: DoctorStep[]): string {
  const lines = [`DocSync's way to ${shown(url)}:`];
  for (const s of steps) {
    lines.push(`${s.outcome.padEnd(8)}${STEP_TITLES[s.step].padEnd(11)}${s.said}`);
    if (s.help) lines.push(`${''.padEnd(19)}what helps: ${s.help}`);
  }
  const failed = steps.find((s) => s.outcome === 'failed');
  lines.push(failed ? `The ${STEP_TITLES[failed.step]} step failed.` : 'Every step passed.');
  return lines.join('\n');
}
