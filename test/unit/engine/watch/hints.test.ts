/**
 * FolderHints (issue 4: watcher events are hints): one OS watch per folder, opened as scans reach
 * folders and closed when a scan no longer does; or one recursive watch where the OS watches trees.
 * Real folders and real fs.watch.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderHints } from '../../../../electron/engine/watch/hints.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let dir: string;
let hints: FolderHints | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'docsync-hints-'));
});
afterEach(async () => {
  hints?.close();
  await rm(dir, { recursive: true, force: true });
});

function open(nativeTree: boolean) {
  const got = { hints: [] as string[], folders: [] as string[], errors: [] as Error[] };
  hints = new FolderHints(dir, true, { hint: (p) => got.hints.push(p), folder: (d) => got.folders.push(d), error: (e) => got.errors.push(e) }, nativeTree);
  return { h: hints, got };
}

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('FolderHints, one watch per folder', () => {
  it('watches the folders a scan reaches, names what changes in them, and closes those the next scan does not reach', async () => {
    await mkdir(path.join(dir, 'a'));
    await mkdir(path.join(dir, 'b'));
    const { h, got } = open(false);
    h.scanStarted();
    for (const d of [dir, path.join(dir, 'a'), path.join(dir, 'b')]) h.folder(d);
    h.folder(path.join(dir, 'missing')); // vanished between listing and watching: skipped quietly
    h.scanEnded();
    expect(h.size).toBe(3);
    await writeFile(path.join(dir, 'a', 'x.pdf'), 'x');
    await until(() => got.hints.includes(path.join(dir, 'a', 'x.pdf')));

    h.scanStarted();
    for (const d of [dir, path.join(dir, 'a')]) h.folder(d);
    h.scanEnded();
    expect([h.size, h.watches(path.join(dir, 'b')), h.watches(path.join(dir, 'a'))]).toEqual([2, false, true]);
    h.forgetTree(dir);
    expect(h.size).toBe(0);
    expect(got.errors).toEqual([]);
  });

  it('a scan that fails part-way (no scanEnded) closes nothing; after close nothing is watched again', async () => {
    await mkdir(path.join(dir, 'a'));
    const { h } = open(false);
    h.scanStarted();
    h.folder(dir);
    h.folder(path.join(dir, 'a'));
    h.scanEnded();
    h.scanStarted();
    h.folder(dir);
    expect(h.size).toBe(2);
    h.close();
    h.folder(path.join(dir, 'a'));
    expect(h.size).toBe(0);
  });
});

describe('FolderHints, one watch for the tree (macOS, Windows; fs.watch recursive elsewhere too)', () => {
  it('one watch on the root names changes in folders below it', async () => {
    await mkdir(path.join(dir, 'a', 'b'), { recursive: true });
    const { h, got } = open(true);
    h.scanStarted();
    for (const d of [dir, path.join(dir, 'a'), path.join(dir, 'a', 'b')]) h.folder(d);
    h.scanEnded();
    expect(h.size).toBe(1);
    await sleep(100); // the recursive watch lists the tree first where the OS does not do it natively
    await writeFile(path.join(dir, 'a', 'b', 'deep.pdf'), 'd');
    await until(() => got.hints.includes(path.join(dir, 'a', 'b', 'deep.pdf')));
  });
});
