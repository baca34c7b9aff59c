/** Shared setup of the client tests: a sandbox, clients for its users, a temp folder, real files. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchInfo } from '../../../shared/service/index.js';
import { ServiceClient, type ClientConfig } from '../../../electron/engine/service/index.js';
import type { RunningSandbox, SandboxOptions } from '../../../sandbox/index.js';
import { sandbox } from '../../helpers/sandbox.js';

export interface ClientEnv {
  sb: RunningSandbox;
  dir: string;
  /** A client for a sandbox token (default admin-token) with fast retries; closed by `close`. */
  client(token?: string, extra?: Partial<ClientConfig>): ServiceClient;
  /** Writes `size` random bytes (or the given bytes) to a file in the temp folder. */
  file(name: string, content: number | Buffer): Promise<{ path: string; data: Buffer }>;
  close(): Promise<void>;
}

export const FAST_RETRY = { limit: 8, baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 5_000 };

export async function clientEnv(opts: Partial<SandboxOptions> = {}): Promise<ClientEnv> {
  const sb = await sandbox(opts);
  const dir = await mkdtemp(join(tmpdir(), 'docsync-client-'));
  const clients: ServiceClient[] = [];
  return {
    sb,
    dir,
    client(token = 'admin-token', extra = {}) {
      const c = new ServiceClient({ baseUrl: sb.url, token, retry: FAST_RETRY, ...extra });
      clients.push(c);
      return c;
    },
    async file(name, content) {
      const data = typeof content === 'number' ? randomBytes(content) : content;
      const path = join(dir, name);
      await writeFile(path, data);
      return { path, data };
    },
    async close() {
      for (const c of clients) c.close();
      await sb.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Service path of a file in a batch (`<mount_point>/<path_suffix>/<name>`). */
export const batchFilePath = (b: BatchInfo, name: string): string => `${b.mount_point}/${b.path_suffix}/${name}`;

/** Runs `fn` and returns the error it throws (fails the test when it does not throw). */
export async function failure(fn: () => Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await fn();
  } catch (e) {
    return e as Error & Record<string, unknown>;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
