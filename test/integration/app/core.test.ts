// The engine side of the UI contract (issue 5) through AppCore.call, exactly as both transports
// call it: a real sandbox over HTTP, a real SQLite store, real folders. Flows: not signed in,
// test/sign in/sign out, the sandbox in one click, a hot folder from drop to results, drag and drop
// staging, retry, search and export, and browsing offline once the service is gone.
import { readFile, writeFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeytarStore } from '../../../electron/engine/config/credentials.js';
import type { FileView, Notice } from '../../../shared/ui/views.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { corruptPdf, invoicePdf } from '../../helpers/pdf-fixtures.js';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

let env: CoreEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const invoice = (n: number): Promise<Buffer> =>
  invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: `$${n}.00`, vendor: `Vendor ${n}` });

describe('not signed in', () => {
  it('says so, keeps the store browsable, and explains what needs the service', async () => {
    env = await coreEnv();
    const info = await env.call('app.info', {});
    expect(info.account).toBeNull();
    expect(info.connection).toEqual({ kind: 'none' });
    expect(await env.call('files.page', { offset: 0, limit: 10 })).toEqual({ total: 0, offset: 0, rows: [] });
    expect(await env.call('search', { query: 'anything' })).toEqual([]);
    await expect(env.call('folders.add', { settings: { path: env.root, deployment: 'sandbox-invoices' } })).rejects.toThrow(/^sign in \(or try the sandbox\) first: watching a folder needs the service$/);
    await expect(env.core.call('files.page', { offset: 'x', limit: 1 })).rejects.toThrow(/^files\.page\.offset must be a whole number/);
    await expect(env.core.call('files.nope', {})).rejects.toThrow(/^unknown request "files\.nope"$/);
  });
});

