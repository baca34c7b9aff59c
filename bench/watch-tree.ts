// Watching a large tree (issue 4): start-up time and peak RSS of a hot-folder watcher over 100,000
// files, against a plain recursive readdir + stat loop over the same tree in the same run; then how
// long a file written into a folder created after start takes to be reported (OS events only: the
// periodic rescan is an hour away).
//   npm run bench:watch [-- --files 100000] [-- --no-native | --polling]
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
  const mode = process.argv.includes('--no-native') ? { nativeHints: false } : process.argv.includes('--polling') ? { polling: { enabled: true, intervalMs: 2000 } } : {};
  const w = new FolderWatcher({ path: tree, recursive: true, stabilityMs: 0, rescanIntervalMs: 3_600_000, ...mode });
  const late = join(tree, 'd3', 'new-folder', 'late.pdf');
  let lateAt: number | undefined;
  w.on('stable', (f) => {
    stable++;
    if (f.path === late) lateAt = performance.now();
  });
  let fullScansAfterStart = -1; // the start's own full scan is not counted
  w.on('scan', (s) => {
    if (s.kind === 'full') fullScansAfterStart++;
  });
  t0 = performance.now();
  await w.start();
  const startMs = performance.now() - t0;
  const rssWatching = process.memoryUsage().rss;
  const watches = w.watchedFolders;
  const reported = stable;

  t0 = performance.now();
  await mkdir(join(tree, 'd3', 'new-folder'));
  await writeFile(late, 'late');
  while (lateAt === undefined && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 5));
  const lateMs = lateAt === undefined ? undefined : lateAt - t0;
  await w.stop();
  const peak = process.resourceUsage().maxRSS / 1024;
  const modeName = 'nativeHints' in mode ? 'scans only' : 'polling' in mode ? `${watches.toLocaleString('en')} folders polled every 2 s` : `${watches.toLocaleString('en')} OS folder watches`;
  console.log(`tree: ${walked.toLocaleString('en')} files in ${Math.ceil(total / PER_DIR)} folders; watcher mode: ${modeName}`);
  console.log(`  plain readdir + stat walk:   ${(walkMs / 1000).toFixed(2)} s`);
  console.log(`  watcher start (watches set up + first full scan): ${(startMs / 1000).toFixed(2)} s (ratio ${(startMs / walkMs).toFixed(1)}x the plain walk); files reported: ${reported.toLocaleString('en')}`);
  console.log(`  a file in a folder made after start reported after: ${lateMs === undefined ? 'not within 10 s' : `${Math.round(lateMs)} ms`}; full rescans it caused: ${fullScansAfterStart}`);
  console.log(`  RSS: ${(rssBefore / 1048576).toFixed(0)} MB before, ${(rssWatching / 1048576).toFixed(0)} MB watching; peak ${peak.toFixed(0)} MB (target < 250 MB)`);
} finally {
  await rm(root, { recursive: true, force: true });
}
