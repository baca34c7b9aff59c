/**
 * FolderPoller: change hints for polled folders from folder mtimes and name listings. Real temp
 * folders; ticks are called directly (the interval is long) so no test waits for a timer, except
 * the one about the timer itself.
 */
import { mkdir, mkdtemp, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderPoller } from '../../../../electron/engine/watch/poller.js';

let root: string;
let poller: FolderPoller | undefined;
const calls: string[] = [];

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'docsync-poll-'));
  calls.length = 0;
});
afterEach(async () => {
  await poller?.close();
  poller = undefined;
  await rm(root, { recursive: true, force: true });
});

function make(intervalMs = 60_000): FolderPoller {
  poller = new FolderPoller(root, {
    hint: (p) => calls.push(`hint ${path.relative(root, p) || '.'}`),
    folder: (d) => calls.push(`folder ${path.relative(root, d) || '.'}`),
    error: (e) => calls.push(`error ${e.message}`),
  }, intervalMs);
  return poller;
}

/** Sets a folder's mtime to a minute ago, so its first listing is trusted. */
async function settle(dir: string): Promise<void> {
  const old = new Date(Date.now() - 60_000);
  await utimes(dir, old, old);
}

describe('FolderPoller', () => {
  it('after a first listing, files that come and go are hinted by name, and nothing when nothing changed', async () => {
    await writeFile(path.join(root, 'old.pdf'), 'o');
    await settle(root);
    const p = make();
    p.folder(root);
    await p.tick();
    expect(calls).toEqual([]); // the first listing is the baseline; the folder has not changed since well before
    await writeFile(path.join(root, 'new.pdf'), 'n');
    await rm(path.join(root, 'old.pdf'));
    await p.tick();
    expect(calls.sort()).toEqual(['hint new.pdf', 'hint old.pdf']);
    calls.length = 0;
    await p.tick(); // listed again once after a change (mtime resolution), finds nothing new
    await p.tick();
    expect(calls).toEqual([]);
  });

  it('a folder changed around its first listing is rescanned: the root as a whole, a subfolder by a hint', async () => {
    await mkdir(path.join(root, 'sub'));
    const p = make();
    p.folder(root);
    p.folder(path.join(root, 'sub'));
    await p.tick();
    expect(calls.sort()).toEqual(['folder .', 'hint sub']);
    calls.length = 0;
    await p.tick();
    await p.tick();
    expect(calls).toEqual([]); // the listings stay: no rescan loop
  });

  it('a second change within the same mtime is still found (the folder is listed once more after a change)', async () => {
    await settle(root);
    const p = make();
    p.folder(root);
    await p.tick();
    // As a share with coarse mtimes shows it: both changes leave the folder with one mtime.
    const coarse = new Date(Math.floor(Date.now() / 1000) * 1000 - 30_000);
    await writeFile(path.join(root, 'a.pdf'), 'a');
    await utimes(root, coarse, coarse);
    await p.tick();
    expect(calls).toEqual(['hint a.pdf']);
    await writeFile(path.join(root, 'b.pdf'), 'b');
    await utimes(root, coarse, coarse);
    expect((await stat(root)).mtimeMs).toBe(coarse.getTime());
    await p.tick();
    expect(calls).toEqual(['hint a.pdf', 'hint b.pdf']);
  });

  it('a file replaced by a rename onto its name (same names, new mtime) makes the folder be looked at again', async () => {
    await mkdir(path.join(root, 'sub'));
    await writeFile(path.join(root, 'sub', 'scan.pdf'), 'v1');
    await settle(path.join(root, 'sub'));
    await settle(root);
    const p = make();
    p.folder(root);
    p.folder(path.join(root, 'sub'));
    await p.tick();
    expect(calls).toEqual([]);
    // Written beside the tree (same file system), so only sub's mtime moves.
    const tmp = `${root}-tmp`;
    await writeFile(tmp, 'v2');
    await rename(tmp, path.join(root, 'sub', 'scan.pdf'));
    await p.tick();
    expect(calls).toEqual(['hint sub']);
  });

  it('a polled folder that goes away is forgotten and its parent looked at; scans that no longer reach a folder drop it', async () => {
    const sub = path.join(root, 'sub');
    await mkdir(path.join(sub, 'deep'), { recursive: true });
    const p = make();
    p.folder(root);
    p.folder(sub);
    p.folder(path.join(sub, 'deep'));
    expect(p.size).toBe(3);
    await p.tick();
    calls.length = 0;
    await rm(sub, { recursive: true });
    await p.tick();
    expect(calls).toContain('folder .');
    expect(p.watches(sub)).toBe(false);
    expect(p.watches(path.join(sub, 'deep'))).toBe(false);

    p.scanStarted();
    p.folder(path.join(root, 'other'));
    p.scanEnded();
    expect(p.size).toBe(1);
    expect(p.watches(root)).toBe(false);
  });

  it('a folder that cannot be polled (not gone: a symlink loop here, an unreachable share in life) is reported once, not every tick', async () => {
    const loop = path.join(root, 'loop');
    await symlink(loop, loop);
    const p = make();
    p.folder(loop);
    await p.tick();
    await p.tick();
    const errors = calls.filter((c) => c.startsWith('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^error cannot poll for changes: .*ELOOP/);
  });

  it('polls on its timer, one pass at a time, and stops on close', async () => {
    await settle(root);
    const p = make(20);
    p.folder(root);
    await new Promise((r) => setTimeout(r, 80));
    await writeFile(path.join(root, 'timed.pdf'), 't');
    const end = Date.now() + 3000;
    while (!calls.includes('hint timed.pdf') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(calls).toContain('hint timed.pdf');
    await p.close();
    calls.length = 0;
    await writeFile(path.join(root, 'after.pdf'), 'a');
    await new Promise((r) => setTimeout(r, 100));
    expect(calls).toEqual([]);
  });
});
