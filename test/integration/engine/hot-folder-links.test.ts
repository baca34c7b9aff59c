// Links in a hot folder (issue 26, item 5) end to end: a real folder with real symlinks, the real
// engine and store, the real sandbox over HTTP on 127.0.0.1. What went up is read back from the service.
import { mkdir, readFile, rename, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileRow } from '../../../electron/engine/store/index.js';
import { engineEnv, FAST_FOLDER, type EngineEnv } from '../../helpers/engine.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { waitUntil } from '../../helpers/wait.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const REASON = 'a link to a file outside the hot folder';
const invoice = (n: number, vendor: string): string => invoiceText({ invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: `${n}.00`, vendor });
const SECRET = invoice(999, 'OWNER PAYROLL SECRET');

interface Layout {
  e: EngineEnv;
  inbox: string;
  /** The owner's file outside the hot folder. */
  secret: string;
}

/** A hot folder holding a plain invoice, a link to the owner's file outside, a link to the invoice, a link to an outside folder and a dangling link. */
async function layout(settings: Record<string, unknown> = {}): Promise<Layout> {
  env = await engineEnv();
  const e = env;
  const inbox = e.dir('inbox');
  const home = e.dir('owner-home');
  await mkdir(join(home, 'payroll'), { recursive: true });
  await mkdir(inbox, { recursive: true });
  const secret = join(home, 'payroll', 'march.txt');
  await writeFile(secret, SECRET);
  await writeFile(join(home, 'payroll', 'april.txt'), invoice(998, 'OWNER APRIL SECRET'));
  await writeFile(join(inbox, 'scan.txt'), invoice(1, 'Plain Scan'));
  await symlink(secret, join(inbox, 'march.txt'));
  await symlink('scan.txt', join(inbox, 'copy-of-scan.txt'));
  await symlink(join(home, 'payroll'), join(inbox, 'payroll-folder'));
  await symlink(join(home, 'nothing-here.txt'), join(inbox, 'dangling.txt'));
  await e.engine.start();
  await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, ...settings });
  return { e, inbox, secret };
}

const rows = (e: EngineEnv): FileRow[] => e.engine.store.files.list();
const named = (e: EngineEnv, name: string): FileRow[] => rows(e).filter((f) => f.originalName === name);
const summary = (e: EngineEnv): string => rows(e).map((f) => `${f.originalName}:${f.state}`).join(', ');

/** Every file the service holds in any batch, with its bytes (what was uploaded, not what the store says). */
async function uploaded(e: EngineEnv): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const b of (await e.engine.client.listBatches({})).batches) {
    const info = await e.engine.client.getBatch(b.id);
    for await (const n of e.engine.client.iterateBatchFiles(b.id)) {
      const name = n.name ?? '';
      out.set(name, (await e.engine.client.readFile(`${info.mount_point}/${info.path_suffix}/${name}`)).data.toString());
    }
  }
  return out;
}

