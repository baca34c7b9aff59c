import { join } from 'node:path';
import { startSandbox } from '../../../sandbox/index.js';
import { resolveConnection, type Connection } from '../../engine/config/connection.js';
import { KeytarStore } from '../../engine/config/credentials.js';
import { intFlag, parseArgs, UsageError } from '../args.js';
import { dataHome, openHost, type Host } from '../host.js';

export const SERVE_HELP = `docsync serve [--port N]
  Runs the engine on every hot folder until SIGINT/SIGTERM; prints "engine running" once watching.
  With no service configured (no DOCSYNC_URL, no "docsync login") it starts the built-in sandbox on
  a free port, keeping its state in <data folder>/sandbox, and uses it with admin-token.
  --port N   port of the web UI (comes with the desktop issue; accepted and checked now)`;

export async function serveCommand(argv: string[]): Promise<void> {
  const args = parseArgs(argv, { values: ['port'] });
  if (args.positional.length) throw new UsageError(`unexpected argument "${args.positional[0]}"`);
  const port = intFlag(args, 'port');
  if (port !== undefined && port > 65535) throw new UsageError('--port must be at most 65535');

  const home = dataHome();
  let conn: Connection | null = await resolveConnection(home, new KeytarStore());
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  if (!conn) {
    sandbox = await startSandbox({ port: 0, dataDir: join(home, 'sandbox') });
    conn = { url: sandbox.url, token: 'admin-token', context: undefined, source: 'memory' };
    console.log(`no service configured: using the built-in sandbox at ${sandbox.url} (token admin-token, data ${sandbox.dataDir})`);
  }

  let host: Host;
  try {
    host = await openHost({ home, conn });
  } catch (err) {
    await sandbox?.close();
    throw err;
  }
  const { engine, store } = host;
  engine.on('file', ({ file, from }) => {
    if (file.state === from) return;
    if (file.state === 'done') console.log(`done     ${file.path}`);
    else if (file.state === 'failed') console.log(`failed   ${file.path}: ${file.error ?? 'unknown error'}`);
    else if (file.state === 'skipped') console.log(`skipped  ${file.path}${file.error ? `: ${file.error}` : ''}`);
  });
  engine.on('run', ({ run }) => console.log(`run      ${run.serviceRunId} ${run.status ?? ''}`.trimEnd()));

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

  try {
    await engine.start();
    const folders = store.folders.list().filter((f) => f.enabled).length;
    console.log(`service: ${conn.url}; data: ${home}; hot folders: ${folders}${folders ? '' : ' (add one with: docsync folders add PATH --deployment ID)'}`);
    console.log('engine running');
    await stopped;
  } finally {
    await host.close();
    await sandbox?.close();
  }
  console.log('engine stopped');
}