describe('connection', () => {
  it('tests a URL and token, signs in for the session only, and signs out', async () => {
    const sb = await sandbox();
    try {
      env = await coreEnv();
      expect(await env.call('connection.test', { url: sb.url, token: 'wrong-token' }))
        .toMatchObject({ ok: false, message: `${sb.url}: The service did not accept the sign-in (the token may be wrong or expired): sign in again` });
      expect(await env.call('connection.test', { url: 'http://127.0.0.1:1', token: 't' })).toMatchObject({ ok: false, message: expect.stringMatching(/127\.0\.0\.1:1/) });
      expect(await env.call('connection.test', { url: `${sb.url}/`, token: 'member-token' })).toMatchObject({ ok: true, message: `${sb.url} answered and accepted the token` });
      await expect(env.call('connection.signIn', { url: sb.url, token: 'wrong-token', sessionOnly: true })).rejects.toThrow(/did not accept the sign-in/);
      await expect(env.call('connection.signIn', { url: 'ftp://x', token: 't' })).rejects.toThrow(/must be an http or https URL/);

      const states: string[] = [];
      env.core.events.on('connection', (s) => states.push(s.kind));
      const info = await env.call('connection.signIn', { url: sb.url, token: 'member-token', sessionOnly: true });
      expect(info.account).toEqual({
        url: sb.url, context: null, namespace: null, tokenSource: 'memory', signedInAs: new URL(sb.url).host, ownCa: false,
        // No proxy asked for: the environment's, which has none here.
        proxy: { mode: 'environment' }, proxyInUse: null, proxyCredentials: false,
      });
      await waitUntil(() => env!.core.connection.kind === 'online', 'online');
      expect(states).toEqual(['connecting', 'online']);
      // Nothing the UI receives carries the token.
      expect(JSON.stringify(await env.call('app.info', {}))).not.toContain('member-token');
      // Testing again without typing the token uses the signed-in one, inside this process.
      expect((await env.call('connection.test', { url: sb.url })).ok).toBe(true);

      const out = await env.call('connection.signOut', {});
      expect(out.account).toBeNull();
      expect(out.connection).toEqual({ kind: 'none' });
      expect(await env.core.memoryTokens.get(sb.url, 'default')).toBeNull();
    } finally {
      await sb.close();
    }
  });

  it('a refused token shows as "refused", not offline', async () => {
    const sb = await sandbox();
    try {
      env = await coreEnv();
      await env.call('connection.signIn', { url: sb.url, token: 'member-token', sessionOnly: true });
      await waitUntil(() => env!.core.connection.kind === 'online', 'online');
      // The same session, after the service stops accepting the token: opened directly, as a
      // saved connection whose token was revoked would be.
      await env.core.openSession({ url: sb.url, token: 'revoked-token', context: undefined, source: 'memory' }, 'memory');
      await waitUntil(() => env!.core.connection.kind === 'refused', 'refused');
      expect(env.core.connection).toMatchObject({ kind: 'refused', reason: 'the service did not accept the sign-in (the token may be wrong or expired): sign in again with a new token' });
    } finally {
      await sb.close();
    }
  });

  it('the service gone: why, and what DocSync will do, in the words of a person (no call names), the detail kept; back, the file goes up', async () => {
    let sb = await sandbox();
    const port = Number(new URL(sb.url).port);
    try {
      env = await coreEnv();
      const e = env;
      await e.call('connection.signIn', { url: sb.url, token: 'member-token', sessionOnly: true });
      await waitUntil(() => e.core.connection.kind === 'online', 'online');
      const notices: Notice[] = [];
      e.core.events.on('notice', (n) => notices.push(n));
      await sb.close();
      await waitUntil(() => e.core.connection.kind === 'offline', 'offline');
      expect(e.core.connection).toMatchObject({ kind: 'offline', reason: 'nothing answers at its address' });

      const file = join(e.root, 'while-offline.pdf');
      await writeFile(file, await invoice(7));
      await e.call('upload.paths', { paths: [file], target: { type: 'deployment', id: 'sandbox-invoices' } });
      await waitUntil(() => notices.some((n) => n.topic === 'service'), 'the retry notice');
      const retry = notices.find((n) => n.topic === 'service');
      expect(retry).toMatchObject({ level: 'warn', msg: expect.stringMatching(/^The service cannot be reached: nothing answers at its address\. DocSync will try again to upload 1 file in \d+ s\.$/) });
      // The technical words are not thrown away: they are the notice's detail.
      expect(retry?.detail).toMatch(/^batch \d+: \w+ failed \(network.*ECONNREFUSED/);
      expect(notices.map((n) => n.msg).join('\n')).not.toMatch(/ECONNREFUSED|failed \((http|network)|listBatches|createBatch|\bbatch \d/);

      sb = await sandbox({ port });
      await waitUntil(async () => (await e.call('status.get', {})).counts.done === 1, 'the file went up once the service was back', 30_000);
    } finally {
      await sb.close();
    }
  });

  it('a file waiting in a batch still open for more files says when the batch closes; then it goes up', async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    await waitUntil(() => e.core.connection.kind === 'online', 'online');
    const inbox = join(e.root, 'slow-inbox');
    await mkdir(inbox);
    await e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, batching: { ...FAST_FOLDER.batching, minQuietMs: 4000, quietMs: 4000 } } });
    await writeFile(join(inbox, 'inv-9.pdf'), await invoice(9));
    const queued = async () => (await e.call('files.page', { offset: 0, limit: 10 })).rows[0];
    await waitUntil(async () => (await queued())?.state === 'queued', 'the file is queued');
    const row = await queued();
    expect(row).toMatchObject({ batchId: null, reviewWaiting: false });
    // Within the quiet period from now: the UI counts it down ("waiting for more files (4 s)").
    expect(row?.batchClosesMs).toBeGreaterThan(Date.now());
    expect(row?.batchClosesMs).toBeLessThanOrEqual(Date.now() + 4000);
    await waitUntil(async () => (await queued())?.state === 'done', 'the batch closed and the file went through');
    expect((await queued())?.batchClosesMs).toBeNull();
  });

  it('a run that fails (review rejected) says so and what to do, once its file is marked failed; the service\'s reason kept', async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    await waitUntil(() => e.core.connection.kind === 'online', 'online');
    const notices: Notice[] = [];
    e.core.events.on('notice', (n) => notices.push(n));
    const file = join(e.root, 'unreadable-total.pdf');
    await writeFile(file, await invoicePdf({ invoiceNumber: 'INV-8', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: 'TBD', vendor: 'Vendor 8' }));
    const [queued] = await e.call('upload.paths', { paths: [file], target: { type: 'deployment', id: 'sandbox-invoices-review' } });
    const runOf = async () => (await e.call('runs.page', { offset: 0, limit: 5 })).rows[0];
    await waitUntil(async () => (await runOf())?.reviewWaiting === true, 'the run waits for review');
    const run = (await runOf())!;
    const reviewed = await caller(e.sandboxes[0]!.url, e.sandboxes[0]!.token)('POST', `/sandbox/runs/${run.serviceRunId}/review`, { action: 'reject', reason: 'total unreadable' });
    expect(reviewed.status).toBe(200);
    await waitUntil(() => notices.some((n) => n.level === 'error'), 'the failure notice');
    expect(notices.filter((n) => n.level === 'error')).toEqual([expect.objectContaining({
      msg: expect.stringMatching(new RegExp(`^Run of [A-Z][a-z]{2} \\d+, \\d+:\\d\\d\\s?[AP]M on sandbox-invoices-review failed: .+\\. Its file is marked failed; retry it from Activity\\.$`)),
      topic: `files:${queued!.id}`, detail: expect.any(String),
    })]);
  });

  it('with no keychain, signing in says so plainly and offers a session-only token; nothing is saved', async () => {
    const before = process.env.DBUS_SESSION_BUS_ADDRESS;
    // A real keytar talking to a D-Bus address where nothing listens: what a desktop-less host has.
    process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/docsync-test-bus';
    const sb = await sandbox();
    try {
      env = await coreEnv({ credentials: new KeytarStore() });
      await expect(env.call('connection.signIn', { url: sb.url, token: 'member-token' })).rejects.toThrow(/no keychain available .*Choose "session only"/);
      expect((await env.call('app.info', {})).keychainProblem).toMatch(/no keychain available/);
      expect(await readdir(env.home)).not.toContain('connection.json');
      const info = await env.call('connection.signIn', { url: sb.url, token: 'member-token', sessionOnly: true });
      expect(info.account?.tokenSource).toBe('memory');
    } finally {
      if (before === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = before;
      await sb.close();
    }
  });
});

