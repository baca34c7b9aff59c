/**
 * The pipeline's per-file looks at the disk (sha256 of a small file, a stat) in a worker thread,
 * with plain synchronous calls there, handed over in groups (issue 14, second round). With node's
 * async fs each call is a trip to libuv's thread pool (hashing: open, read, close); on a machine of
 * 2 cores each trip wakes a pool thread that takes the core from the engine's main thread (a CPU
 * profile of `bench:hot-folder`, 10,000 files: 1.8 s of 18.5 s in hashing, 2.3 s in the uploader's
 * stats, most of it waiting for the core back). The watcher's stats (scan.ts, watcher.ts) come here too. Here the main thread posts one message per group
 * of looks asked for in the same turn of the event loop; the worker's blocking calls stall nobody
 * but it, and the engine's main thread (Electron's main process) never blocks on a disk.
 *
 * Hashing only up to SMALL_MAX: a large file would hold up the looks queued behind it, and its
 * hashing is bound by reading, not by trips; it keeps sha256File. Without a worker (it could not
 * start, or died), every look is made with async fs as before.
 */
import { readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { sha256File } from './hash.js';

/** Files up to this size are hashed in the worker. */
export const SMALL_MAX = 1024 * 1024;

/** Most looks per message: a group's reply waits for all of them. */
const GROUP_MAX = 64;

/** A stat's answer: what the pipeline compares. */
export interface Seen {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
  mtimeMs: number;
}

// The worker's code as a string (eval: true), so it needs no file of its own beside the bundles
// the app, the command line and the tests each build. CommonJS: an eval'd worker has `require`.
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { openSync, readSync, closeSync, statSync, fstatSync, realpathSync, readdirSync, readlinkSync, readFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const buf = Buffer.allocUnsafe(${SMALL_MAX});
function hash(path, size) {
  const fd = openSync(path, 'r');
  try {
    const h = createHash('sha256');
    // No read past the size the watcher saw (as sha256File): a file that grew since is taken in again.
    for (let total = 0; total < size; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - total), null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
      total += n;
    }
    return h.digest('hex');
  } finally {
    closeSync(fd);
  }
}
// A stat, and for a regular file of at most 'max' bytes its bytes, read whole with the file the same
// (size and mtime) before and after the read: one snapshot the upload sends as it is.
function snapshot(path, max) {
  const st = statSync(path);
  const seen = { isFile: st.isFile(), isDirectory: st.isDirectory(), size: st.size, mtimeMs: st.mtimeMs };
  if (!st.isFile() || st.size > max) return seen;
  let fd;
  try {
    fd = openSync(path, 'r');
  } catch {
    return seen; // not readable (permissions): the upload finds out, and says so, when it opens the file
  }
  try {
    const before = fstatSync(fd);
    const bytes = new Uint8Array(before.size);
    let total = 0;
    while (total < before.size) {
      const n = readSync(fd, bytes, total, before.size - total, total);
      if (n === 0) break;
      total += n;
    }
    const after = fstatSync(fd);
    const same = total === before.size && after.size === before.size && after.mtimeMs === before.mtimeMs;
    // dev and ino of the file these bytes came from: the uploader compares them with where the path leads (links.ts).
    return same ? { isFile: true, isDirectory: false, size: before.size, mtimeMs: before.mtimeMs, dev: before.dev, ino: before.ino, bytes } : { ...seen, size: after.size, mtimeMs: after.mtimeMs };
  } finally {
    closeSync(fd);
  }
}
// Of the real paths given, those some process we may look into has open for writing (writers.ts).
function writing(paths) {
  const wanted = new Set(paths);
  const out = new Set();
  const tryOr = (f, d) => { try { return f(); } catch { return d; } };
  for (const pid of tryOr(() => readdirSync('/proc'), [])) {
    if (!/^[0-9]+$/.test(pid)) continue;
    for (const fd of tryOr(() => readdirSync('/proc/' + pid + '/fd'), [])) {
      const target = tryOr(() => readlinkSync('/proc/' + pid + '/fd/' + fd), '');
      if (!wanted.has(target) || out.has(target)) continue;
      const flags = /^flags:\\s*([0-7]+)/m.exec(tryOr(() => readFileSync('/proc/' + pid + '/fdinfo/' + fd, 'utf8'), ''));
      if (flags && (parseInt(flags[1], 8) & 3) !== 0) out.add(target);
    }
  }
  return [...out];
}
parentPort.on('message', (jobs) => {
  const moved = [];
  parentPort.postMessage(jobs.map((j) => {
    try {
      if (j.op === 'hash') return { value: hash(j.path, j.size) };
      if (j.op === 'snapshot') {
        const v = snapshot(j.path, j.max);
        if (v.bytes) moved.push(v.bytes.buffer);
        return { value: v };
      }
      if (j.op === 'writing') return { value: writing(j.paths) };
      if (j.op === 'real') {
        const real = realpathSync.native(j.path);
        const st = statSync(real);
        return { value: { real, isFile: st.isFile(), dev: st.dev, ino: st.ino } };
      }
      if (j.op === 'owner') {
        const st = statSync(j.path);
        return { value: { isFile: st.isFile(), uid: st.uid, real: realpathSync(j.path) } };
      }
      const st = statSync(j.path);
      return { value: { isFile: st.isFile(), isDirectory: st.isDirectory(), size: st.size, mtimeMs: st.mtimeMs } };
    } catch (e) {
      return { error: { message: e && e.message ? e.message : String(e), code: e && e.code } };
    }
  }), moved);
});
`;

type Look =
  | { op: 'hash'; path: string; size: number }
  | { op: 'stat'; path: string }
  | { op: 'snapshot'; path: string; max: number }
  | { op: 'owner'; path: string }
  | { op: 'real'; path: string }
  | { op: 'writing'; paths: string[] };

/** Where a path really leads (every link on the way resolved), and that file's identity. */
export interface Real {
  real: string;
  isFile: boolean;
  dev: number;
  ino: number;
}

/** What writers.ts asks of a file: whether it is one, whose, and its real path (what /proc's links name). */
export interface Owner {
  isFile: boolean;
  uid: number;
  real: string;
}
interface Job {
  look: Look;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}
type Reply = { value: unknown } | { error: { message: string; code?: string } };

/** The same look with async fs (no worker). */
function direct(look: Look): Promise<unknown> {
  if (look.op === 'hash') return sha256File(look.path, look.size);
  if (look.op === 'writing') return writingDirect(look.paths);
  if (look.op === 'snapshot') return stat(look.path).then((st): Snapshot => ({ isFile: st.isFile(), isDirectory: st.isDirectory(), size: st.size, mtimeMs: st.mtimeMs }));
  if (look.op === 'real') return realpath(look.path).then(async (real): Promise<Real> => {
    const st = await stat(real);
    return { real, isFile: st.isFile(), dev: st.dev, ino: st.ino };
  });
  if (look.op === 'owner') return Promise.all([stat(look.path), realpath(look.path)]).then(([st, real]): Owner => ({ isFile: st.isFile(), uid: st.uid, real }));
  return stat(look.path).then((st) => ({ isFile: st.isFile(), isDirectory: st.isDirectory(), size: st.size, mtimeMs: st.mtimeMs }));
}

class FileWorker {
  private worker: Worker | null = null;
  private broken = false;
  /** Asked for in this turn, not yet posted. */
  private next: Job[] = [];
  /** Posted groups, in order (the worker answers them in order). */
  private readonly sent: Job[][] = [];

  ask(look: Look): Promise<unknown> {
    if (this.broken || !this.start()) return direct(look);
    return new Promise((resolve, reject) => {
      this.next.push({ look, resolve, reject });
      if (this.next.length === 1) setImmediate(() => this.post());
      else if (this.next.length >= GROUP_MAX) this.post();
    });
  }

  private start(): Worker | null {
    if (this.worker) return this.worker;
    try {
      const w = new Worker(SOURCE, { eval: true });
      // Idle, it keeps no process alive (the command line exits when its work is done).
      w.unref();
      w.on('message', (replies: Reply[]) => this.answer(replies));
      w.on('error', () => this.fail());
      w.on('exit', () => this.fail());
      this.worker = w;
      return w;
    } catch {
      this.broken = true;
      return null;
    }
  }

  private post(): void {
    if (this.next.length === 0) return;
    const group = this.next;
    this.next = [];
    if (!this.worker) {
      for (const j of group) direct(j.look).then(j.resolve, j.reject);
      return;
    }
    this.sent.push(group);
    // Busy: kept alive until it answers.
    if (this.sent.length === 1) this.worker.ref();
    this.worker.postMessage(group.map((j) => j.look));
  }

  private answer(replies: Reply[]): void {
    const group = this.sent.shift() ?? [];
    if (this.sent.length === 0) this.worker?.unref();
    group.forEach((j, i) => {
      const r = replies[i];
      if (r && 'value' in r) j.resolve(r.value);
      else j.reject(Object.assign(new Error(r?.error.message ?? 'no answer from the file worker'), { code: r?.error.code }));
    });
  }

  /** The worker is gone: what it had is looked at the old way, and so is everything after. */
  private fail(): void {
    if (this.broken) return;
    this.broken = true;
    this.worker = null;
    for (const group of this.sent.splice(0)) for (const j of group) direct(j.look).then(j.resolve, j.reject);
  }

  /** Whether looks go to the worker now (false: async fs, the worker could not start or died). */
  get working(): boolean {
    return !this.broken && this.worker !== null;
  }
}

let shared: FileWorker | undefined;
const worker = (): FileWorker => (shared ??= new FileWorker());

/** sha256 of the file's first `size` bytes (the watcher's size): in the worker when small, else streamed here. */
export function hashSeenFile(path: string, size: number): Promise<string> {
  if (size > SMALL_MAX) return sha256File(path, size);
  return worker().ask({ op: 'hash', path, size }) as Promise<string>;
}

/** fs.stat's size, mtime and kind, looked up in the worker; rejects as fs.stat does (ENOENT, ...). */
export function statSeen(path: string): Promise<Seen> {
  return worker().ask({ op: 'stat', path }) as Promise<Seen>;
}

/** A stat, with the file's bytes when it is a regular file of at most SMALL_MAX bytes that stayed the same while read. */
export interface Snapshot extends Seen {
  bytes?: Uint8Array;
  /** With `bytes`: the device and inode of the file they were read from. */
  dev?: number;
  ino?: number;
}

/**
 * The look before an upload, in the worker: a stat, and a small file's bytes read whole, so its
 * upload makes no trips of its own to the thread pool (open, stat, read, close: on 2 cores each woke
 * a pool thread that took the core from the engine's main thread; issue 14's profile put them at a
 * fifth of its time). Without the worker, a stat only (the upload reads the file itself).
 */
export function snapshotSeen(path: string): Promise<Snapshot> {
  return worker().ask({ op: 'snapshot', path, max: SMALL_MAX }) as Promise<Snapshot>;
}

/** realpath of one path, and the identity of the file it leads to, in the worker (links.ts); rejects as realpath does. */
export function realSeen(path: string): Promise<Real> {
  return worker().ask({ op: 'real', path }) as Promise<Real>;
}

/** stat's kind and owner, and realpath, of one file, in the worker. */
export function ownerSeen(path: string): Promise<Owner> {
  return worker().ask({ op: 'owner', path }) as Promise<Owner>;
}

/**
 * Of these real paths, those a process has open for writing (Linux /proc, read in the worker: the
 * look at every process's open files is hundreds of small reads, here one message).
 */
export function openForWritingSeen(realPaths: string[]): Promise<string[]> {
  return worker().ask({ op: 'writing', paths: realPaths }) as Promise<string[]>;
}

/** The worker's /proc look with async fs (without a worker; exported for its test). */
export async function writingDirect(paths: string[]): Promise<string[]> {
  const wanted = new Set(paths);
  const out = new Set<string>();
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  await Promise.all(pids.map(async (pid) => {
    // A process that ended, or one we may not look into, has nothing to say.
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    await Promise.all(fds.map(async (fd) => {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      if (!wanted.has(target) || out.has(target)) return;
      const flags = /^flags:\s*([0-7]+)/m.exec(await readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8').catch(() => ''));
      if (flags && (parseInt(flags[1] as string, 8) & 0o3) !== 0) out.add(target);
    }));
  }));
  return [...out];
}

/** Whether the worker thread answers the looks (for tests and diagnostics). */
export const fileWorkerRunning = (): boolean => shared?.working ?? false;
