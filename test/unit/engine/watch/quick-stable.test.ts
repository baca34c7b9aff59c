/**
 * Quick stability (issue 14): a file unchanged over a short period that no program has open for writing is
 * stable without waiting out the folder's full threshold. The tracker's rule is pure (times passed in);
 * the writer check and the watcher run against real files held open by a real child process (Linux /proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StabilityTracker } from '../../../../electron/engine/watch/stability.js';
import { FolderWatcher, type StableFile } from '../../../../electron/engine/watch/watcher.js';
import { canSeeWriters, openForWriting } from '../../../../electron/engine/watch/writers.js';
import { writingDirect } from '../../../../electron/engine/pipeline/file-worker.js';

const obs = (p: string, size: number, mtimeMs = 1000) => ({ path: p, size, mtimeMs });

describe('StabilityTracker quick rule (pure)', () => {
  it('a version unchanged over quickMs is asked about once; settled, it is stable before the threshold', () => {
    const t = new StabilityTracker(10_000, 500);
    t.observe(obs('/a', 5), 0);
    t.observe(obs('/b', 5), 0);
    expect(t.nextDueAt()).toBe(500);
    expect(t.quickCandidates()).toEqual([]); // one look proves nothing
    t.observe(obs('/a', 5), 500);
    t.observe(obs('/b', 5), 500);
    expect(t.quickCandidates()).toEqual(['/a', '/b']);
    t.settle('/a');
    t.refuseQuick('/b', 500);
    expect(t.quickCandidates()).toEqual([]);
    expect(t.takeStable()).toEqual([obs('/a', 5)]);
    // A version a program holds open is asked about again after another quickMs, in a fresh look.
    expect(t.nextDueAt()).toBe(1000);
    t.observe(obs('/b', 5), 1000);
    expect(t.quickCandidates()).toEqual(['/b']);
    // Nobody can tell (another user's file): it waits for the threshold; a new version is asked about again.
    t.refuseQuick('/b', 1000, true);
    expect(t.quickCandidates()).toEqual([]);
    expect(t.nextDueAt()).toBe(10_000);
    t.observe(obs('/b', 6), 1100);
    expect(t.nextDueAt()).toBe(1600);
    t.observe(obs('/b', 6), 1600);
    expect(t.quickCandidates()).toEqual(['/b']);
  });
  it('a change within quickMs restarts it; no quick rule when quickMs is not shorter than the threshold', () => {
    const t = new StabilityTracker(10_000, 500);
    t.observe(obs('/a', 5), 0);
    t.observe(obs('/a', 7), 400);
    t.observe(obs('/a', 7), 800);
    expect(t.quickCandidates()).toEqual([]);
    const slow = new StabilityTracker(300, 500);
    expect(slow.quickMs).toBeUndefined();
    slow.observe(obs('/a', 5), 0);
    slow.observe(obs('/a', 5), 500);
    expect(slow.quickCandidates()).toEqual([]);
    slow.settle('/a'); // ignored: never asked
    expect(slow.takeStable()).toEqual([obs('/a', 5)]);
  });
});

/**
 * A child process (the "scanner") that opens `file` (for appending, writing `first` into it, or for
 * reading) and keeps it open until told to close. A file it creates has no moment without its writer.
 */
function holdOpen(file: string, flags: 'a' | 'r' = 'a', first = ''): Promise<{ child: ChildProcess; close: () => Promise<void> }> {
  const code = `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(file)},'${flags}');if(${JSON.stringify(first)})fs.writeSync(fd,${JSON.stringify(first)});process.stdout.write('open\\n');process.stdin.on('data',()=>{fs.closeSync(fd);process.exit(0)});`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', () =>
      resolve({
        child,
        close: () => new Promise<void>((r) => {
          child.once('exit', () => r());
          child.stdin!.write('x');
        }),
      }),
    );
  });
}

describe.skipIf(!canSeeWriters)('openForWriting (Linux /proc)', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'docsync-writers-'));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill();
    await rm(dir, { recursive: true, force: true });
  });

  it('tells a file held open for writing from one closed, one open only for reading, and one gone', async () => {
    const [w, r, c] = ['writing.tif', 'reading.tif', 'closed.tif'].map((n) => path.join(dir, n)) as [string, string, string];
    for (const f of [w, r, c]) await writeFile(f, 'page');
    const writer = await holdOpen(w, 'a');
    const reader = await holdOpen(r, 'r');
    children.push(writer.child, reader.child);
    const gone = path.join(dir, 'gone.tif');
    const open = await openForWriting([w, r, c, gone]);
    expect(Object.fromEntries([...open].map(([p, v]) => [path.basename(p), v]))).toEqual({ 'writing.tif': true, 'reading.tif': false, 'closed.tif': false });
    // The look at /proc is made in the file worker; without one (it could not start), with async fs: the same answer.
    expect(await writingDirect([w, r, c, gone])).toEqual([w]);
    await writer.close();
    expect((await openForWriting([w])).get(w)).toBe(false);
  });

  it('answers for every file of a drop larger than it looks at at once (64), the one being written among them', async () => {
    const files = Array.from({ length: 300 }, (_, i) => path.join(dir, `scan-${i}.tif`));
    for (const f of files) await writeFile(f, 'page');
    const writing = files[217] as string;
    const writer = await holdOpen(writing, 'a');
    children.push(writer.child);
    const open = await openForWriting(files);
    expect(open.size).toBe(300);
    expect([...open].filter(([, v]) => v).map(([p]) => p)).toEqual([writing]);
  });

  it('finds the writer through a symlinked folder (/proc names the real path)', async () => {
    const real = path.join(dir, 'real');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(real);
    await symlink(real, path.join(dir, 'link'));
    const viaLink = path.join(dir, 'link', 'scan.pdf');
    await writeFile(viaLink, '%PDF');
    const writer = await holdOpen(path.join(real, 'scan.pdf'));
    children.push(writer.child);
    expect((await openForWriting([viaLink])).get(viaLink)).toBe(true);
  });
});

