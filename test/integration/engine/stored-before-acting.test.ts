// Crash safety with grouped writes (issue 14): the engine now stores many files' steps in one
// transaction, yet every step must still be committed before the action it announces. A real engine,
// store file and sandbox; between them a plain HTTP relay on 127.0.0.1 that, as each request arrives,
// reads the store through a connection of its own (what a restart after a crash at that instant would
// find): a file's upload must find it 'uploading' there, a run's start every file of its batch 'uploaded'.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../electron/engine/engine.js';
import { ServiceClient } from '../../../electron/engine/service/index.js';
import { openStore, STORE_FILE, type Store } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { sandbox } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** Relays every request to `target`; `check` sees its method, path and body as it arrives, before it is relayed. */
async function relay(target: string, check: (method: string, path: string, body: Buffer) => void): Promise<{ url: string; server: Server }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      check(req.method ?? '', req.url ?? '', body);
      const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('grouped state changes are stored before they are acted on', () => {
  it('each upload finds its file uploading in the store, each run start its batch uploaded', async () => {
    const sb: RunningSandbox = await sandbox();
    cleanup.push(() => sb.close());
    const root = await mkdtemp(join(tmpdir(), 'docsync-stored-first-'));
    cleanup.push(() => rm(root, { recursive: true, force: true }));
    const home = join(root, 'home');
    const store: Store = openStore(join(home, STORE_FILE));
    cleanup.push(() => store.close());
    // What a restart would read: only what is committed.
    const seen = new Database(join(home, STORE_FILE), { readonly: true });
    cleanup.push(() => void seen.close());
    const stateOf = seen.prepare<[string], { state: string }>('SELECT state FROM files WHERE safe_name = ?');
    const batchStates = seen.prepare<[string], { state: string }>(
      'SELECT f.state FROM files f JOIN batches b ON b.id = f.batch_id WHERE b.service_batch_id = ?');

    const puts: string[] = [];
    const runStarts: string[] = [];
    const wrong: string[] = [];
    const { url, server } = await relay(sb.url, (method, path, body) => {
      const put = /^\/v2\/batches\/([^/]+)\/files\/([^/?]+)$/.exec(path);
      if (method === 'PUT' && put) {
        const name = decodeURIComponent(put[2] as string);
        puts.push(name);
        const s = stateOf.get(name)?.state;
        if (s !== 'uploading') wrong.push(`${name} sent while stored as ${s}`);
      }
      if (method === 'POST' && /^\/v2\/apps\/deployments\/[^/]+\/runs$/.test(path)) {
        // (Adding the folder checks its deployment with a start request naming no batch.)
        const started = (JSON.parse(body.toString() || '{}') as { batch_id?: number }).batch_id;
        if (started === undefined) return;
        const batch = String(started);
        runStarts.push(batch);
        for (const { state } of batchStates.all(batch)) if (state !== 'uploaded') wrong.push(`run of batch ${batch} started while a file of it was stored as ${state}`);
      }
    });
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));

    const client = new ServiceClient({ baseUrl: url, token: 'admin-token', retry: { limit: 8, baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 5000 } });
    cleanup.push(() => client.close());
    const engine = new Engine({ store, client, home, poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } });
    cleanup.push(() => engine.stop());

    const inbox = join(root, 'inbox');
    await mkdir(inbox);
    await engine.start();
    await engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, batching: { ...FAST_FOLDER.batching, maxFiles: 40 } });
    const count = 120;
    await Promise.all(Array.from({ length: count }, (_, i) => writeFile(join(inbox, `scan-${i}.txt`), `INVOICE\nInvoice Number: INV-${i}\n`)));
    await waitUntil(() => store.files.countByState().done === count, `all ${count} files done`, 90_000);

    expect(new Set(puts).size).toBe(count);
    expect(wrong).toEqual([]);
    // 120 files in batches of at most 40: at least 3 runs, each started once, each batch checked whole.
    expect(runStarts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(runStarts).size).toBe(runStarts.length);
    for (const b of runStarts) expect(batchStates.all(b).length).toBeGreaterThan(0);
    // Every step still has its own history row: queued, uploading, uploaded, running, done after discovered and stable.
    const steps = store.files.history(store.files.list()[0]!.id).map((e) => e.toState);
    expect(steps).toEqual(['discovered', 'stable', 'queued', 'uploading', 'uploaded', 'running', 'done']);
  }, 120_000);
});
