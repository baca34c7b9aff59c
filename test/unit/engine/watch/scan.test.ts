/** Full scan of a hot folder: candidates with size and mtime, recursive or not, ignores applied. */
import { mkdtemp, mkdir, rm, writeFile, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilter } from '../../../../electron/engine/watch/ignore.js';
import { scanFolder } from '../../../../electron/engine/watch/scan.js';

let root: string;
const filter = createFilter({ nocase: false });

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'docsync-scan-'));
  await mkdir(path.join(root, 'sub/deeper'), { recursive: true });
  await mkdir(path.join(root, '.hidden'));
  await writeFile(path.join(root, 'a.pdf'), 'aaaa');
  await writeFile(path.join(root, 'b.part'), 'partial');
  await writeFile(path.join(root, '.DS_Store'), 'x');
  await writeFile(path.join(root, 'sub/c.pdf'), 'cc');
  await writeFile(path.join(root, 'sub/deeper/d.pdf'), 'd');
  await writeFile(path.join(root, '.hidden/e.pdf'), 'e');
  await symlink(path.join(root, 'sub'), path.join(root, 'loop'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const rels = (files: { rel: string }[]): string[] => files.map((f) => f.rel).sort();

describe('scanFolder', () => {
  it('recursive: every candidate at every depth, without dot-folders, ignored files or symlinked folders', async () => {
    const { files } = await scanFolder(root, { recursive: true, filter });
    expect(rels(files)).toEqual(['a.pdf', 'sub/c.pdf', 'sub/deeper/d.pdf']);
  });
  it('under: only a folder and what is below it, paths still relative to the root; each folder announced before it is listed', async () => {
    const folders: string[] = [];
    const { files } = await scanFolder(root, { recursive: true, filter, under: 'sub', onFolder: (d) => folders.push(d) });
    expect(rels(files)).toEqual(['sub/c.pdf', 'sub/deeper/d.pdf']);
    expect(folders).toEqual([path.join(root, 'sub'), path.join(root, 'sub', 'deeper')]);
    expect((await scanFolder(root, { recursive: true, filter, under: 'gone' })).files).toEqual([]);
    const all: string[] = [];
    await scanFolder(root, { recursive: true, filter, onFolder: (d) => all.push(path.relative(root, d)) });
    expect(all.sort()).toEqual(['', 'sub', path.join('sub', 'deeper')]); // no dot-folder, no symlinked folder
  });
  it('onFile: each file handed over as it is seen, none collected; the count still given', async () => {
    const handed: { rel: string }[] = [];
    const r = await scanFolder(root, { recursive: true, filter, onFile: (f) => handed.push(f) });
    expect([rels(handed), r.files, r.seen]).toEqual([['a.pdf', 'sub/c.pdf', 'sub/deeper/d.pdf'], [], 3]);
    expect((await scanFolder(root, { recursive: true, filter })).seen).toBe(3);
  });
  it('not recursive: only the top level', async () => {
    const { files } = await scanFolder(root, { recursive: false, filter });
    expect(rels(files)).toEqual(['a.pdf']);
  });
  it('reports absolute path, size and mtime as stat sees them', async () => {
    const { files } = await scanFolder(root, { recursive: true, filter });
    const c = files.find((f) => f.rel === 'sub/c.pdf')!;
    const st = await stat(path.join(root, 'sub/c.pdf'));
    expect(c).toEqual({ path: path.join(root, 'sub/c.pdf'), rel: 'sub/c.pdf', size: 2, mtimeMs: st.mtimeMs });
  });
  it('include patterns restrict the result', async () => {
    await writeFile(path.join(root, 'notes.txt'), 'n');
    const { files } = await scanFolder(root, { recursive: true, filter: createFilter({ include: ['*.txt'], nocase: false }) });
    expect(rels(files)).toEqual(['notes.txt']);
    await rm(path.join(root, 'notes.txt'));
  });
  it('a missing root rejects (the watcher reports it), an empty one gives nothing', async () => {
    await expect(scanFolder(path.join(root, 'nope'), { recursive: true, filter })).rejects.toMatchObject({ code: 'ENOENT' });
    const empty = path.join(root, 'sub', 'empty');
    await mkdir(empty);
    expect((await scanFolder(empty, { recursive: true, filter })).files).toEqual([]);
    await rm(empty, { recursive: true });
  });
  it('is fast on a larger tree (2,000 files in 20 folders)', async () => {
    const big = await mkdtemp(path.join(tmpdir(), 'docsync-scan-big-'));
    try {
      for (let d = 0; d < 20; d++) {
        await mkdir(path.join(big, `d${d}`));
        await Promise.all(Array.from({ length: 100 }, (_, i) => writeFile(path.join(big, `d${d}`, `f${i}.pdf`), 'x'.repeat(i))));
      }
      const t0 = performance.now();
      const { files } = await scanFolder(big, { recursive: true, filter });
      expect(files).toHaveLength(2000);
      expect(files.reduce((n, f) => n + f.size, 0)).toBe(20 * 4950);
      expect(performance.now() - t0).toBeLessThan(2000);
    } finally {
      await rm(big, { recursive: true, force: true });
    }
  });
});
