// The drop store (renderer/src/lib/state/drop.svelte.ts) on the real engine side: a browser drop
// (File objects, Node's own) staged file by file through upload.stage and queued by upload.staged, with
// its progress; stopped by the person or failing halfway, what was staged is deleted (upload.discard);
// an Electron drop (local paths) goes through upload.paths; the last target is remembered.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bridge } from '../../../../renderer/src/lib/bridge.js';
import type { Drop } from '../../../../renderer/src/lib/drop.js';
import { app } from '../../../../renderer/src/lib/state/app.svelte.js';
import { drop, type Staging } from '../../../../renderer/src/lib/state/drop.svelte.js';
import { nav } from '../../../../renderer/src/lib/state/nav.svelte.js';
import type { FolderTarget } from '../../../../shared/ui/views.js';
import { waitUntil } from '../../../helpers/wait.js';
import { invoice, storeEnv, writeInvoice, type StoreEnv } from './store-env.js';

/** The store remembers the last target in localStorage, which Node 20 does not have: a Map stands in. */
const remembered = new Map<string, string>();
const localStorageStandIn = {
  getItem: (k: string) => remembered.get(k) ?? null,
  setItem: (k: string, v: string) => void remembered.set(k, String(v)),
};

const target: FolderTarget = { type: 'deployment', id: 'sandbox-invoices' };
const pdfFile = async (n: number): Promise<File> => new File([new Uint8Array(await invoice(n))], `inv-${n}.pdf`, { type: 'application/pdf' });
/** What a browser drop of top-level files captures (no entries: the files are the drop). */
const browserDrop = (files: File[]): Drop => ({ paths: null, entries: [], files, names: files.map((f) => ({ name: f.name, folder: false })) });
const stagedDirs = async (env: StoreEnv): Promise<string[]> => readdir(join(env.home, 'dropped')).catch(() => []);
const dropIdsOf = (env: StoreEnv): string[] => [...new Set(env.calls.filter((c) => c.channel === 'upload.stage').map((c) => (c.args as { dropId: string }).dropId))];
const queuedFiles = async (): Promise<number> => (await bridge.call('files.page', { offset: 0, limit: 1 })).total;

let env: StoreEnv;
beforeAll(async () => {
  vi.stubGlobal('localStorage', localStorageStandIn);
  env = await storeEnv();
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await env?.close();
});

