/**
 * A connection's proxy (issue 27, section 2): the choice as typed (`login --proxy`, DOCSYNC_PROXY,
 * the sign-in form) and the route it gives for the service's address.
 */
import type { ProxyChoice } from '../../../shared/ui/proxy-setting.js';
import { ProxySettingError, proxyFromEnvironment, proxyFromPacResult, splitProxyUrl, type ProxyCredentials, type ProxyRoute } from '../service/proxy.js';

/** Asks the system which proxy serves a URL; answers as a PAC result does ("PROXY host:port", "DIRECT"). */
export type SystemProxyResolver = (url: string) => Promise<string>;

/**
 * `none`, `environment` (or `env`), `system`, or a proxy's address; the credentials an address
 * carried come out of it, so that only the address is ever saved.
 */
export function parseProxyChoice(raw: string, where = 'the proxy'): { choice: ProxyChoice; credentials?: ProxyCredentials } {
  const v = raw.trim();
  const word = v.toLowerCase();
  if (word === 'none' || word === 'direct') return { choice: { mode: 'none' } };
  if (word === 'env' || word === 'environment') return { choice: { mode: 'environment' } };
  if (word === 'system') return { choice: { mode: 'system' } };
  const r = splitProxyUrl(v, where);
  return { choice: { mode: 'url', url: r.url }, ...(r.credentials ? { credentials: r.credentials } : {}) };
}

/**
 * The proxy for `serviceUrl` under a choice, or null for a direct connection. "From the system"
 * asks the host where it can (the desktop app); the command line has no system setting to read,
 * so there it is the environment's. Credentials kept with the token apply where the proxy's
 * address carries none.
 */
export async function proxyRouteFor(
  choice: ProxyChoice,
  serviceUrl: string,
  o: { env: NodeJS.ProcessEnv; stored?: ProxyCredentials | undefined; system?: SystemProxyResolver | undefined },
): Promise<ProxyRoute | null> {
  let route: ProxyRoute | null;
  if (choice.mode === 'none') return null;
  if (choice.mode === 'url') route = splitProxyUrl(choice.url ?? '', 'the proxy');
  else if (choice.mode === 'system' && o.system) route = proxyFromPacResult(await o.system(serviceUrl));
  else route = proxyFromEnvironment(serviceUrl, o.env);
  return route && !route.credentials && o.stored ? { ...route, credentials: o.stored } : route;
}

/** The sign-in form's proxy fields (shared/ui/contract.ts). */
export interface ProxyForm {
  mode: ProxyChoice['mode'];
  url?: string | undefined;
  user?: string | undefined;
  password?: string | undefined;
}

/** The form's choice, and the user and password typed (or carried by the address); no form: the environment's. */
export function proxyFromForm(p: ProxyForm | undefined): { choice: ProxyChoice; credentials?: ProxyCredentials } {
  if (!p) return { choice: { mode: 'environment' } };
  const user = p.user?.trim();
  const typed = user ? { user, password: p.password ?? '' } : undefined;
  if (p.mode !== 'url') return { choice: { mode: p.mode }, ...(typed ? { credentials: typed } : {}) };
  if (!p.url?.trim()) throw new ProxySettingError("give the proxy's address, e.g. http://proxy.example:3128");
  const parsed = parseProxyChoice(p.url, 'the proxy');
  const credentials = typed ?? parsed.credentials;
  return { choice: parsed.choice, ...(credentials ? { credentials } : {}) };
}
