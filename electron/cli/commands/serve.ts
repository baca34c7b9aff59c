import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileProblem, serviceProblem } from '../../../shared/ui/messages.js';
import { fileURLToPath } from 'node:url';
import { startBuiltInSandbox } from '../../../sandbox/index.js';
import { AppCore } from '../../engine/app/core.js';
import { probeOnce } from '../../engine/service/probe.js';
import { resolveConnection, type Connection } from '../../engine/config/connection.js';
import { KeytarStore } from '../../engine/config/credentials.js';
import { intFlag, parseArgs, UsageError } from '../args.js';
import { dataHome, NO_KEYCHAIN_OFFER } from '../host.js';
import { cliHints, inCliWords } from '../words.js';
import { isServiceError } from '../../engine/service/index.js';
import { startUiServer } from '../ui-server.js';
import { bandwidthLine, BWLIMIT_HELP, cliBwOverride } from '../bwlimit.js';
import { shown } from '../../../shared/shown.js';

export const SERVE_HELP = `docsync serve [--port N] [--no-ui] [--agent-name NAME] [--bwlimit SPEC]
  Runs the engine on every hot folder until SIGINT/SIGTERM; prints "engine running" once watching,
  and "ui listening on http://127.0.0.1:PORT/?k=..." : open that address in a browser for the
  desktop app's UI (the same screens, served on 127.0.0.1 only, signed in by the address's secret).
  With no service configured (no DOCSYNC_URL, no "docsync login") it starts the built-in sandbox on
  a free port, keeping its state in <data folder>/sandbox, with a token made for that folder and
  readable by you alone (the documented test tokens work only with "docsync sandbox").
  --port N   port of the web UI (default: a free port)
  --no-ui    run the engine only
  --agent-name NAME   what the other computers sharing a hot folder call this one (default: the
             computer's name); see "docsync folders add --share"
${BWLIMIT_HELP}`;

/** out/renderer, built by `npm run build` (electron-vite); the CLI runs from out/cli/electron/cli/commands. */
const RENDERER_DIR = fileURLToPath(new URL('../../../../renderer', import.meta.url));

async function version(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(fileURLToPath(new URL('../../../../../package.json', import.meta.url)), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * A refused token or certificate, or a proxy that refuses DocSync's credentials or the tunnel, stops
 * serve at once (none fixes itself while it runs); an unreachable service or proxy does not: it
 * runs offline and catches up.
 */
async function checkService(conn: Connection): Promise<void> {
  try {
    await probeOnce(conn);
  } catch (err) {
    if (isServiceError(err) && err.kind === 'http' && (err.status === 401 || err.status === 403)) throw inCliWords(err, conn.url);
    if (isServiceError(err, 'certificate')) throw inCliWords(err, conn.url);
    if (isServiceError(err, 'proxy') && (err.proxy?.problem === 'credentials' || err.proxy?.problem === 'tunnel-refused')) throw inCliWords(err, conn.url);
    // Not a failure here: serve works offline, so the hint is what DocSync does rather than what to check.
    const why = isServiceError(err) ? serviceProblem(err, { ...cliHints(conn.url), reach: undefined }) : (err as Error).message;
    console.log(`${why}; running offline, DocSync keeps trying in the background`);
  }
}

export async function serveCommand(argv: string[]): Promise<void> {
  const args = parseArgs(argv, { values: ['port', 'agent-name', 'bwlimit'], booleans: ['no-ui'] });
  const bwlimit = args.flags.get('bwlimit');
  const bw = cliBwOverride(bwlimit);
  if (args.positional.length) throw new UsageError(`unexpected argument "${args.positional[0]}"`);
  const port = intFlag(args, 'port');
  if (port !== undefined && port > 65535) throw new UsageError('--port must be at most 65535');
  const ui = !args.booleans.has('no-ui');
  const agentName = args.flags.get('agent-name')?.trim();
  if (agentName !== undefined && !/^[^\u0000-\u001f]{1,64}$/.test(agentName)) throw new UsageError('--agent-name must be 1 to 64 characters, on one line');
  if (ui && !existsSync(join(RENDERER_DIR, 'index.html'))) throw new UsageError('the web UI is not built: run "npm run build" (or serve with --no-ui)');

  const home = dataHome();
  const credentials = new KeytarStore();
  const missing = await credentials.unavailable();
  if (missing) console.log(`no keychain: ${missing}; sign in from the UI with "session only", or ${NO_KEYCHAIN_OFFER}`);
  const conn: Connection | null = await resolveConnection(home, credentials);
  const core = new AppCore({
    host: 'headless', home, version: await version(), credentials,
    ...(agentName ? { engine: { agentName } } : {}),
    ...(bwlimit !== undefined ? { bwlimit } : {}),
    startSandbox: () => startBuiltInSandbox({ dataDir: join(home, 'sandbox') }),
  });

  let started = false;
  try {
    if (conn) await checkService(conn);
    await core.start({ connection: conn, sandboxWhenNone: true });
    const acc = core.info().account;
    if (acc?.tokenSource === 'sandbox') console.log(`no service configured: using the built-in sandbox at ${acc.url} (data ${shown(join(home, 'sandbox'))}, with a token of its own kept there for you alone)`);
    started = true;
  } finally {
    if (!started) await core.stop();
  }
  core.events.on('file', (file) => {
    if (file.state === 'done') console.log(`done     ${shown(file.path)}`);
    // One line per file: the reason's sentence (`docsync files --json` has the detail).
    else if (file.state === 'failed') console.log(`failed   ${shown(file.path)}: ${file.error ? shown(fileProblem(file.error).summary) : 'unknown error'}`);
    else if (file.state === 'skipped') console.log(`skipped  ${shown(file.path)}${file.error ? `: ${shown(fileProblem(file.error).summary)}` : ''}`);
  });
  core.events.on('run', (run) => console.log(`run      ${shown(run.serviceRunId)} ${shown(run.status ?? '')}`.trimEnd()));
  core.events.on('notice', (n) => {
    if (n.level !== 'info') console.error(`${n.level}: ${shown(n.msg)}`);
  });

  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    const stop = (sig: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      // A second signal while stopping ends the process at once.
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

  let server: Awaited<ReturnType<typeof startUiServer>> | undefined;
  try {
    const folders = core.store.folders.list().filter((f) => f.enabled).length;
    const url = core.info().account?.url ?? '';
    console.log(`service: ${url}; data: ${home}; hot folders: ${folders}${folders ? '' : ' (add one with: docsync folders add PATH --deployment ID)'}`);
    const bandwidth = bandwidthLine(home, bw);
    if (bandwidth) console.log(bandwidth);
    console.log('engine running');
    if (ui) {
      server = await startUiServer(core, { port: port ?? 0, rendererDir: RENDERER_DIR });
      console.log(`ui listening on ${server.openUrl}`);
    }
    await stopped;
  } finally {
    await server?.close();
    await core.stop();
  }
  console.log('engine stopped');
}
