import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type EngineOptions } from '../../electron/engine/engine.js';
import { ServiceClient, type ClientConfig } from '../../electron/engine/service/index.js';
import { openStore, STORE_FILE } from '../../electron/engine/store/index.js';
import type { RunningSandbox, SandboxOptions } from '../../sandbox/index.js';
import { sandbox } from './sandbox.js';

/** Quick hot-folder settings for tests: short stability, quiet period and rescan. */
export const FAST_FOLDER = { stabilityMs: 150, rescanIntervalMs: 1000, batching: { quietMs: 300, maxFiles: 100, maxBytes: 1024 * 1024 * 1024 } };

export interface EngineEnv {
  sb: RunningSandbox;
  home: string;
  engine: Engine;
  /** A folder below the test's temp dir (not created). */
  dir(name: string): string;
  close(): Promise<void>;
}

/** A real sandbox, a real SQLite store in a temp home, a real client and engine. */
export async function engineEnv(sbOpts: Partial<SandboxOptions> = {}, engineOpts: Partial<EngineOptions> = {}, clientOpts: Partial<ClientConfig> = {}): Promise<EngineEnv> {
  const sb = await sandbox(sbOpts);
  const root = await mkdtemp(join(tmpdir(), 'docsync-engine-'));
  const home = join(root, 'home');
  const store = openStore(join(home, STORE_FILE));
  const client = new ServiceClient({ baseUrl: sb.url, token: 'admin-token', retry: { limit: 8, baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 5000 }, ...clientOpts });
  const engine = new Engine({ store, client, home, poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 }, ...engineOpts });
  return {
    sb,
    home,
    engine,
    dir: (name) => join(root, name),
    async close() {
      await engine.stop();
      client.close();
      store.close();
      await sb.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
