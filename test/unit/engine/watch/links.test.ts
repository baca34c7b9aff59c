/**
 * Links in a hot folder (issue 26): where a path leads (watch/links.ts), and that neither a scan nor a
 * change event takes the watcher into a folder through a link. Real folders, real symlinks.
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFilter } from '../../../../electron/engine/watch/ignore.js';
import { whereLeads } from '../../../../electron/engine/watch/links.js';
import { scanFolder } from '../../../../electron/engine/watch/scan.js';
import { FolderWatcher, type StableFile } from '../../../../electron/engine/watch/watcher.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let base: string;
let root: string;
let outside: string;
let watcher: FolderWatcher | undefined;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'docsync-links-'));
  root = path.join(base, 'inbox');
  outside = path.join(base, 'home');
  await mkdir(path.join(root, 'sub'), { recursive: true });
  await mkdir(path.join(outside, '.ssh'), { recursive: true });
  await writeFile(path.join(root, 'scan.pdf'), 'scan');
  await writeFile(path.join(root, 'sub', 'deep.pdf'), 'deep');
  await writeFile(path.join(outside, '.ssh', 'id_rsa'), 'PRIVATE KEY');
  await writeFile(path.join(outside, 'payroll.pdf'), 'payroll');
});
afterEach(async () => {
  await watcher?.stop();
  watcher = undefined;
  await rm(base, { recursive: true, force: true });
});

const leads = async (rel: string, r = root): Promise<string> => {
  const l = await whereLeads(path.join(r, rel), r, path.join(base, 'inbox'));
  return l === null ? 'nowhere' : `${l.to} ${path.relative(base, l.real.real)}`;
};

describe('whereLeads', () => {
  it('a plain file leads to itself; links inside the folder, absolute, relative or to a link, lead inside', async () => {
    await symlink(path.join(root, 'scan.pdf'), path.join(root, 'abs.pdf'));
    await symlink('sub/deep.pdf', path.join(root, 'rel.pdf'));
    await symlink('../scan.pdf', path.join(root, 'sub', 'up.pdf'));
    await symlink('rel.pdf', path.join(root, 'chain.pdf'));
    expect(await leads('scan.pdf')).toBe('itself inbox/scan.pdf');
    expect(await leads('sub/deep.pdf')).toBe('itself inbox/sub/deep.pdf');
    expect(await leads('abs.pdf')).toBe('inside inbox/scan.pdf');
    expect(await leads('rel.pdf')).toBe('inside inbox/sub/deep.pdf');
    expect(await leads('sub/up.pdf')).toBe('inside inbox/scan.pdf');
    expect(await leads('chain.pdf')).toBe('inside inbox/sub/deep.pdf');
  });

  it('links leading out of the folder lead outside: absolute, relative with "..", through a link inside, or to the folder\'s own sibling', async () => {
    await symlink(path.join(outside, '.ssh', 'id_rsa'), path.join(root, 'key.pdf'));
    await symlink('../../home/payroll.pdf', path.join(root, 'sub', 'pay.pdf'));
    await symlink('key.pdf', path.join(root, 'via-inside.pdf'));
    // "inbox-old" starts with the folder's name but is not in it.
    await mkdir(path.join(base, 'inbox-old'));
    await writeFile(path.join(base, 'inbox-old', 'x.pdf'), 'x');
    await symlink(path.join(base, 'inbox-old', 'x.pdf'), path.join(root, 'sibling.pdf'));
    expect(await leads('key.pdf')).toBe('outside home/.ssh/id_rsa');
    expect(await leads('sub/pay.pdf')).toBe('outside home/payroll.pdf');
    expect(await leads('via-inside.pdf')).toBe('outside home/.ssh/id_rsa');
    expect(await leads('sibling.pdf')).toBe('outside inbox-old/x.pdf');
  });

  it('a dangling link and a loop lead nowhere', async () => {
    await symlink(path.join(outside, 'gone.pdf'), path.join(root, 'dangling.pdf'));
    await symlink('loop-b.pdf', path.join(root, 'loop-a.pdf'));
    await symlink('loop-a.pdf', path.join(root, 'loop-b.pdf'));
    expect(await leads('dangling.pdf')).toBe('nowhere');
    expect(await leads('loop-a.pdf')).toBe('nowhere');
  });

  it('a hot folder that is itself reached through a link: its files lead to themselves, not outside', async () => {
    const alias = path.join(base, 'alias');
    await symlink(root, alias);
    expect(await leads('scan.pdf', alias)).toBe('itself inbox/scan.pdf');
    await symlink(path.join(outside, 'payroll.pdf'), path.join(root, 'pay.pdf'));
    expect(await leads('pay.pdf', alias)).toBe('outside home/payroll.pdf');
  });
});

describe('folders reached through a link are not descended into', () => {
  const filter = createFilter({ nocase: false });

  it('scanFolder: a folder named by a change event (under) is not listed when a link leads there, whole tree or not', async () => {
    await symlink(outside, path.join(root, 'home-link'));
    const under = await scanFolder(root, { recursive: true, filter, under: 'home-link' });
    expect(under.files).toEqual([]);
    expect((await scanFolder(root, { recursive: true, filter })).files.map((f) => f.rel).sort()).toEqual(['scan.pdf', 'sub/deep.pdf']);
    // A subfolder swapped for a link after it was watched: a look below it does not follow the link.
    await rename(path.join(root, 'sub'), path.join(base, 'sub-away'));
    await symlink(path.join(outside), path.join(root, 'sub'));
    await mkdir(path.join(outside, 'deeper'));
    await writeFile(path.join(outside, 'deeper', 'tax.pdf'), 'tax');
    expect((await scanFolder(root, { recursive: true, filter, under: 'sub/deeper' })).files).toEqual([]);
    // The real subfolders still are.
    expect((await scanFolder(root, { recursive: true, filter, under: '' })).files.map((f) => f.rel)).toEqual(['scan.pdf']);
  });

  for (const polled of [false, true]) {
    it(`the watcher (${polled ? 'polled' : 'OS events'}): a link to an outside folder made after start is not scanned, nor its files reported`, async () => {
      const w = new FolderWatcher({ path: root, recursive: true, stabilityMs: 100, rescanIntervalMs: 60_000, hintDebounceMs: 30, ...(polled ? { polling: { enabled: true, intervalMs: 100 } } : {}) });
      watcher = w;
      const stable: StableFile[] = [];
      w.on('stable', (f) => stable.push(f));
      await w.start();
      // The poller's first listings are over (each is a full rescan): the link is then a name it hints.
      if (polled) await sleep(400);
      await symlink(outside, path.join(root, 'home-link'));
      await writeFile(path.join(root, 'new.pdf'), 'new');
      const end = performance.now() + 3000;
      while (!stable.some((f) => f.rel === 'new.pdf') && performance.now() < end) await sleep(20);
      await sleep(400); // time for the link's own change event and look
      await w.requestFullScan();
      await sleep(200);
      expect(stable.map((f) => f.rel).sort()).toEqual(['new.pdf', 'scan.pdf', 'sub/deep.pdf']);
      expect(w.watchedFolders).toBe(2); // the folder and sub: no watch through the link
    });
  }
});
