// Watching a large tree (issue 4): start-up time and peak RSS of a hot-folder watcher over 100,000
// files, against a plain recursive readdir + stat loop over the same tree in the same run.
//   npm run bench:watch [-- --files 100000]
import { mkdir, mkdtemp, opendir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderWatcher } from '../electron/engine/watch/watcher.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const total = arg('files', 100_000);
const PER_DIR = 100;

async function plainWalk(dir: string): Promise<number> {
  let n = 0;
  for await (const e of await opendir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += await plainWalk(p);
    else if (e.isFile()) {
      await stat(p);
      n++;
    }
  }
  return n;
}

const root = await mkdtemp(join(tmpdir(), 'docsync-bench-tree-'));
try {
  const tree = join(root, 'tree');
  for (let d = 0; d < Math.ceil(total / PER_DIR); d++) {
    const dir = join(tree, `d${Math.floor(d / 100)}`, `s${d}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(Array.from({ length: Math.min(PER_DIR, total - d * PER_DIR) }, (_, i) => writeFile(join(dir, `f${i}.pdf`), 'x')));
  }
  let t0 = performance.now();
  const walked = await plainWalk(tree);
  const walkMs = performance.now() - t0;

  const rssBefore = process.memoryUsage().rss;
  let stable = 0;
  const w = new FolderWatcher({ path: tree, recursive: true, stabilityMs: 0, rescanIntervalMs: 3_600_000, ...(process.argv.includes('--no-native') ? { nativeHints: false } : {}) });
  w.on('stable', () => stable++);
  t0 = performance.now();
  await w.start();
  const startMs = performance.now() - t0;
  const rssWatching = process.memoryUsage().rss;
  await new Promise((r) => setTimeout(r, 500));
  await w.stop();
  const peak = process.resourceUsage().maxRSS / 1024;
  console.log(`tree: ${walked.toLocaleString('en')} files in ${Math.ceil(total / PER_DIR)} folders`);
  console.log(`  plain readdir + stat walk:   ${(walkMs / 1000).toFixed(2)} s`);
  console.log(`  watcher start (chokidar ready + first full scan): ${(startMs / 1000).toFixed(2)} s (ratio ${(startMs / walkMs).toFixed(1)}x the plain walk); files reported: ${stable.toLocaleString('en')}`);
  console.log(`  RSS: ${(rssBefore / 1048576).toFixed(0)} MB before, ${(rssWatching / 1048576).toFixed(0)} MB watching; peak ${peak.toFixed(0)} MB (target < 250 MB)`);
} finally {
  await rm(root, { recursive: true, force: true });
}