describe('an installation without keytar (set up where libsecret was missing)', () => {
  it('the sign-in form knows before anyone signs in, refuses the keychain plainly and takes a session-only token', async () => {
    const sb = await sandbox();
    try {
      // A module name that is not installed: the same failed import as a set-up that skipped keytar.
      env = await coreEnv({ credentials: new KeytarStore('docsync-test-keytar-not-installed') });
      expect((await env.call('app.info', {})).keychainProblem).toMatch(/^this installation has no keychain support/);
      await expect(env.call('connection.signIn', { url: sb.url, token: 'member-token' })).rejects.toThrow(/no keychain support.*Choose "session only"/);
      expect(await readdir(env.home)).not.toContain('connection.json');
      const info = await env.call('connection.signIn', { url: sb.url, token: 'member-token', sessionOnly: true });
      expect(info.account?.tokenSource).toBe('memory');
    } finally {
      await sb.close();
    }
  });
});

describe('the sandbox in one click, a hot folder, results offline', () => {
  it('drop -> queue -> run -> results with boxes and page layouts -> search -> export -> offline browsing', async () => {
    env = await coreEnv();
    const e = env;
    const info = await e.call('connection.trySandbox', {});
    expect(info.account?.tokenSource).toBe('sandbox');
    expect(info.knownTargets).toContainEqual({ type: 'deployment', id: 'sandbox-invoices' });
    await waitUntil(() => e.core.connection.kind === 'online', 'online');

    const inbox = join(e.root, 'inbox');
    await mkdir(inbox);
    const folderEvents: number[] = [];
    e.core.events.on('folders', (list) => folderEvents.push(list.length));
    const folder = await e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER } });
    expect(folder).toMatchObject({ path: inbox, enabled: true, problem: null, lastActivityMs: null });
    expect(folderEvents).toEqual([1]);
    await expect(e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices' } })).rejects.toThrow(/already a hot folder/);
    await expect(e.call('folders.add', { settings: { path: join(e.root, 'missing'), deployment: 'x', stabilityMs: -1 } })).rejects.toThrow(/stabilityMs must be between/);

    const seen: FileView[] = [];
    const firstFileAt: number[] = [];
    const statuses: { at: number; counts: Record<string, number> }[] = [];
    e.core.events.on('file', (f) => {
      seen.push(f);
      if (firstFileAt.length === 0) firstFileAt.push(performance.now());
    });
    e.core.events.on('status', (st) => statuses.push({ at: performance.now(), counts: st.counts }));
    const notices: Notice[] = [];
    e.core.events.on('notice', (n) => notices.push(n));
    await writeFile(join(inbox, 'inv-1.pdf'), await invoice(1));
    await writeFile(join(inbox, 'bad.pdf'), await corruptPdf());
    await waitUntil(async () => (await e.call('status.get', {})).counts.done === 1 && (await e.call('status.get', {})).counts.failed === 1, 'one done, one failed');
    expect(seen.map((f) => f.state)).toEqual(expect.arrayContaining(['stable', 'queued', 'uploading', 'uploaded', 'running', 'done', 'failed']));
    // Status events: the first change shows at once, the last one pushed carries the final counts.
    expect(statuses[0]!.at - firstFileAt[0]!).toBeLessThan(100);
    await new Promise((r) => setTimeout(r, 400));
    expect(statuses.at(-1)!.counts).toEqual((await e.call('status.get', {})).counts);

    const page = await e.call('files.page', { offset: 0, limit: 10 });
    expect(page.total).toBe(2);
    const good = page.rows.find((r) => r.name === 'inv-1.pdf') as FileView;
    const bad = page.rows.find((r) => r.name === 'bad.pdf') as FileView;
    expect(good).toMatchObject({ state: 'done', folderId: folder.id, error: null });
    expect(good.runId).not.toBeNull();
    // A failed file's reason: one sentence first (the row), the service's words per field behind it.
    expect(bad.error).toMatch(/^The service could not read this file: a damaged PDF \((\d+) of \1 fields failed\)\ninvoice_number: /);
    // Partial failure is not success: the run that had the bad file says so, in a notice that stays
    // (an error) until the file is done, and in its counts.
    const badRun = (await e.call('runs.page', { offset: 0, limit: 10 })).rows.find((r) => r.id === bad.runId);
    expect(badRun).toMatchObject({ status: 'COMPLETE', failed: 1, done: badRun?.files === 2 ? 1 : 0 });
    await waitUntil(() => notices.some((n) => n.topic === `files:${bad.id}`), 'the notice of the run with the failed file');
    expect(notices.find((n) => n.topic === `files:${bad.id}`)).toMatchObject({
      level: 'error', msg: expect.stringMatching(new RegExp(`^Run of [A-Z][a-z]{2} \\d+, \\d+:\\d\\d\\s?[AP]M on sandbox-invoices: ${badRun?.files === 2 ? '1 of 2 done' : '0 of 1 done'}, 1 failed\\. Activity shows why`)),
    });
    expect(notices.map((n) => n.msg).join('\n')).not.toMatch(/completed: /);
    expect((await e.call('files.page', { offset: 0, limit: 10, states: ['failed'] })).rows.map((r) => r.name)).toEqual(['bad.pdf']);
    expect((await e.call('files.page', { offset: 0, limit: 10, name: 'INV-' })).rows.map((r) => r.name)).toEqual(['inv-1.pdf']);
    expect((await e.call('files.page', { offset: 0, limit: 10, name: '%' })).total).toBe(0);
    expect((await e.call('files.history', { id: good.id })).map((h) => h.to)).toEqual(['discovered', 'stable', 'queued', 'uploading', 'uploaded', 'running', 'done']);

    const folders = await e.call('folders.list', {});
    expect(folders[0]?.counts).toMatchObject({ done: 1, failed: 1 });
    expect(folders[0]?.lastActivityMs).toBeGreaterThan(0);

    const runs = await e.call('runs.page', { offset: 0, limit: 10 });
    expect(runs.total).toBeGreaterThanOrEqual(1);
    const run = runs.rows.find((r) => r.id === good.runId);
    expect(run).toMatchObject({ status: 'COMPLETE', deploymentId: 'sandbox-invoices', folderId: folder.id, resultsStored: true });

    const results = await e.call('results.run', { runId: good.runId as number });
    const rf = results.files.find((f) => f.name === 'inv-1.pdf');
    expect(rf).toMatchObject({ originalType: 'application/pdf', originalAvailable: true, fileId: good.id });
    const doc = rf?.documents[0];
    expect(doc?.pageLayouts[0]).toMatchObject({ page: 0, width: expect.any(Number), height: expect.any(Number) });
    const num = doc?.fields.find((f) => f.name === 'invoice_number');
    expect(num?.value).toBe('INV-1');
    expect(num?.boxes[0]).toMatchObject({ page: 0 });
    const box = num?.boxes[0];
    expect(box && box.right > box.left && box.bottom > box.top && box.right <= (doc?.pageLayouts[0]?.width ?? 0)).toBe(true);
    expect((await e.call('results.file', { fileId: good.id }))[0]?.documents[0]?.fields.length).toBe(doc?.fields.length);
    const tree = await e.call('results.tree', {});
    expect(tree).toEqual([{ folderId: folder.id, path: inbox, runs: [expect.objectContaining({ id: good.runId })] }]);

    const hits = await e.call('search', { query: 'INV-1' });
    expect(hits.some((h) => h.fieldName === 'invoice_number' && h.snippet.includes('\u0001'))).toBe(true);
    const csv = await e.call('export.run', { runId: good.runId as number, format: 'csv' });
    expect(csv).toMatchObject({ name: `${run?.serviceRunId}.csv`, mime: 'text/csv' });
    expect(csv.text).toContain(',invoice_number,INV-1,');
    const json = await e.call('export.run', { runId: good.runId as number, format: 'json' });
    const exported = JSON.parse(json.text) as { files: { file: string }[]; case_fields: { name: string }[] };
    expect(exported.files.map((x) => x.file).sort()).toEqual(['bad.pdf', 'inv-1.pdf']);
    expect(exported.case_fields.map((c) => c.name)).toContain('invoice_count');
    // Issue 12: the wide CSV, and the runs a folder and a date range select.
    const wide = await e.call('export.run', { runId: good.runId as number, format: 'csv-wide' });
    expect(wide).toMatchObject({ name: `${run?.serviceRunId} (one row per document).csv`, mime: 'text/csv' });
    expect(wide.text.split('\r\n')[0]).toMatch(/^file,document,class,pages,.*invoice_number.*,case: invoice_count/);
    const several = await e.call('export.selection', { folderId: folder.id, sinceMs: Date.now() - 3_600_000, format: 'csv-wide' });
    expect(several.text.split('\r\n').filter(Boolean).slice(1).every((l) => l.startsWith(`${run?.serviceRunId},`))).toBe(true);
    expect(several.text).toContain(',inv-1.pdf,');
    await expect(e.call('export.selection', { folderId: 0, format: 'csv' })).rejects.toThrow('No stored results match: choose another folder or dates');
    await expect(e.call('export.selection', { sinceMs: Date.now() + 3_600_000, format: 'json' })).rejects.toThrow(/No stored results match/);
    const original = await e.call('files.content', { which: 'original', fileId: good.id });
    expect(original.mime).toBe('application/pdf');
    expect(Buffer.from(original.bytes).subarray(0, 5).toString()).toBe('%PDF-');
    expect(await e.call('files.reveal', { id: good.id })).toEqual({ path: join(inbox, 'inv-1.pdf'), revealed: false });
    await expect(e.call('files.content', { which: 'processed', documentId: doc?.id as number })).rejects.toThrow(/processed PDF of this document has not been downloaded yet/);

    // The service goes away: offline, and everything stored stays browsable and searchable.
    for (const sb of e.sandboxes) await sb.close();
    await waitUntil(() => e.core.connection.kind === 'offline', 'offline');
    expect((await e.call('results.run', { runId: good.runId as number })).files.length).toBe(results.files.length);
    expect((await e.call('search', { query: 'INV-1' })).length).toBe(hits.length);
    expect((await e.call('files.page', { offset: 0, limit: 10 })).total).toBe(2);
  });

  it('drag and drop in a browser: staged bytes become one upload; bad relative paths are refused', async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    const dropId = 'a1b2c3d4e5f60718';
    const target = { type: 'deployment', id: 'sandbox-invoices' } as const;
    await expect(e.call('upload.stage', { dropId, relPath: '../escape.pdf', bytes: new Uint8Array([1]) })).rejects.toThrow(/not a file name inside the dropped folder/);
    await expect(e.call('upload.stage', { dropId: 'XYZ-not-hex', relPath: 'a.pdf', bytes: new Uint8Array([1]) })).rejects.toThrow(/lower-case hex/);
    await expect(e.call('upload.staged', { dropId: 'ffffffffffff', target })).rejects.toThrow(/nothing was staged/);
    expect(await e.call('upload.stage', { dropId, relPath: 'scans/inv-2.pdf', bytes: new Uint8Array(await invoice(2)) })).toEqual({ staged: expect.any(Number) });
    await e.call('upload.stage', { dropId, relPath: 'inv-3.pdf', bytes: new Uint8Array(await invoice(3)) });
    const files = await e.call('upload.staged', { dropId, target });
    expect(files.map((f) => f.name).sort()).toEqual(['inv-2.pdf', 'inv-3.pdf']);
    expect(new Set(files.map((f) => f.batchId)).size).toBe(1);
    await waitUntil(async () => (await e.call('status.get', {})).counts.done === 2, 'both done');
    expect((await e.call('search', { query: 'INV-3' })).length).toBeGreaterThan(0);
    // A drop stopped halfway is discarded; nothing of it stays.
    await e.call('upload.stage', { dropId: 'dddddddddddd', relPath: 'half.pdf', bytes: new Uint8Array([1, 2]) });
    expect(await e.call('upload.discard', { dropId: 'dddddddddddd' })).toEqual({ discarded: true });
    await expect(e.call('upload.staged', { dropId: 'dddddddddddd', target })).rejects.toThrow(/nothing was staged/);
    // Issue 26: once their results are stored, the staged copies are deleted, and so is the drop's folder.
    await waitUntil(async () => !(await readdir(join(e.home, 'dropped')).catch((): string[] => [])).includes(dropId), 'the staged copies deleted');
    // The viewer shows the original from the service's copy of the upload; offline it says why it cannot.
    const two = files.find((f) => f.name === 'inv-2.pdf') as FileView;
    expect(await e.call('files.content', { which: 'original', fileId: two.id })).toEqual({ name: 'inv-2.pdf', mime: 'application/pdf', bytes: new Uint8Array(await invoice(2)) });
    // Not opened by the system (the copy is gone): the page then shows it from files.content, as above.
    expect(await e.call('files.openExternal', { which: 'original', fileId: two.id })).toMatchObject({ opened: false });
    for (const sb of e.sandboxes) await sb.close();
    await waitUntil(() => e.core.connection.kind === 'offline', 'offline');
    await expect(e.call('files.content', { which: 'original', fileId: two.id })).rejects.toThrow(/does not keep a copy of a file dropped in the browser once its results are stored, and the service did not give it back: /);
    expect((await e.call('search', { query: 'INV-2' })).length).toBeGreaterThan(0);
  });

  it('a dropped file that failed keeps its staged copy, so that it can be retried', async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    const dropId = 'b1b2c3d4e5f60718';
    await e.call('upload.stage', { dropId, relPath: 'broken.pdf', bytes: new Uint8Array(await corruptPdf()) });
    await e.call('upload.staged', { dropId, target: { type: 'deployment', id: 'sandbox-invoices' } });
    await waitUntil(async () => (await e.call('status.get', {})).counts.failed === 1, 'failed');
    expect(await readFile(join(e.home, 'dropped', dropId, 'broken.pdf'))).toEqual(await corruptPdf());
  });

  it('retry of a failed file goes through the engine; cancel refuses a file that is not waiting', async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    const inbox = join(e.root, 'inbox');
    await mkdir(inbox);
    await e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER } });
    await writeFile(join(inbox, 'broken.pdf'), await corruptPdf());
    await waitUntil(async () => (await e.call('status.get', {})).counts.failed === 1, 'failed');
    const [failed] = (await e.call('files.page', { offset: 0, limit: 1, states: ['failed'] })).rows;
    await expect(e.call('files.cancel', { id: failed!.id })).rejects.toThrow(/only a file waiting for upload can be cancelled/);
    // The person fixes the file, then retries it.
    await writeFile(join(inbox, 'broken.pdf'), await invoice(9));
    const again = await e.call('files.retry', { id: failed!.id });
    expect(again.state).toBe('queued');
    await waitUntil(async () => (await e.call('status.get', {})).counts.done === 1, 'retried file done');
    await expect(e.call('files.retry', { id: 999999 })).rejects.toThrow(/no file with id 999999/);
  });

  it('folders: update restarts the watcher with the new settings; a path change is refused; remove', async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    const inbox = join(e.root, 'inbox');
    await mkdir(inbox);
    const f = await e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, include: ['*.txt'] } });
    const updated = await e.call('folders.update', { id: f.id, settings: { ...f.settings, include: ['*.pdf'] } });
    expect(updated.settings.include).toEqual(['*.pdf']);
    await writeFile(join(inbox, 'inv-4.pdf'), await invoice(4));
    await waitUntil(async () => (await e.call('status.get', {})).counts.done === 1, 'pdf taken after the update');
    await expect(e.call('folders.update', { id: f.id, settings: { ...f.settings, path: join(e.root, 'elsewhere') } })).rejects.toThrow(/path cannot change/);
    // Stop watching: a new file is left alone; watching again takes it (the rescan on start finds it).
    const off = await e.call('folders.setEnabled', { id: f.id, enabled: false });
    expect(off.enabled).toBe(false);
    await writeFile(join(inbox, 'inv-5.pdf'), await invoice(5));
    await new Promise((r) => setTimeout(r, 1500));
    expect((await e.call('files.page', { offset: 0, limit: 10, name: 'inv-5' })).total).toBe(0);
    expect((await e.call('folders.setEnabled', { id: f.id, enabled: true })).enabled).toBe(true);
    await waitUntil(async () => (await e.call('status.get', {})).counts.done === 2, 'inv-5 taken once watched again');
    await expect(e.call('folders.setEnabled', { id: 9999, enabled: true })).rejects.toThrow(/no hot folder with id 9999/);
    expect(await e.call('folders.remove', { id: f.id })).toEqual({ removed: true });
    expect(await e.call('folders.list', {})).toEqual([]);
    await expect(e.call('folders.remove', { id: f.id })).rejects.toThrow(/no hot folder/);
  });
});
