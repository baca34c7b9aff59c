// A real engine in its own process, for the crash test (test/integration/engine/crash.test.ts).
// It runs the COMPILED engine (out/cli, built by `npx tsc -p tsconfig.cli.json`) so that a
// SIGKILL takes down exactly what `docsync serve` would run: store, client, watcher, pipeline.
//
// Usage: node engine-child.mjs '<json>' where json = { home, url, folder } (folder: hot-folder
// settings as Engine.addFolder takes them). Opens the store in `home`, adds the hot folder when
// the store does not have it yet, starts the engine, prints `ready`, and runs until killed.
import { join } from 'node:path';

const out = new URL('../../out/cli/electron/engine/', import.meta.url);
const { Engine } = await import(new URL('engine.js', out).href);
const { openStore, STORE_FILE } = await import(new URL('store/index.js', out).href);
const { ServiceClient } = await import(new URL('service/index.js', out).href);

const cfg = JSON.parse(process.argv[2] ?? '{}');
if (!cfg.home || !cfg.url || !cfg.folder?.path) {
  process.stderr.write('usage: engine-child.mjs \'{"home": ..., "url": ..., "folder": {"path": ..., ...}}\'\n');
  process.exit(2);
}

const store = openStore(join(cfg.home, STORE_FILE));
const client = new ServiceClient({ baseUrl: cfg.url, token: 'admin-token', retry: { limit: 8, baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 5000 } });
const engine = new Engine({
  store,
  client,
  home: cfg.home,
  poll: { initialMs: 50, maxMs: 200, reviewMs: 200 },
  retry: { initialMs: 50, maxMs: 500 },
});
engine.on('log', ({ level, msg }) => {
  if (level !== 'info') process.stderr.write(`[engine ${level}] ${msg}\n`);
});

await engine.start();
if (!store.folders.byPath(cfg.folder.path)) await engine.addFolder(cfg.folder);
process.stdout.write('ready\n');

const stop = () => {
  void engine.stop().finally(() => {
    client.close();
    store.close();
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Keep running until killed (the watcher and timers keep the loop alive; this makes sure of it).
setInterval(() => {}, 1 << 30);
