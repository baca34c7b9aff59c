/**
 * What went wrong at a proxy, in a person's words (issue 27, section 2). Kept apart from
 * messages.ts's serviceProblem, which calls it for errors of kind 'proxy': a proxy failure is never
 * "the service cannot be reached", since nothing got as far as the service.
 */

/** What is known of a failure at the proxy (electron/engine/service/proxy-agents.ts names it). */
export interface ProxyFacts {
  problem: 'unreachable' | 'credentials' | 'tunnel-refused' | 'upstream';
  /** `host:port` of the proxy. */
  at: string;
  /** The proxy's answer to the tunnel, when it answered. */
  status?: number | undefined;
  /** Whether DocSync gave the proxy a user name and password. */
  hadCredentials: boolean;
}

/** What a person can do about the proxy setting, where the host has its own way. */
export interface ProxyHints {
  /** Where the proxy and its credentials are set (the CLI's flag, the app's "More settings"). */
  proxySetting?: string;
}

const WHY_UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'nothing answers at that address',
  ENOTFOUND: 'its name is not known',
  EAI_AGAIN: 'its name cannot be looked up',
  EHOSTUNREACH: 'there is no route to it',
  ENETUNREACH: 'there is no network',
  ETIMEDOUT: 'it did not answer in time',
  ECONNRESET: 'it cut the connection',
};

/** One sentence: what happened at the proxy, then what helps. */
export function proxyProblem(p: ProxyFacts, code: string | undefined, hints: ProxyHints = {}): string {
  const setting = hints.proxySetting ?? 'the proxy setting';
  switch (p.problem) {
    case 'unreachable':
      return `DocSync cannot reach the proxy at ${p.at}: ${(code && WHY_UNREACHABLE[code]) || 'the connection failed'}; check ${setting}`;
    case 'credentials':
      return p.hadCredentials
        ? `the proxy refused DocSync's credentials (proxy ${p.at}): check the proxy user name and password in ${setting}`
        : `the proxy at ${p.at} asks for a user name and password, and DocSync has none: give them in ${setting}`;
    case 'tunnel-refused':
      return `the proxy at ${p.at} does not let DocSync through to the service${p.status ? ` (it answered ${p.status})` : ''}: ask whoever runs your network to allow the service's address`;
    case 'upstream':
      return `the proxy at ${p.at} cannot reach the service: check the service's address, or try again later`;
  }
}
