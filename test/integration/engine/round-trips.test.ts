// Round trips on one file's critical path (issue 27): the calls a file costs from drop to done,
// counted in the sandbox's audit log (real sandbox over HTTP, real store). Before: a target check, a
// look for the batch by name, the create, a GET of the batch, the PUT, a look for the run by tag, the
// start and a poll at once, one after another. Now a fresh batch is created and run without the looks
// (they stay for a batch tried before: crash safety), its path is asked for while the run goes, and
// a target proven lately is not checked again.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../electron/engine/engine.js';
import { ServiceClient } from '../../../electron/engine/service/index.js';
import { canSeeWriters } from '../../../electron/engine/watch/writers.js';
import { engineEnv, type EngineEnv } from '../../helpers/engine.js';
import { waitUntil } from '../../helpers/wait.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const TARGET = { type: 'deployment', id: 'sandbox-invoices' } as const;
const invoice = (n: number): string => `INVOICE\nInvoice Number: INV-${n}\nInvoice Date: 2026-03-01\nTotal: $${n}.50\n`;

interface Call { id: number; ts: number; call: string }
/** The sandbox's audit log after entry `after`, as "METHOD path" with ids made generic. */
function calls(e: EngineEnv, after = 0): Call[] {
  const rows = e.sb.core.db.prepare('SELECT id, ts_ms, method, path, status FROM audit WHERE id > ? ORDER BY id').all(after) as { id: number; ts_ms: number; method: string; path: string; status: number }[];
  return rows.map((r) => ({
    id: r.id, ts: r.ts_ms,
    call: `${r.method} ${r.path.replace(/run_[0-9a-f]+/, '{run}').replace(/\/batches\/\d+/, '/batches/{id}').replace(/files\/[^/]+$/, 'files/{name}')} ${r.status}`,
  }));
}
const lastId = (e: EngineEnv): number => calls(e).at(-1)?.id ?? 0;
const POLL = 'GET /v2/apps/runs/{run} 200';

async function uploadOne(e: EngineEnv, n: number): Promise<void> {
  const p = e.dir(`src/inv-${n}.txt`);
  await mkdir(e.dir('src'), { recursive: true });
  await writeFile(p, invoice(n));
  const [row] = await e.engine.uploadFiles([p], TARGET);
  await waitUntil(() => e.engine.store.files.get(row!.id)?.state === 'done', `inv-${n} done`, 30_000);
}

describe('one file from drop to done: the calls on its critical path', () => {
  it('docsync upload, target proven by an earlier upload: create, PUT, start, then polls and results; the batch path beside the run', async () => {
    env = await engineEnv({}, { poll: { initialMs: 50, maxMs: 200, reviewMs: 200 } });
    await uploadOne(env, 1);
    const before = lastId(env);
    await uploadOne(env, 2);
    const got = calls(env, before).map((c) => c.call);
    // Before issue 27: POST .../runs 400 (check), GET /v2/batches, POST /v2/batches, GET /v2/batches/{id},
    // PUT, GET /v2/apps/runs, POST .../runs 202, then polls: 7 calls one after another before the first poll.
    expect(got.filter((c) => c !== POLL)).toEqual([
      'POST /v2/batches 200',
      'PUT /v2/batches/{id}/files/{name} 204',
      'POST /v2/apps/deployments/sandbox-invoices/runs 202',
      'GET /v2/batches/{id} 200',
      'GET /v2/apps/runs/{run}/results 200',
    ]);
    // The path is asked for after the start, while the run goes: not on the way to it.
    expect(got.indexOf('GET /v2/batches/{id} 200')).toBeGreaterThan(got.indexOf('POST /v2/apps/deployments/sandbox-invoices/runs 202'));
    expect(got.filter((c) => c === POLL).length).toBeGreaterThanOrEqual(1);
    // The files still know where they are on the service (read back for a dropped file's original).
    const f = env.engine.store.files.list().at(-1)!;
    expect(f.servicePath).toMatch(/\/inv-2\.txt$/);
  });

  it('the first upload to a target checks it once (while the file is read); a second does not', async () => {
    env = await engineEnv();
    await uploadOne(env, 3);
    const checks = (c: Call[]): number => c.filter((x) => x.call === 'POST /v2/apps/deployments/sandbox-invoices/runs 400').length;
    expect(checks(calls(env))).toBe(1);
    const before = lastId(env);
    await uploadOne(env, 4);
    expect(checks(calls(env, before))).toBe(0);
  });

  it('the first poll waits the policy\'s first delay after the start (no poll in the round trip right after it)', async () => {
    env = await engineEnv({}, { poll: { initialMs: 400, maxMs: 800, reviewMs: 800 } });
    await uploadOne(env, 5);
    const c = calls(env);
    const start = c.find((x) => x.call === 'POST /v2/apps/deployments/sandbox-invoices/runs 202')!;
    const firstPoll = c.find((x) => x.call === POLL)!;
    // A lower bound only (a loaded machine polls later, never sooner): counted from when the start was sent.
    expect(firstPoll.ts - start.ts).toBeGreaterThanOrEqual(300);
  });

  it('a batch recorded by another process (after a crash or restart) still looks for its service batch and run first', async () => {
    env = await engineEnv();
    const e = env;
    e.engine.pause();
    const p = e.dir('src/inv-6.txt');
    await mkdir(e.dir('src'), { recursive: true });
    await writeFile(p, invoice(6));
    const [row] = await e.engine.uploadFiles([p], TARGET);
    const before = lastId(e);
    // A second engine on the same store: the batch is not its own fresh one.
    const client = new ServiceClient({ baseUrl: e.sb.url, token: 'admin-token' });
    const other = new Engine({ store: e.engine.store, client, home: e.home, poll: { initialMs: 50, maxMs: 200, reviewMs: 200 } });
    try {
      await other.start();
      await waitUntil(() => e.engine.store.files.get(row!.id)?.state === 'done', 'inv-6 done', 30_000);
    } finally {
      await other.stop();
      client.close();
    }
    const got = calls(e, before).map((c) => c.call);
    const at = (c: string): number => got.indexOf(c);
    expect(at('GET /v2/batches 200')).toBeGreaterThan(-1);
    expect(at('GET /v2/batches 200')).toBeLessThan(at('POST /v2/batches 200'));
    expect(at('GET /v2/apps/runs 200')).toBeGreaterThan(-1);
    expect(at('GET /v2/apps/runs 200')).toBeLessThan(at('POST /v2/apps/deployments/sandbox-invoices/runs 202'));
  });

  it.skipIf(!canSeeWriters)('a hot-folder drop: create, PUT, start, polls, results (the folder\'s target was checked when it was added)', async () => {
    env = await engineEnv();
    const inbox = env.dir('inbox');
    await mkdir(inbox, { recursive: true });
    await env.engine.start();
    await env.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', stabilityMs: 150, rescanIntervalMs: 60_000 });
    const before = lastId(env);
    await writeFile(env.dir('inv-7.txt'), invoice(7));
    await rename(env.dir('inv-7.txt'), join(inbox, 'inv-7.txt'));
    await waitUntil(() => env!.engine.store.files.countByState().done === 1, 'the drop is done', 30_000);
    expect(calls(env, before).map((c) => c.call).filter((c) => c !== POLL)).toEqual([
      'POST /v2/batches 200',
      'PUT /v2/batches/{id}/files/{name} 204',
      'POST /v2/apps/deployments/sandbox-invoices/runs 202',
      'GET /v2/batches/{id} 200',
      'GET /v2/apps/runs/{run}/results 200',
    ]);
  });
});
