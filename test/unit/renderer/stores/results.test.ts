// The results store (renderer/src/lib/state/results.svelte.ts) on the real engine side: a hot folder
// on the sandbox, two invoice PDFs, and what reaches the store: the tree by `run` events, a run, file,
// document and field opened the ways other screens open them, search as you type (one search per
// pause, stale answers dropped), CSV/JSON export, the original in the in-app viewer, a loaded run
// refreshed when its review is approved, and browsing and searching with the service gone.
import { resolveObjectURL } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bridge } from '../../../../renderer/src/lib/bridge.js';
import { nav } from '../../../../renderer/src/lib/state/nav.svelte.js';
import { fileKey, folderKey, results, runKey } from '../../../../renderer/src/lib/state/results.svelte.js';
import type { FolderView } from '../../../../shared/ui/views.js';
import { FAST_FOLDER } from '../../../helpers/engine.js';
import { waitUntil } from '../../../helpers/wait.js';
import { listeners, storeEnv, writeInvoice, type StoreEnv } from './store-env.js';

/**
 * Export saves through lib/download.ts: a Blob URL on an <a download> that is clicked. Node has Blob
 * and URL.createObjectURL but no DOM, so `document` is the one stand-in here: it hands the clicked
 * link to the test, which reads the Blob back by its URL (what the browser would save).
 */
const saved: { name: string; href: string }[] = [];
const documentStandIn = {
  createElement: () => {
    const a = { href: '', download: '', rel: '', style: {}, click: () => saved.push({ name: a.download, href: a.href }), remove: () => undefined };
    return a;
  },
  body: { append: () => undefined },
};
const savedText = async (i: number): Promise<string> => (await resolveObjectURL(saved[i]?.href as string)?.text()) ?? '';

let env: StoreEnv;
let stop: (() => void) | undefined;
let inbox: string;
let folder: FolderView;
let fileIds: Record<string, number> = {};
beforeAll(async () => {
  vi.stubGlobal('document', documentStandIn);
  env = await storeEnv();
  await bridge.call('connection.trySandbox', {});
  inbox = await env.dir('inbox');
  folder = await bridge.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER } });
});
afterAll(async () => {
  stop?.();
  vi.unstubAllGlobals();
  await env?.close();
});

