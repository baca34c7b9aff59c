import { keepConnectionCa, readCaFile } from '../../engine/config/ca-file.js';
import { loadConnectionSettings, normalizeNamespace, normalizeUrl, saveConnectionSettings } from '../../engine/config/connection.js';
import { parseProxyChoice, proxyRouteFor } from '../../engine/config/connection-proxy.js';
import { KeychainUnavailableError, KeytarStore } from '../../engine/config/credentials.js';
import { saveProxyCredentials } from '../../engine/config/proxy-credentials.js';
import { proxyHost } from '../../engine/service/proxy.js';
import type { ProxyChoice } from '../../../shared/ui/proxy-setting.js';
import { parseArgs, UsageError } from '../args.js';
import { dataHome, NO_KEYCHAIN_OFFER, verifyConnection } from '../host.js';

export const LOGIN_HELP = `docsync login --url URL [--context C] [--namespace N] [--account A] [--ca-file FILE] [--proxy P]
  Reads the token from standard input (never from a flag; not echoed at a terminal), checks it with
  one call to the service, stores it in the OS keychain and remembers URL, context and account in
  the data folder. A wrong token or a missing keychain saves nothing.
  --url URL      the service, e.g. https://service.example
  --context C    value of the context header (normally the organization id)
  --namespace N  the deployment's namespace segment for secrets and PDF passwords (default svc);
                 only if the service's administrator gave you one
  --account A    name of the keychain entry (default "default")
  --ca-file FILE a CA certificate (PEM) to trust for this service, beside the usual ones: your
                 company's, where its network re-signs connections, or the service's own; a copy
                 is kept in the data folder
  --proxy P      how to reach the service: an address (http://proxy.example:3128; with
                 http://USER:PASSWORD@proxy.example:3128 the user and password are kept in the
                 keychain with the token, never in a file), none, environment (the default:
                 HTTPS_PROXY, HTTP_PROXY and NO_PROXY of each command) or system (the desktop
                 app asks the system; the command line then uses the environment's)
  e.g.  printf %s "$TOKEN" | docsync login --url https://service.example`;

export const LOGOUT_HELP = `docsync logout
  Deletes the stored token from the keychain and forgets the saved connection.`;

/** The token from standard input: typed without echo at a terminal, else the whole input, trimmed. */
async function readToken(): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) {
    process.stderr.write('token: ');
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const token = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const onData = (s: string): void => {
        for (const ch of s) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(buf);
          if (ch === '\u0003') return fail(new UsageError('cancelled'));
          if (ch === '\u007f' || ch === '\b') buf = buf.slice(0, -1);
          else buf += ch;
        }
      };
      const cleanup = (): void => {
        stdin.off('data', onData);
        stdin.setRawMode(false);
        stdin.pause();
        process.stderr.write('\n');
      };
      const done = (v: string): void => (cleanup(), resolve(v));
      const fail = (e: Error): void => (cleanup(), reject(e));
      stdin.on('data', onData);
    });
    return token.trim();
  }
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

export async function loginCommand(argv: string[]): Promise<void> {
  const args = parseArgs(argv, { values: ['url', 'context', 'namespace', 'account', 'ca-file', 'proxy'] });
  if (args.positional.length) throw new UsageError(`unexpected argument "${args.positional[0]}" (the token is read from standard input)`);
  const rawUrl = args.flags.get('url');
  if (!rawUrl) throw new UsageError('--url is required');
  let url: string;
  try {
    url = normalizeUrl(rawUrl);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const context = args.flags.get('context');
  let namespace: string | undefined;
  try {
    namespace = normalizeNamespace(args.flags.get('namespace'));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const account = args.flags.get('account') ?? 'default';
  const caFile = args.flags.get('ca-file');
  let ca: string | undefined;
  try {
    ca = caFile !== undefined ? readCaFile(caFile) : undefined;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  let proxyChoice: ProxyChoice | undefined;
  let proxyCredentials: Parameters<typeof saveProxyCredentials>[3];
  try {
    const given = args.flags.has('proxy') ? parseProxyChoice(args.flags.get('proxy') ?? '', 'the proxy given with --proxy') : undefined;
    proxyChoice = given?.choice;
    proxyCredentials = given?.credentials;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const token = await readToken();
  if (!token) throw new UsageError('no token on standard input; e.g. printf %s "$TOKEN" | docsync login --url URL');
  if (/\s/.test(token)) throw new UsageError('the token on standard input contains whitespace; give the token alone');

  const proxy = await proxyRouteFor(proxyChoice ?? { mode: 'environment' }, url, { env: process.env, stored: proxyCredentials });
  await verifyConnection({ url, token, context, ca, proxy });
  const keychain = new KeytarStore();
  const missing = await keychain.unavailable();
  if (missing) throw new KeychainUnavailableError(`${missing}; ${NO_KEYCHAIN_OFFER}`);
  const home = dataHome();
  await keychain.set(url, account, token);
  // The proxy's user and password beside the token; a sign-in without them forgets older ones.
  await saveProxyCredentials(keychain, url, account, proxyCredentials ?? null);
  // A new sign-in without --ca-file forgets an older CA: trust is given per connection, on purpose.
  const kept = await keepConnectionCa(home, ca ?? null);
  await saveConnectionSettings(home, { url, account, ...(context !== undefined ? { context } : {}), ...(namespace ? { namespace } : {}), ...(kept ? { caFile: kept } : {}), ...(proxyChoice ? { proxy: proxyChoice } : {}) });
  console.log(`signed in to ${url}${context ? ` (context ${context})` : ''}; token stored in the keychain as "${account}"${kept ? '; its CA certificate kept in the data folder' : ''}${proxy ? `; through the proxy at ${proxyHost(proxy.url)}${proxyCredentials ? ' (its user and password kept in the keychain)' : ''}` : ''}`);
}

export async function logoutCommand(argv: string[]): Promise<void> {
  const args = parseArgs(argv, { values: [] });
  if (args.positional.length) throw new UsageError(`unexpected argument "${args.positional[0]}"`);
  const home = dataHome();
  const saved = await loadConnectionSettings(home);
  if (!saved) {
    console.log('not signed in');
    return;
  }
  const keychain = new KeytarStore();
  const removed = await keychain.delete(saved.url, saved.account);
  await saveProxyCredentials(keychain, saved.url, saved.account, null);
  await saveConnectionSettings(home, null);
  await keepConnectionCa(home, null);
  console.log(`signed out of ${saved.url}${removed ? '; token deleted from the keychain' : ' (no token was in the keychain)'}`);
}
