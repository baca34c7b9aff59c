/** `docsync doctor`: the way to the service, step by step (service/doctor.ts), for a person or a support ticket. */
import { resolveConnection } from '../../engine/config/connection.js';
import { KeytarStore, type CredentialStore } from '../../engine/config/credentials.js';
import { doctorText, walkToService } from '../../engine/service/doctor.js';
import { parseArgs, UsageError } from '../args.js';
import { dataHome } from '../host.js';
import { printJson } from '../output.js';
import { cliHints } from '../words.js';

export const DOCTOR_HELP = `docsync doctor [--json]
  Walks the way to the service step by step: the name, the proxy, the connection, TLS (the
  certificate's chain, names and dates), HTTP, the token, the context and the namespace. Says which
  step failed and what helps; the steps after it are not tried. Exits 0 only when every step passed.
  Uses the saved connection, or DOCSYNC_URL, DOCSYNC_TOKEN, DOCSYNC_CONTEXT, DOCSYNC_NAMESPACE,
  DOCSYNC_CA_FILE and DOCSYNC_PROXY. No token or password is ever printed: paste it into a ticket.
  --json   the steps as JSON, for scripts`;

/** Stands for "no token" through resolveConnection, which would stop there; never sent. */
const NO_TOKEN = '\u0000no token';

/** The keychain, where a missing token (or keychain) is no error: the walk then stops at the token step. */
function lenient(store: CredentialStore): CredentialStore {
  return { kind: store.kind, get: (url, account) => store.get(url, account).catch(() => null).then((t) => t ?? NO_TOKEN), set: (...a) => store.set(...a), delete: (...a) => store.delete(...a), unavailable: () => store.unavailable() };
}

export async function doctorCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: [], booleans: ['json'] });
  if (args.positional.length) throw new UsageError(`unexpected argument "${args.positional[0]}"`);
  const conn = await resolveConnection(dataHome(), lenient(new KeytarStore()));
  if (!conn) throw new UsageError('no service configured: run "docsync login --url URL" or set DOCSYNC_URL');
  const steps = await walkToService({
    url: conn.url, token: conn.token === NO_TOKEN ? undefined : conn.token, context: conn.context, namespace: conn.namespace, ca: conn.ca, proxy: conn.proxy ?? null,
    proxyMode: conn.proxyChoice?.mode,
  }, cliHints(conn.url));
  const ok = steps.every((s) => s.outcome !== 'failed');
  if (args.booleans.has('json')) printJson({ url: conn.url, ok, steps });
  else console.log(doctorText(conn.url, steps));
  return ok ? 0 : 1;
}