describe('drop store', { timeout: 60_000 }, () => {
  it('a drop waits for its target; closing the dialog forgets it; nothing is remembered yet', async () => {
    expect(drop.lastTarget()).toBeNull();
    drop.landed(browserDrop([await pdfFile(1)]));
    expect(drop.pending?.names).toEqual([{ name: 'inv-1.pdf', folder: false }]);
    drop.dismiss();
    expect(drop.pending).toBeNull();
    expect(env.calls).toEqual([]);
  });

  it('a drop with nothing in it says so and sends nothing', async () => {
    drop.landed(browserDrop([]));
    await drop.upload(target);
    expect(drop.error).toBe('the drop holds no files (empty folders are skipped)');
    expect(drop.pending).not.toBeNull();
    expect([drop.uploading, drop.staging]).toEqual([false, null]);
    expect(env.count('upload.stage')).toBe(0);
    drop.dismiss();
  });

  it("signed out: the bytes are staged, the upload is refused with the engine's reason, and the staged bytes are deleted", async () => {
    drop.landed(browserDrop([await pdfFile(2)]));
    await drop.upload(target);
    expect(drop.error).toBe('sign in (or try the sandbox) first: uploading needs the service');
    expect(env.count('upload.stage')).toBe(1);
    expect(env.count('upload.discard')).toBe(1);
    expect(await stagedDirs(env)).toEqual([]);
    expect(drop.pending).not.toBeNull(); // the dialog stays with the reason
    drop.dismiss();
    env.calls.length = 0;
  });

  it('a browser drop of two PDFs: staged one by one with progress, queued as one upload, done in the sandbox', async () => {
    await bridge.call('connection.trySandbox', {});
    const files = [await pdfFile(81), await pdfFile(82)];
    const progress: (Staging | null)[] = [];
    env.beforeCall = (c) => void (c.channel === 'upload.stage' && progress.push(drop.staging));
    nav.go('results');
    drop.landed(browserDrop(files));
    try {
      await drop.upload(target);
    } finally {
      env.beforeCall = null;
    }
    expect(drop.error).toBeNull();
    const [a, b] = files.map((f) => f.size) as [number, number];
    expect(progress).toEqual([
      { done: 0, total: 2, sentBytes: 0, totalBytes: a + b, current: 'inv-81.pdf' },
      { done: 1, total: 2, sentBytes: a, totalBytes: a + b, current: 'inv-82.pdf' },
    ]);
    expect([drop.pending, drop.staging, drop.uploading]).toEqual([null, null, false]);
    expect(env.count('upload.staged')).toBe(1);
    expect(app.notices.at(-1)).toMatchObject({ level: 'info', msg: '2 files queued for deployment sandbox-invoices.' });
    expect(nav.screen).toBe('activity');
    expect(drop.lastTarget()).toEqual(target);

    const [dropId] = dropIdsOf(env);
    expect(dropId).toMatch(/^[0-9a-f]{16}$/);
    expect(await readFile(join(env.home, 'dropped', dropId as string, 'inv-82.pdf'))).toEqual(Buffer.from(await files[1]!.arrayBuffer()));
    await waitUntil(async () => (await bridge.call('status.get', {})).counts.done === 2, 'both files done', 30_000);
    expect((await bridge.call('search', { query: 'INV-82' })).length).toBeGreaterThan(0);
  });

  it('stopped while the first file is sent: nothing more is staged, what was is deleted, nothing is queued', async () => {
    env.calls.length = 0;
    const before = await queuedFiles();
    env.beforeCall = (c) => {
      // The person closes the dialog (Stop) while the first file is on its way.
      if (c.channel === 'upload.stage') drop.dismiss();
    };
    drop.landed(browserDrop([await pdfFile(91), await pdfFile(92), await pdfFile(93)]));
    try {
      await drop.upload(target);
    } finally {
      env.beforeCall = null;
    }
    expect(env.count('upload.stage')).toBe(1);
    expect(env.count('upload.staged')).toBe(0);
    const [dropId] = dropIdsOf(env);
    expect(env.calls.find((c) => c.channel === 'upload.discard')?.args).toEqual({ dropId });
    expect(await stagedDirs(env)).not.toContain(dropId);
    expect([drop.pending, drop.staging, drop.uploading, drop.error]).toEqual([null, null, false, null]);
    expect(app.notices.at(-1)?.msg).toBe('Upload stopped; nothing was queued.');
    expect(await queuedFiles()).toBe(before);
  });

  it("a file the engine refuses halfway: the engine's reason, the staged part deleted, the dialog kept", async () => {
    env.calls.length = 0;
    const bad = new File([new Uint8Array([1, 2, 3])], '..');
    drop.landed(browserDrop([await pdfFile(94), bad]));
    await drop.upload(target);
    expect(drop.error).toBe('".." is not a file name inside the dropped folder');
    expect(env.count('upload.stage')).toBe(2);
    expect(env.count('upload.discard')).toBe(1);
    expect(await stagedDirs(env)).not.toContain(dropIdsOf(env)[0]);
    expect(drop.pending).not.toBeNull();
    expect([drop.uploading, drop.staging]).toEqual([false, null]);
    drop.dismiss();
  });

  it('another drop while one uploads is turned away with a notice', async () => {
    const first = browserDrop([await pdfFile(95)]);
    env.beforeCall = (c) => {
      if (c.channel === 'upload.stage') drop.landed(browserDrop([new File(['x'], 'late.pdf')]));
    };
    drop.landed(first);
    try {
      await drop.upload(target);
    } finally {
      env.beforeCall = null;
    }
    expect(app.notices.some((n) => n.level === 'warn' && n.msg === 'Still uploading the last drop; drop again when it is done.')).toBe(true);
    expect(drop.pending).toBeNull();
    expect(drop.error).toBeNull();
  });

  it('an Electron drop (local paths) goes to upload.paths; nothing is staged', async () => {
    env.calls.length = 0;
    const dir = await env.dir('desktop');
    const paths = [await writeInvoice(dir, 96)];
    drop.landed({ paths, entries: [], files: [], names: [{ name: 'inv-96.pdf', folder: false }] });
    await drop.upload({ type: 'deployment', id: 'sandbox-invoices-review' });
    expect(drop.error).toBeNull();
    expect(env.calls.map((c) => c.channel)).toEqual(['upload.paths']);
    expect(app.notices.at(-1)?.msg).toBe('1 file queued for deployment sandbox-invoices-review.');
    expect(drop.lastTarget()).toEqual({ type: 'deployment', id: 'sandbox-invoices-review' });
  });

  it('a remembered target that is not one is ignored', () => {
    remembered.set('docsync.drop.target', '{"type":"folder","id":1}');
    expect(drop.lastTarget()).toBeNull();
    remembered.set('docsync.drop.target', 'not json');
    expect(drop.lastTarget()).toBeNull();
  });
});