describe.skipIf(!canSeeWriters)('FolderWatcher with the quick rule (real folder, real writer)', () => {
  let dir: string;
  let watcher: FolderWatcher | undefined;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'docsync-quick-'));
  });
  afterEach(async () => {
    await watcher?.stop();
    for (const c of children.splice(0)) c.kill();
    await rm(dir, { recursive: true, force: true });
  });

  const until = async (cond: () => boolean, ms = 5000): Promise<void> => {
    const end = performance.now() + ms;
    while (!cond()) {
      if (performance.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('a closed file is taken long before the full threshold; one a program still writes waits until it is closed and settles', async () => {
    // A threshold of an hour: only the quick rule can report anything within this test.
    const w = new FolderWatcher({ path: dir, recursive: true, stabilityMs: 3_600_000, rescanIntervalMs: 3_600_000, hintDebounceMs: 30, quickStable: { ms: 200, writers: openForWriting } });
    watcher = w;
    const stable: StableFile[] = [];
    w.on('stable', (f) => stable.push(f));
    await w.start();
    const busy = path.join(dir, 'stack.tif');
    const scanner = await holdOpen(busy, 'a', 'page 1');
    children.push(scanner.child);
    await writeFile(path.join(dir, 'single.pdf'), '%PDF-1.7 one page');
    await until(() => stable.length >= 1);
    expect(stable.map((f) => f.rel)).toEqual(['single.pdf']);
    // The stack is still open: however long it stays unchanged, it is not taken.
    await new Promise((r) => setTimeout(r, 800));
    expect(stable.map((f) => f.rel)).toEqual(['single.pdf']);
    // The scanner writes its last page, waits a moment and closes the file: taken once closed.
    await appendFile(busy, ', page 2');
    await new Promise((r) => setTimeout(r, 600));
    expect(stable.map((f) => f.rel)).toEqual(['single.pdf']);
    await scanner.close();
    await until(() => stable.length >= 2);
    expect(stable.map((f) => [f.rel, f.size])).toEqual([
      ['single.pdf', 17],
      ['stack.tif', 14],
    ]);
  });

  it('a drop larger than a look part (2,048) is asked about part by part, the first part reported before the last is asked', async () => {
    const files = Array.from({ length: 5000 }, (_, i) => path.join(dir, `scan-${String(i).padStart(4, '0')}.tif`));
    for (let i = 0; i < files.length; i += 250) await Promise.all(files.slice(i, i + 250).map((f) => writeFile(f, 'page')));
    const held = files[4321] as string;
    const scanner = await holdOpen(held, 'a');
    children.push(scanner.child);
    const stable: StableFile[] = [];
    const asked: { paths: number; reportedBefore: number }[] = [];
    const writers = (paths: readonly string[]): Promise<Map<string, boolean>> => {
      asked.push({ paths: paths.length, reportedBefore: stable.length });
      return openForWriting(paths);
    };
    const w = new FolderWatcher({ path: dir, recursive: true, stabilityMs: 3_600_000, rescanIntervalMs: 3_600_000, nativeHints: false, quickStable: { ms: 100, writers } });
    watcher = w;
    w.on('stable', (f) => stable.push(f));
    await w.start();
    await until(() => stable.length >= 4999, 20_000);
    expect(stable.length).toBe(4999);
    expect(stable.some((f) => f.path === held)).toBe(false);
    expect(Math.max(...asked.map((a) => a.paths))).toBeLessThanOrEqual(2048);
    expect(asked.reduce((n, a) => n + a.paths, 0)).toBeGreaterThanOrEqual(5000);
    expect(asked.at(-1)!.reportedBefore).toBeGreaterThan(0);
  });

  it('without the quick rule (a polled folder) the same closed file waits for the threshold', async () => {
    const w = new FolderWatcher({ path: dir, recursive: true, stabilityMs: 1500, rescanIntervalMs: 3_600_000, hintDebounceMs: 30, polling: { enabled: true, intervalMs: 100 } });
    watcher = w;
    const stable: { rel: string; at: number }[] = [];
    w.on('stable', (f) => stable.push({ rel: f.rel, at: performance.now() }));
    await w.start();
    const t0 = performance.now();
    await writeFile(path.join(dir, 'single.pdf'), '%PDF');
    await until(() => stable.length >= 1);
    // Proven by two looks 1.5 s apart, so at least that long after the file was written.
    expect(stable[0]!.at - t0).toBeGreaterThanOrEqual(1500);
  });
});
