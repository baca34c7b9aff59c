/**
 * Which proxy, if any, carries the client's requests to the service (issue 27, section 2): from
 * HTTP_PROXY / HTTPS_PROXY / ALL_PROXY and NO_PROXY as curl reads them, from the system's answer
 * for the service's address (Electron's resolveProxy, a PAC result), or a URL the user gave.
 *
 * NO_PROXY is matched here rather than with proxy-from-env, the usual library: it departs from curl
 * where it matters to companies (checked with proxy-from-env 2.1.0): "example.com" does not cover
 * www.example.com, ".example.com" does not cover example.com itself, and CIDR ranges are not read.
 * It also reads process.env only, and the client is given its environment.
 */
import { isIP } from 'node:net';

/** User name and password for the proxy's Basic authentication; kept with the token, never in a file. */
export interface ProxyCredentials {
  user: string;
  password: string;
}

/** The proxy for one client: its address (scheme, host, port; never credentials) and what it is told. */
export interface ProxyRoute {
  /** `http://host:port` or `https://host:port`. */
  url: string;
  credentials?: ProxyCredentials | undefined;
}

/** A proxy setting that cannot work, said in a person's words. */
export class ProxySettingError extends Error {
  override name = 'ProxySettingError';
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * A proxy address as typed (`host:port`, `http://user:pass@host:port`): its URL without credentials,
 * and the credentials it carried. curl's default scheme, http, where none is given.
 */
export function splitProxyUrl(raw: string, where = 'the proxy'): ProxyRoute {
  const text = raw.trim();
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new ProxySettingError(`${where} "${text}" is not an address; give e.g. http://proxy.example:3128`);
  }
  if (/^socks/i.test(u.protocol)) throw new ProxySettingError(`${where} is a SOCKS proxy (${u.protocol}//${u.host}); DocSync can use an HTTP or HTTPS proxy only`);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ProxySettingError(`${where} must be an http:// or https:// address, not ${u.protocol}//`);
  if (!u.hostname) throw new ProxySettingError(`${where} "${text}" names no host`);
  const credentials = u.username || u.password ? { user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) } : undefined;
  // curl's default port for an http proxy given without one is 1080; a proxy URL normally has one.
  const port = u.port || (u.protocol === 'https:' ? '443' : '1080');
  return { url: `${u.protocol}//${u.hostname}:${port}`, ...(credentials ? { credentials } : {}) };
}

/** `host:port` of a proxy URL, as messages name it. */
export function proxyHost(url: string): string {
  return new URL(url).host;
}

const envOf = (env: NodeJS.ProcessEnv, name: string): string =>
  // curl reads the lower-case name first; both cases are honoured for each variable.
  (env[name.toLowerCase()] ?? '').trim() || (env[name.toUpperCase()] ?? '').trim();

/** The host as NO_PROXY compares it: lower case, no IPv6 brackets, no trailing dot. */
const bare = (host: string): string => host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');

function ipBytes(ip: string): number[] | null {
  const v = isIP(ip);
  if (v === 4) return ip.split('.').map(Number);
  if (v !== 6) return null;
  // Expands "::" and an IPv4 tail into 16 bytes.
  let s = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4?.[1]) {
    const b = v4[1].split('.').map(Number);
    s = `${s.slice(0, -v4[1].length)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

function inCidr(host: string, net: string, bits: number): boolean {
  const a = ipBytes(host);
  const b = ipBytes(net);
  if (!a || !b || a.length !== b.length || bits > a.length * 8) return false;
  for (let i = 0; i < a.length; i++) {
    const take = Math.max(0, Math.min(8, bits - i * 8));
    const mask = take === 0 ? 0 : (0xff << (8 - take)) & 0xff;
    if ((a[i]! & mask) !== (b[i]! & mask)) return false;
  }
  return true;
}

/**
 * Whether NO_PROXY's list exempts `host:port`, with curl's rules: entries separated by commas (or
 * spaces); "*" alone exempts every host; a name covers itself and every name below it, with or
 * without a leading dot ("example.com" and ".example.com" both cover example.com and
 * www.example.com, never notexample.com); an IP address matches itself, and `ADDRESS/BITS` a range
 * (curl 7.86). Two additions curl lacks, common elsewhere (Go, Python): `*.example.com` reads as
 * `.example.com`, and `entry:PORT` exempts that port only.
 */
export function noProxyCovers(list: string, host: string, port: number): boolean {
  const h = bare(host);
  const hostIsIp = isIP(h) !== 0;
  for (const raw of list.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    let entryPort: number | undefined;
    const withPort = /^\[(.+)\]:(\d+)$/.exec(entry) ?? (entry.split(':').length === 2 ? /^(.+):(\d+)$/.exec(entry) : null);
    if (withPort) {
      entry = withPort[1] as string;
      entryPort = Number(withPort[2]);
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    entry = bare(entry);
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      if (hostIsIp && inCidr(h, cidr[1] as string, Number(cidr[2]))) return true;
      continue;
    }
    if (isIP(entry)) {
      if (hostIsIp && inCidr(h, entry, isIP(entry) === 4 ? 32 : 128)) return true;
      continue;
    }
    if (hostIsIp) continue;
    entry = entry.replace(/^\*?\./, '');
    if (entry && (h === entry || h.endsWith(`.${entry}`))) return true;
  }
  return false;
}

/**
 * This computer's own addresses: a proxy elsewhere cannot reach them (its "localhost" is itself), so
 * the environment's proxy is never used for them, as Go's http client does. curl would send them
 * to the proxy unless NO_PROXY names them.
 */
export function isLoopback(host: string): boolean {
  const h = bare(host);
  return h === 'localhost' || h.endsWith('.localhost') || inCidr(h, '127.0.0.0', 8) || h === '::1';
}

/**
 * The proxy the environment names for `target`, or null for a direct connection: `https_proxy`
 * for https, `http_proxy` for http, else `all_proxy`, each in either case (lower case first, as
 * curl reads them); none for a host NO_PROXY covers or this computer's own.
 */
export function proxyFromEnvironment(target: string, env: NodeJS.ProcessEnv): ProxyRoute | null {
  const u = new URL(target);
  const scheme = u.protocol.replace(/:$/, '');
  const name = `${scheme}_proxy`;
  const value = envOf(env, name) || envOf(env, 'all_proxy');
  if (!value) return null;
  const port = Number(u.port) || DEFAULT_PORTS[u.protocol] || 0;
  if (isLoopback(u.hostname) || noProxyCovers(envOf(env, 'no_proxy'), u.hostname, port)) return null;
  const which = envOf(env, name) ? name.toUpperCase() : 'ALL_PROXY';
  return splitProxyUrl(value, `the proxy in ${which}`);
}

/**
 * The proxy of a PAC-style answer ("PROXY host:port; DIRECT", what Electron's resolveProxy gives),
 * or null for DIRECT. The first entry is taken: DocSync does not fall back along the list.
 */
export function proxyFromPacResult(result: string): ProxyRoute | null {
  const first = result.split(';').map((s) => s.trim()).find((s) => s !== '') ?? 'DIRECT';
  const [kind = '', where = ''] = first.split(/\s+/);
  switch (kind.toUpperCase()) {
    case 'DIRECT':
      return null;
    case 'PROXY':
      return splitProxyUrl(`http://${where}`, "the system's proxy");
    case 'HTTPS':
      return splitProxyUrl(`https://${where}`, "the system's proxy");
    default:
      throw new ProxySettingError(`the system's proxy setting ("${first}") is a kind DocSync cannot use; it can use an HTTP or HTTPS proxy only`);
  }
}
