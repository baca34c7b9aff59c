// Issue 11: a manual upload asks the service whether its deployment or app exists before anything is
// recorded or sent; a service that cannot be asked (offline) does not refuse it: it is queued as before.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../electron/engine/engine.js';
import { ServiceClient } from '../../../electron/engine/service/index.js';
import { openStore, STORE_FILE } from '../../../electron/engine/store/index.js';
import { engineEnv, type EngineEnv } from '../../helpers/engine.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('the target of a manual upload', () => {
  it('an unknown deployment or app is refused before any file is recorded or batch made', async () => {
    env = await engineEnv();
    const file = env.dir('a.txt');
    await writeFile(file, 'Invoice INV-1');
    await expect(env.engine.uploadFiles([file], { type: 'deployment', id: 'nope' })).rejects.toThrow(`no deployment "nope" on ${env.sb.url}`);
    await expect(env.engine.uploadFiles([file], { type: 'app', id: 'nope' })).rejects.toThrow(`no app "nope" on ${env.sb.url}`);
    expect(env.engine.store.files.list()).toEqual([]);
    expect((await env.engine.client.listBatches({})).batches).toEqual([]);
  });

  it('with the service unreachable the upload is queued as before (the check cannot refuse what may exist)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'docsync-offline-'));
    const store = openStore(join(root, STORE_FILE));
    // Port 9 (discard) on 127.0.0.1: nothing listens, the connection is refused.
    const client = new ServiceClient({ baseUrl: 'http://127.0.0.1:9', token: 't', retry: { limit: 2, baseDelayMs: 5, maxDelayMs: 10 } });
    const engine = new Engine({ store, client, home: root, retry: { initialMs: 60_000, maxMs: 60_000 } });
    try {
      const file = join(root, 'a.txt');
      await writeFile(file, 'Invoice INV-1');
      const rows = await engine.uploadFiles([file], { type: 'deployment', id: 'sandbox-invoices' });
      expect(rows.map((r) => r.path)).toEqual([file]);
      expect(['queued', 'uploading']).toContain(engine.store.files.get(rows[0]!.id)?.state);
    } finally {
      await engine.stop();
      client.close();
      store.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
