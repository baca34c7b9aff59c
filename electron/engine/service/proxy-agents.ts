/**
 * Keep-alive agents that reach the service through a proxy: hpagent's (what got's documentation
 * recommends; both tunnel with CONNECT, for http and https services alike, and an https service's
 * TLS runs end to end inside the tunnel with the client's own trust). Here they only name what
 * went wrong on the way: hpagent says "Bad response: 407" or passes on the socket's error, and a
 * person must read whether the proxy is down, refused DocSync's credentials or refused the tunnel,
 * never that the service cannot be reached.
 */
import type { Agent as HttpAgent, ClientRequestArgs } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { proxyHost, type ProxyRoute } from './proxy.js';

/** What went wrong at the proxy; every one of them before anything reached the service. */
export type ProxyProblemKind =
  /** No connection to the proxy (refused, no route, its name unknown, no answer). */
  | 'unreachable'
  /** 407: the proxy wants credentials, or did not accept those given. */
  | 'credentials'
  /** The proxy answered the tunnel with a refusal (403 and the like): its rules do not let DocSync through. */
  | 'tunnel-refused'
  /** 502, 503, 504: the proxy itself could not reach the service. */
  | 'upstream';

/** Codes of the tunnel's answers, so retry and error code see them as failures before sending. */
export const PROXY_CODES = { credentials: 'ERR_PROXY_AUTH', 'tunnel-refused': 'ERR_PROXY_TUNNEL', upstream: 'ERR_PROXY_UPSTREAM' } as const;

export class ProxyFailure extends Error {
  override name = 'ProxyFailure';
  constructor(
    readonly problem: ProxyProblemKind,
    /** `host:port` of the proxy. */
    readonly proxy: string,
    /** The system code of an unreachable proxy, or one of PROXY_CODES. */
    readonly code: string,
    /** The status the proxy answered the tunnel with. */
    readonly status: number | undefined,
    /** Whether DocSync sent credentials (a 407 then means they are wrong, not missing). */
    readonly hadCredentials: boolean,
  ) {
    super(
      problem === 'unreachable'
        ? `the proxy at ${proxy} cannot be reached (${code})`
        : `the proxy at ${proxy} answered the tunnel with ${status ?? '?'}`,
    );
  }
}

function named(err: Error, route: ProxyRoute): ProxyFailure {
  const at = proxyHost(route.url);
  const had = route.credentials !== undefined;
  const status = /^Bad response: (\d{3})$/.exec(err.message);
  if (status) {
    const s = Number(status[1]);
    const problem: ProxyProblemKind = s === 407 ? 'credentials' : s === 502 || s === 503 || s === 504 ? 'upstream' : 'tunnel-refused';
    return new ProxyFailure(problem, at, PROXY_CODES[problem], s, had);
  }
  if (err.message === 'Proxy timeout') return new ProxyFailure('unreachable', at, 'ETIMEDOUT', undefined, had);
  return new ProxyFailure('unreachable', at, (err as NodeJS.ErrnoException).code ?? 'ECONNRESET', undefined, had);
}

type Callback = (err: Error | null, socket: Socket | null) => void;
type CreateConnection = (options: ClientRequestArgs, callback: Callback) => void;

/**
 * Wraps an hpagent agent's createConnection so its failures come out named, and gives the CONNECT
 * a time limit where the request has none (got times connects by socket events, which a socket
 * handed over after the tunnel never emits): a proxy that never answers is then reported, not waited on.
 */
function naming<A extends HttpAgent>(agent: A, route: ProxyRoute, connectMs: number): A {
  const own = agent as unknown as { createConnection: CreateConnection };
  const original = own.createConnection.bind(agent);
  own.createConnection = (options, callback) =>
    original({ ...options, timeout: options.timeout || connectMs }, (err, socket) => callback(err ? named(err, route) : null, socket));
  return agent;
}

/**
 * Proxy-aware agents with the pool's options (and, for https, the client's trust). Credentials go
 * in a Proxy-Authorization header of the CONNECT alone, never in a URL kept on the agent.
 */
export function proxyAgents(route: ProxyRoute, connectMs: number, pool: object, httpsOptions: object): { http: HttpAgent; https: HttpsAgent } {
  const { user, password } = route.credentials ?? {};
  const headers = route.credentials ? { 'proxy-authorization': `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` } : {};
  const proxyRequestOptions = { headers };
  return {
    http: naming(new HttpProxyAgent({ ...pool, proxy: route.url, proxyRequestOptions }), route, connectMs),
    https: naming(new HttpsProxyAgent({ ...pool, ...httpsOptions, proxy: route.url, proxyRequestOptions }), route, connectMs),
  };
}
