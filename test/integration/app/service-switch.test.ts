// The path every new user takes (issue 11): try the built-in sandbox, then sign in to the real
// service (here a second sandbox, which accepts only its own token), with one data home. Through
// AppCore.call, as both transports call it: real sandboxes over HTTP, a real store, a real folder.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import { batchNames, B_TOKEN, secondSandbox } from '../../helpers/second-service.js';
import { waitUntil } from '../../helpers/wait.js';

let env: CoreEnv | undefined;
let b: RunningSandbox | undefined;
afterEach(async () => {
  await env?.close();
  await b?.close();
  env = undefined;
  b = undefined;
});

const invoice = (n: number): Promise<Buffer> =>
  invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: `$${n}.00`, vendor: `Vendor ${n}` });

describe('the sandbox first, then another service, one data home', () => {
  it('after signing in to B, new files get clean uploads on B; the sandbox\'s results stay browsable and searchable, marked "from the sandbox"', async () => {
    env = await coreEnv();
    const e = env;
    b = await secondSandbox();
    const fromB = new URL(b.url).origin;
    const inbox = join(e.root, 'inbox');
    await mkdir(inbox);
    const done = async (n: number): Promise<boolean> => (await e.call('status.get', {})).counts.done === n;
    const fileNamed = async (name: string) => (await e.call('files.page', { offset: 0, limit: 50, name })).rows[0]!;
    const batchOf = (batchId: number | null): string => e.core.store.runs.batch(batchId!)!.name!;

    await e.call('connection.trySandbox', {});
    await e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER } });
    await writeFile(join(inbox, 'inv-1.pdf'), await invoice(1));
    await waitUntil(() => done(1), 'inv-1 done on the sandbox');

    const info = await e.call('connection.signIn', { url: b.url, token: B_TOKEN, sessionOnly: true });
    expect(info.account).toMatchObject({ url: b.url, tokenSource: 'memory' });
    expect(info.connection.kind).toBe('online');
    await writeFile(join(inbox, 'inv-2.pdf'), await invoice(2));
    await waitUntil(() => done(2), 'inv-2 done on B');

    const [one, two] = [await fileNamed('inv-1.pdf'), await fileNamed('inv-2.pdf')];
    expect(two).toMatchObject({ state: 'done', error: null });
    // Exactly the batches expected on each service: nothing stray on B, nothing new on the sandbox.
    expect(await batchNames(b, B_TOKEN)).toEqual([batchOf(two.batchId)]);
    expect(await batchNames(e.sandboxes[0]!, e.sandboxes[0]!.token)).toEqual([batchOf(one.batchId)]);

    // Each run says where it was processed, in the runs list, the results tree and the run's results.
    const runs = (await e.call('runs.page', { offset: 0, limit: 10 })).rows;
    expect(runs.map((r) => [r.id, r.origin])).toEqual([[two.runId, fromB], [one.runId, 'the sandbox']]);
    const tree = await e.call('results.tree', {});
    expect(tree[0]!.runs.map((r) => r.origin)).toEqual([fromB, 'the sandbox']);
    const old = await e.call('results.run', { runId: one.runId! });
    expect(old.run.origin).toBe('the sandbox');
    expect(old.files.map((f) => [f.name, f.fileId])).toEqual([['inv-1.pdf', one.id]]);
    // Search finds both, each marked with its service.
    expect((await e.call('search', { query: 'INV-1' })).find((h) => h.fieldName === 'invoice_number')).toMatchObject({ runId: one.runId, origin: 'the sandbox' });
    expect((await e.call('search', { query: 'INV-2' })).find((h) => h.fieldName === 'invoice_number')).toMatchObject({ runId: two.runId, origin: fromB });

    // Back to the sandbox: it is the same service again (whatever its port), and B is left alone.
    await e.call('connection.trySandbox', {});
    await writeFile(join(inbox, 'inv-3.pdf'), await invoice(3));
    await waitUntil(() => done(3), 'inv-3 done on the sandbox');
    const three = await fileNamed('inv-3.pdf');
    expect(await batchNames(e.sandboxes[0]!, e.sandboxes[0]!.token)).toEqual([batchOf(one.batchId), batchOf(three.batchId)].sort());
    expect(await batchNames(b, B_TOKEN)).toEqual([batchOf(two.batchId)]);
    expect((await e.call('runs.page', { offset: 0, limit: 10 })).rows[0]).toMatchObject({ id: three.runId, origin: 'the sandbox' });
  });
});
