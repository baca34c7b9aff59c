// The hot folders store (renderer/src/lib/state/folders.svelte.ts) on the real engine side: the list
// follows `folders` events and saves; the engine's validation errors come back as its one-line
// message; counts and last activity catch up (throttled) while a real PDF goes through the sandbox;
// the offer to retry files a settings change may fix outlives the screen, and goes when they are done.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge } from '../../../../renderer/src/lib/bridge.js';
import { folders } from '../../../../renderer/src/lib/state/folders.svelte.js';
import { validateFolderSettings } from '../../../../shared/hot-folder.js';
import type { FolderView } from '../../../../shared/ui/views.js';
import { FAST_FOLDER } from '../../../helpers/engine.js';
import { encryptPdf } from '../../../helpers/pdf-fixtures.js';
import { waitUntil } from '../../../helpers/wait.js';
import { invoice, listeners, storeEnv, writeInvoice, type StoreEnv } from './store-env.js';

let env: StoreEnv;
let stop: (() => void) | undefined;
let inbox: string;
let saved: FolderView;
beforeAll(async () => {
  env = await storeEnv();
  inbox = await env.dir('inbox');
});
afterAll(async () => {
  stop?.();
  await env?.close();
});

describe('folders store', { timeout: 60_000 }, () => {
  it("loads an empty list; adding needs a session and says so in the engine's words", async () => {
    stop = folders.start();
    await waitUntil(() => folders.loaded, 'loaded');
    expect(folders.list).toEqual([]);
    expect(folders.error).toBeNull();
    await expect(folders.save(null, { path: inbox, deployment: 'sandbox-invoices' })).rejects.toThrow(/^sign in \(or try the sandbox\) first: watching a folder needs the service$/);
    expect(folders.list).toEqual([]);
  });

  it("invalid settings are refused with the engine validator's message, exactly; nothing is added", async () => {
    await bridge.call('connection.trySandbox', {});
    const bad = { path: inbox, deployment: 'sandbox-invoices', stabilityMs: -1, include: 'pdf', colour: 'red' };
    const v = validateFolderSettings(bad);
    expect(v.ok).toBe(false);
    const why = v.ok ? '' : v.errors.join('; ');
    await expect(folders.save(null, bad)).rejects.toThrow(why);
    await expect(folders.save(null, bad)).rejects.toThrow(/stabilityMs must be between/);
    await expect(folders.save(null, { path: 'relative/in', deployment: 'sandbox-invoices' })).rejects.toThrow(/^path must be an absolute path, got "relative\/in"$/);
    await expect(folders.save(null, { path: join(env.root, 'missing'), deployment: 'sandbox-invoices' })).rejects.toThrow(/missing is not a folder$/);
    expect(folders.list).toEqual([]);
  });

  it('adds a folder: the list, get() and label() follow; a second add of the same path is refused', async () => {
    saved = await folders.save(null, { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER });
    expect(saved).toMatchObject({ path: inbox, enabled: true, problem: null, lastActivityMs: null });
    expect(folders.list).toEqual([saved]);
    expect(folders.get(saved.id)).toEqual(saved);
    expect(folders.get(null)).toBeUndefined();
    expect(folders.label(saved.id)).toBe('inbox');
    expect(folders.label(0)).toBe('Dropped in');
    expect(folders.label(null)).toBe('Dropped in');
    expect(folders.label(saved.id + 100)).toBe(`Folder ${saved.id + 100}`);
    await expect(folders.save(null, { path: inbox, deployment: 'sandbox-invoices' })).rejects.toThrow(`${inbox} is already a hot folder`);
    expect(folders.list).toHaveLength(1);
  });

  it("updates a folder; a path change is refused with the engine's reason", async () => {
    const updated = await folders.save(saved.id, { ...saved.settings, include: ['*.pdf'] });
    expect(updated.settings.include).toEqual(['*.pdf']);
    expect(folders.get(saved.id)?.settings.include).toEqual(['*.pdf']);
    await expect(folders.save(saved.id, { ...saved.settings, path: join(env.root, 'elsewhere') })).rejects.toThrow(/^a hot folder's path cannot change/);
    expect(folders.get(saved.id)?.path).toBe(inbox);
    saved = updated;
  });

  it('a PDF through the sandbox: counts and last activity arrive by a throttled reload on `status` events', async () => {
    const loads = env.count('folders.list');
    const t0 = Date.now();
    await writeInvoice(inbox, 1);
    await waitUntil(() => folders.get(saved.id)?.counts.done === 1, 'the folder counts the file done');
    const took = Date.now() - t0;
    expect(folders.get(saved.id)?.lastActivityMs).toBeGreaterThanOrEqual(t0);
    // At most one reload per 1.5 s, however many status events the file caused.
    const reloads = env.count('folders.list') - loads;
    expect(reloads).toBeGreaterThanOrEqual(1);
    expect(reloads).toBeLessThanOrEqual(Math.ceil(took / 1500) + 1);
  });

  it('a change made elsewhere (the folder card stops watching) reaches the store by the `folders` event', async () => {
    await bridge.call('folders.setEnabled', { id: saved.id, enabled: false });
    expect(folders.get(saved.id)?.enabled).toBe(false);
    await bridge.call('folders.setEnabled', { id: saved.id, enabled: true });
    expect(folders.get(saved.id)?.enabled).toBe(true);
  });

  it('an offer to retry the files a settings change may fix stays until acted on, dismissed, or the files are done', async () => {
    // A locked PDF fails at the service for want of its password.
    await writeFile(join(inbox, 'Locked Invoice.pdf'), await encryptPdf(await invoice(5), 'pw-5'));
    const locked = async () => (await bridge.call('files.page', { offset: 0, limit: 50 })).rows.find((f) => f.name === 'Locked Invoice.pdf');
    await waitUntil(async () => (await locked())?.state === 'failed', 'the locked file fails', 60_000);
    saved = await folders.save(saved.id, { ...saved.settings, run: { ...saved.settings.run, pdfPasswords: { 'Locked Invoice': 'pw-5' } } });
    const { count } = await bridge.call('folders.failedBySettings', { id: saved.id });
    expect(count).toBe(1);

    // Held by the store, not the screen: reloads (as on every `status`) keep it while the file is failed.
    folders.offerRetry(saved.id, count);
    await folders.load();
    expect(folders.retryOffers).toEqual(new Map([[saved.id, 1]]));
    folders.dismissOffer(saved.id);
    expect(folders.retryOffers.size).toBe(0);

    // Offered again, then the file is retried elsewhere (Activity's Retry): the offer goes by itself.
    folders.offerRetry(saved.id, count);
    const file = (await locked())!;
    await bridge.call('files.retry', { id: file.id });
    await waitUntil(() => folders.retryOffers.size === 0, 'the offer goes once its file is no longer failed', 30_000);
    await waitUntil(async () => (await locked())?.state === 'done', 'the retried file is done', 60_000);
  });

  it('retrying from the offer retries the files and takes the offer away', async () => {
    // Nothing failed is left: the engine retries nothing, and the offer still goes (the person acted).
    folders.offerRetry(saved.id, 1);
    expect(await folders.retryOffered(saved.id)).toEqual({ retried: 0, problems: [] });
    expect(folders.retryOffers.size).toBe(0);
  });

  it('a folder gone from disk shows its problem on the next load', async () => {
    await rm(inbox, { recursive: true });
    await folders.load();
    expect(folders.get(saved.id)?.problem).toBe(`${inbox} does not exist (or cannot be read)`);
  });

  it("removes a folder; removing it again gives the engine's message", async () => {
    await folders.remove(saved.id);
    expect(folders.list).toEqual([]);
    await expect(folders.remove(saved.id)).rejects.toThrow(`no hot folder with id ${saved.id}`);
  });

  it('stop unsubscribes; a load that fails keeps the list and shows why', async () => {
    const before = { folders: listeners(env, 'folders'), status: listeners(env, 'status') };
    stop?.();
    stop = undefined;
    expect(listeners(env, 'folders')).toBe(before.folders - 1);
    expect(listeners(env, 'status')).toBe(before.status - 1);
    folders.list = [saved];
    await env.core.stop();
    await folders.load();
    expect(folders.error).toMatch(/database connection is not open/);
    expect(folders.list).toEqual([saved]);
  });
});
