/**
 * sha256 of small files in a worker thread, with plain synchronous reads there, handed over in
 * groups (issue 14, second round). Hashing a small file with node's async fs is three trips to
 * libuv's thread pool (open, read, close); on a machine of 2 cores each trip wakes a pool thread
 * that takes the core from the engine's main thread (a CPU profile of `bench:hot-folder` showed
 * 1.8 s of its 18.5 s there for 10,000 files, with the intake stage the slower one). Here the
 * main thread posts one message per group of files asked for in the same turn of the event loop,
 * and the worker's blocking reads stall nobody but it.
 *
 * Only files up to SMALL_MAX: a large file would hold up the small ones queued behind it, and its
 * hashing is bound by reading, not by trips; those keep sha256File. Without a worker (it could not
 * start, or died), every file goes to sha256File as before.
 */
import { Worker } from 'node:worker_threads';
import { sha256File } from './hash.js';

/** Files up to this size are hashed in the worker. */
export const SMALL_MAX = 1024 * 1024;

/** Most files per message: one group's reply waits for all of them. */
const GROUP_MAX = 64;

// The worker's code as a string (eval: true), so it needs no file of its own beside the bundles
// the app, the command line and the tests each build. CommonJS: an eval'd worker has `require`.
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
const buf = Buffer.allocUnsafe(${SMALL_MAX});
parentPort.on('message', (jobs) => {
  parentPort.postMessage(jobs.map(({ path, size }) => {
    let fd;
    try {
      fd = openSync(path, 'r');
      const h = createHash('sha256');
      // No read past the size the watcher saw (as sha256File): a file that grew since is taken in again.
      for (let total = 0; total < size; ) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, size - total), null);
        if (n === 0) break;
        h.update(buf.subarray(0, n));
        total += n;
      }
      return { sha: h.digest('hex') };
    } catch (e) {
      return { error: { message: e && e.message ? e.message : String(e), code: e && e.code } };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }));
});
`;

interface Job {
  path: string;
  size: number;
  resolve: (sha: string) => void;
  reject: (e: Error) => void;
}
type Reply = { sha: string } | { error: { message: string; code?: string } };

class HashWorker {
  private worker: Worker | null = null;
  private broken = false;
  /** Asked for in this turn, not yet posted. */
  private next: Job[] = [];
  /** Posted groups, in order (the worker answers them in order). */
  private readonly sent: Job[][] = [];

  hash(path: string, size: number): Promise<string> {
    const w = this.broken ? null : this.start();
    if (!w) return sha256File(path, size);
    return new Promise((resolve, reject) => {
      this.next.push({ path, size, resolve, reject });
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
      w.on('error', (e) => this.fail(e));
      w.on('exit', () => this.fail(new Error('the hashing thread stopped')));
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
      for (const j of group) sha256File(j.path, j.size).then(j.resolve, j.reject);
      return;
    }
    this.sent.push(group);
    // Busy with a group: kept alive until it answers.
    if (this.sent.length === 1) this.worker.ref();
    this.worker.postMessage(group.map((j) => ({ path: j.path, size: j.size })));
  }

  private answer(replies: Reply[]): void {
    const group = this.sent.shift() ?? [];
    if (this.sent.length === 0) this.worker?.unref();
    group.forEach((j, i) => {
      const r = replies[i];
      if (r && 'sha' in r) j.resolve(r.sha);
      else j.reject(Object.assign(new Error(r?.error.message ?? 'no answer from the hashing thread'), { code: r?.error.code }));
    });
  }

  /** The worker is gone: what it had is hashed the old way, and so is everything after. */
  private fail(_e: unknown): void {
    if (this.broken) return;
    this.broken = true;
    this.worker = null;
    for (const group of this.sent.splice(0)) for (const j of group) sha256File(j.path, j.size).then(j.resolve, j.reject);
  }
}

let shared: HashWorker | undefined;

/** sha256 of the file's first `size` bytes (the watcher's size): in the worker when small, else streamed here. */
export function hashSeenFile(path: string, size: number): Promise<string> {
  if (size > SMALL_MAX) return sha256File(path, size);
  shared ??= new HashWorker();
  return shared.hash(path, size);
}