describe('links in a hot folder (issue 26)', () => {
  it('by default a link to a file outside is skipped with the reason and never uploaded; a link to a file inside is taken once, as its target', async () => {
    const { e, inbox, secret } = await layout();
    await waitUntil(() => named(e, 'scan.txt')[0]?.state === 'done' && named(e, 'march.txt')[0]?.state === 'skipped', 'the scan is done and the link skipped', 20_000, () => summary(e));
    // A full rescan and a quiet moment: nothing else turns up.
    await e.engine.idle(10_000);
    await new Promise((r) => setTimeout(r, FAST_FOLDER.rescanIntervalMs + 300));
    await e.engine.idle(10_000);

    const link = named(e, 'march.txt');
    expect(link).toHaveLength(1);
    expect(link[0]).toMatchObject({ state: 'skipped', path: join(inbox, 'march.txt'), batchId: null, sha256: null });
    expect(link[0]!.error!.split('\n')[0]).toBe(REASON);
    expect(link[0]!.error).toContain(secret);
    // Neither the inside link, the folder link's files nor the dangling link became a file of their own.
    expect(rows(e).map((f) => f.originalName).sort()).toEqual(['march.txt', 'scan.txt']);
    expect(named(e, 'scan.txt')[0]!.path).toBe(join(inbox, 'scan.txt'));

    // The service holds the scan alone, once: none of the owner's bytes.
    const there = await uploaded(e);
    expect([...there.keys()]).toEqual(['scan.txt']);
    expect(there.get('scan.txt')).toBe(await readFile(join(inbox, 'scan.txt'), 'utf8'));
    expect(e.engine.store.runs.listRuns()).toHaveLength(1);
    const vendors = e.engine.store.results.resultsOfFile(named(e, 'scan.txt')[0]!.id)[0]!.documents.flatMap((d) => d.fields).map((x) => String(x.value));
    expect(vendors.join(' ')).not.toMatch(/OWNER/);

    // The folder then allows such links: the skipped one is taken after all (the folder link's files still are not).
    const folder = e.engine.store.folders.byPath(inbox)!;
    await e.engine.updateFolder(folder.id, { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, followLinks: true });
    await waitUntil(() => named(e, 'march.txt')[0]?.state === 'done', 'the allowed link is done', 20_000, () => summary(e));
    await e.engine.idle(10_000);
    expect((await uploaded(e)).get('march.txt')).toBe(SECRET);
    expect(rows(e).map((f) => f.originalName).sort()).toEqual(['march.txt', 'scan.txt']);
  });

  it('with followLinks, a link to a file outside is uploaded; the inside link still once, as its target', async () => {
    const { e } = await layout({ followLinks: true });
    await waitUntil(() => rows(e).filter((f) => f.state === 'done').length === 2, 'both files are done', 20_000, () => summary(e));
    await e.engine.idle(10_000);
    expect(rows(e).map((f) => `${f.originalName}:${f.state}`).sort()).toEqual(['march.txt:done', 'scan.txt:done']);
    const there = await uploaded(e);
    expect([...there.keys()].sort()).toEqual(['march.txt', 'scan.txt']);
    expect(there.get('march.txt')).toBe(SECRET);
  });

  it('a file swapped for a link after it was taken (same size and time, so the watcher sees no change) is skipped at upload, its target never sent', async () => {
    env = await engineEnv();
    const e = env;
    const inbox = e.dir('inbox');
    const home = e.dir('owner-home');
    await mkdir(inbox, { recursive: true });
    await mkdir(home, { recursive: true });
    // The bait and the owner's file: the same size and modification time.
    const bait = invoice(5, 'Harmless Bait Ltd');
    const secret = join(home, 'salaries.txt');
    await writeFile(secret, bait.replace('Harmless Bait Ltd', 'SALARIES SECRET!!'));
    expect((await stat(secret)).size).toBe(Buffer.byteLength(bait));
    const when = new Date(Math.floor(Date.now() / 1000 - 60) * 1000);
    await utimes(secret, when, when);
    await e.engine.start();
    // A long batch wait keeps the taken file queued, not yet uploaded, while it is swapped.
    await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, batching: { minQuietMs: 2000, quietMs: 2000, maxFiles: 100, maxBytes: 1 << 30 } });
    const path = join(inbox, 'invoice.txt');
    await writeFile(path, bait);
    await utimes(path, when, when);
    await waitUntil(() => named(e, 'invoice.txt')[0]?.state === 'queued', 'the bait is queued', 20_000, () => summary(e));
    await symlink(secret, join(inbox, '.swap'));
    await rename(join(inbox, '.swap'), path);
    await waitUntil(() => named(e, 'invoice.txt')[0]?.state === 'skipped', 'the swapped file is skipped', 20_000, () => summary(e));
    await e.engine.idle(10_000);
    const [row] = named(e, 'invoice.txt');
    expect(row!.error!.split('\n')[0]).toBe(REASON);
    expect(row!.error).toContain(secret);
    const there = await uploaded(e);
    expect([...there.values()].join('')).not.toContain('SALARIES');
    expect(e.engine.store.runs.listRuns()).toHaveLength(0);
  });
});