describe('results store', { timeout: 60_000 }, () => {
  it('opened before any results: the tree fills in by `run` events and opens the first folder', async () => {
    stop = results.start();
    await waitUntil(() => results.treeLoaded, 'the first tree');
    expect(results.tree).toEqual([]);
    await writeInvoice(inbox, 71);
    await writeInvoice(inbox, 72);
    await waitUntil(() => results.tree[0]?.runs.reduce((n, r) => n + r.files, 0) === 2, 'both files in the tree', 30_000);
    expect(results.tree).toHaveLength(1);
    expect(results.tree[0]).toMatchObject({ folderId: folder.id, path: inbox });
    expect(results.treeError).toBeNull();
    expect(results.expanded.has(folderKey(folder.id))).toBe(true);
    const page = await bridge.call('files.page', { offset: 0, limit: 10 });
    fileIds = Object.fromEntries(page.rows.map((f) => [f.name, f.id]));
  });

  it('opens a file as Activity does (once per target), then a field, a file and a document by hand', async () => {
    const target = { fileId: fileIds['inv-71.pdf'] as number };
    const asked = env.count('results.file');
    nav.openResults(target);
    results.consume(nav.results);
    results.consume(nav.results); // back on the screen: the same target is not opened again
    await waitUntil(() => results.file !== null, 'the file is open');
    expect(env.count('results.file')).toBe(asked + 1);
    expect(results.file?.name).toBe('inv-71.pdf');
    expect(results.document?.id).toBe(results.file?.documents[0]?.id);
    expect(results.field).toBeNull();
    expect(results.actionError).toBeNull();
    const runId = results.runId as number;
    expect(results.run?.run.id).toBe(runId);
    expect(results.expanded.has(runKey(runId))).toBe(true);
    const num = results.document?.fields.find((f) => f.name === 'invoice_number');
    expect(num).toMatchObject({ value: 'INV-71', isError: false });
    expect(num?.boxes[0]).toMatchObject({ page: 0 });

    results.selectField(num?.id as number);
    expect(results.field?.value).toBe('INV-71');
    const other = results.run?.files.find((f) => f.name === 'inv-72.pdf');
    results.select(runId, other!);
    expect([results.file?.name, results.document?.id, results.field]).toEqual(['inv-72.pdf', other?.documents[0]?.id, null]);

    // A target naming a document and field (what a search hit or a deep link gives).
    const doc = results.run?.files.find((f) => f.name === 'inv-71.pdf')?.documents[0];
    const total = doc?.fields.find((f) => f.name === 'total_amount');
    await results.open({ runId, documentId: doc?.id as number, fieldId: total?.id as number });
    expect([results.file?.name, results.field?.name]).toEqual(['inv-71.pdf', 'total_amount']);
    expect(results.file?.documents.length === 1 || results.expanded.has(fileKey(results.fileId as number))).toBe(true);

    results.toggle(runKey(runId));
    expect(results.expanded.has(runKey(runId))).toBe(false);
    results.toggle(runKey(runId), true);
    expect(results.expanded.has(runKey(runId))).toBe(true);
  });

  it('search as you type: one search after the typing pauses, hits for the last query, a hit opens its field', async () => {
    const searches = env.count('search');
    for (const q of ['I', 'IN', 'INV', 'INV-7', 'INV-72']) results.setQuery(q);
    expect(results.searching).toBe(true);
    expect(env.count('search')).toBe(searches);
    await waitUntil(() => !results.searching, 'the search');
    expect(env.count('search')).toBe(searches + 1);
    expect(results.searchedFor).toBe('INV-72');
    expect(results.searchError).toBeNull();
    const hit = results.hits.find((h) => h.fieldName === 'invoice_number');
    expect(hit).toMatchObject({ fileName: 'inv-72.pdf', snippet: expect.stringContaining('\u0001') });
    await results.openHit(hit!);
    expect([results.file?.name, results.field?.name, results.field?.value]).toEqual(['inv-72.pdf', 'invoice_number', 'INV-72']);

    results.setQuery('zzzqqq');
    await waitUntil(() => !results.searching, 'a search without hits');
    expect([results.hits, results.searchedFor]).toEqual([[], 'zzzqqq']);
    results.setQuery('   ');
    expect([results.hits, results.searchedFor, results.searching]).toEqual([[], '', false]);
  });

  it("an answer for an older query never replaces a newer one's; a cleared box stays clear", async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((r) => (release = r));
    env.beforeCall = (c) => (c.channel === 'search' && (c.args as { query: string }).query === 'INV-71' ? held : undefined);
    try {
      const searches = env.count('search');
      results.setQuery('INV-71');
      await waitUntil(() => env.count('search') === searches + 1, 'the first search is sent');
      results.setQuery('INV-72');
      await waitUntil(() => !results.searching, 'the second search answers');
      expect(results.searchedFor).toBe('INV-72');
      release();
      await new Promise((r) => setTimeout(r, 50));
      expect(results.searchedFor).toBe('INV-72');
      expect(results.hits.every((h) => h.fileName === 'inv-72.pdf')).toBe(true);

      // Held again, and the box is cleared while the search is on its way.
      let releaseAgain = (): void => undefined;
      const heldAgain = new Promise<void>((r) => (releaseAgain = r));
      env.beforeCall = (c) => (c.channel === 'search' ? heldAgain : undefined);
      results.setQuery('INV-71');
      await waitUntil(() => env.count('search') === searches + 3, 'the search is sent');
      results.setQuery('');
      releaseAgain();
      await new Promise((r) => setTimeout(r, 50));
      expect([results.hits, results.searchedFor, results.searching]).toEqual([[], '', false]);
    } finally {
      env.beforeCall = null;
    }
    // The engine's argument check, shown as the search error.
    results.setQuery('x'.repeat(501));
    await waitUntil(() => !results.searching, 'the refused search');
    expect(results.searchError).toMatch(/^search\.query must be .*at most 500 characters/);
    results.setQuery('');
    expect(results.searchError).toBeNull();
  });

  it('exports the open run as CSV and JSON, saved through a download link', async () => {
    const serviceRunId = results.run?.run.serviceRunId;
    await results.exportRun('csv');
    await results.exportRun('json');
    expect([results.busy, results.actionError]).toEqual([null, null]);
    expect(saved.map((s) => s.name)).toEqual([`${serviceRunId}.csv`, `${serviceRunId}.json`]);
    expect(await savedText(0)).toContain(',invoice_number,INV-71,');
    const json = JSON.parse(await savedText(1)) as { files: { file: string }[]; case_fields: unknown[] };
    expect(json.case_fields.length).toBeGreaterThan(0);
    expect(json.files.map((x) => x.file).sort()).toEqual(['inv-71.pdf', 'inv-72.pdf']);
  });

  it("shows the original in the in-app viewer (no host app to open it); a missing processed PDF is the engine's message", async () => {
    const fileId = fileIds['inv-71.pdf'] as number;
    await results.openFile('original', { fileId }, 'inv-71.pdf');
    expect(results.actionError).toBeNull();
    expect(results.viewer).toMatchObject({ title: 'inv-71.pdf', name: 'inv-71.pdf', mime: 'application/pdf' });
    expect(Buffer.from(results.viewer?.bytes as Uint8Array).equals(await readFile(join(inbox, 'inv-71.pdf')))).toBe(true);
    results.closeViewer();
    expect(results.viewer).toBeNull();
    expect(Buffer.from((await results.original(fileId)).bytes).subarray(0, 5).toString()).toBe('%PDF-');
    const documentId = results.document?.id as number;
    await results.openFile('processed', { documentId }, 'processed');
    expect(results.actionError).toBe("The processed PDF of this document has not been downloaded yet. It is fetched with the run's results; try again in a moment.");
    expect(results.busy).toBeNull();
  });

  it("a run that is not in the store: the run's error, and export says why", async () => {
    await results.open({ runId: 99_999 });
    expect(results.run).toBeNull();
    expect(results.runErrors.get(99_999)).toBe('no run with id 99999 in the local store');
    await results.exportRun('csv');
    expect(results.actionError).toBe('no run with id 99999 in the local store');
  });

  it('a run opened while it waits for review: no results yet, then its approval refreshes it in place', async () => {
    const dir = await env.dir('by-hand');
    const [queued] = await bridge.call('upload.paths', { paths: [await writeInvoice(dir, 9, 'TBD')], target: { type: 'deployment', id: 'sandbox-invoices-review' } });
    let runId: number | null = null;
    await waitUntil(async () => {
      const row = (await bridge.call('runs.page', { offset: 0, limit: 5 })).rows.find((r) => r.reviewWaiting);
      runId = row?.id ?? null;
      return runId !== null;
    }, 'the run waits for review', 30_000);
    // The queue's row counts its wait from when the run was first seen waiting, not from the run's start.
    const waiting = async () => (await bridge.call('files.page', { offset: 0, limit: 50 })).rows.find((f) => f.id === queued!.id);
    await waitUntil(async () => (await waiting())?.reviewWaiting === true, 'the file waits for review');
    const row = (await waiting())!;
    expect(row.state).toBe('running');
    expect(row.reviewSinceMs).not.toBeNull();
    expect(row.reviewSinceMs!).toBeGreaterThanOrEqual(row.updatedMs);
    expect(row.reviewSinceMs!).toBeLessThanOrEqual(Date.now());
    await results.open({ fileId: queued!.id });
    expect(results.actionError).toBe('That file has no results yet.');
    // Opened from the Runs screen.
    await results.open({ runId: runId! });
    expect(results.run?.run).toMatchObject({ status: 'STOPPED_AT_CHECKPOINT', reviewWaiting: true });
    expect(results.run?.files).toEqual([]);
    const loads = env.count('results.run');

    await env.approve(results.run!.run.serviceRunId);
    await waitUntil(() => results.run?.run.resultsStored === true && results.run.files.length === 1, 'the approved run with its results', 30_000);
    expect(env.count('results.run')).toBeGreaterThan(loads);
    expect(results.runId).toBe(runId);
    const total = results.run?.files[0]?.documents[0]?.fields.find((f) => f.name === 'total_amount');
    expect(total).toMatchObject({ value: 'TBD', valid: false });
    await waitUntil(async () => (await waiting())?.state === 'done', 'the approved file is done');
    expect(await waiting()).toMatchObject({ reviewWaiting: false, reviewSinceMs: null });
    // Dropped in by hand: the tree shows it under no folder.
    await waitUntil(() => results.tree.some((f) => f.folderId === null && f.runs.some((r) => r.id === runId)), 'the tree has the run');
  });

  it('with the service gone, the tree, a run and search still load from the local store', async () => {
    for (const sb of env.sandboxes) await sb.close();
    await waitUntil(() => env.core.connection.kind === 'offline', 'offline');
    await results.loadTree();
    expect(results.treeError).toBeNull();
    expect(results.tree.map((f) => f.folderId).sort()).toEqual([folder.id, null].sort());
    const runId = results.tree.find((f) => f.folderId === folder.id)?.runs[0]?.id as number;
    expect((await results.loadRun(runId, true))?.files).toHaveLength(2);
    results.setQuery('INV-71');
    await waitUntil(() => !results.searching, 'the offline search');
    expect(results.hits.some((h) => h.fileName === 'inv-71.pdf')).toBe(true);
  });

  it('stop unsubscribes', () => {
    const before = listeners(env, 'run');
    stop?.();
    stop = undefined;
    expect(listeners(env, 'run')).toBe(before - 1);
  });
});
