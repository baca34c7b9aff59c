/**
 * A bounded pool of tesseract.js workers (each a worker thread, so OCR never blocks the sandbox's
 * event loop). Workers start on first use, are reused across files and runs, and stop after a spell
 * of idleness or when the pool is closed. English LSTM data comes from the installed
 * @tesseract.js-data/eng package: nothing is downloaded.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { createWorker, OEM } from 'tesseract.js';
import type { Worker } from 'tesseract.js';

export interface OcrPoolOptions {
  /** Most workers at once; default one per core. */
  size?: number;
  /** Idle workers stop after this long without work (they start again when needed). Default 5 minutes. */
  idleMs?: number;
}

/** Directory of the English traineddata shipped by @tesseract.js-data/eng (LSTM "best_int" model). */
export function engLangPath(): string {
  const pkg = createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json');
  return path.join(path.dirname(pkg), '4.0.0_best_int');
}

export class OcrPool {
  readonly size: number;
  private readonly idleMs: number;
  private readonly idle: Worker[] = [];
  private readonly waiting: ((w: Worker) => void)[] = [];
  private live = 0;
  private busy = 0;
  private closed = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly all = new Set<Worker>();

  constructor(opts: OcrPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(opts.size ?? availableParallelism()));
    this.idleMs = opts.idleMs ?? 5 * 60_000;
  }

  /** Workers started and not stopped. */
  get workers(): number {
    return this.live;
  }

  /** Workers reading a page now. */
  get active(): number {
    return this.busy;
  }

  /** Runs `fn` with a worker of its own; waits for one when all are busy. */
  async run<T>(fn: (w: Worker) => Promise<T>): Promise<T> {
    const w = await this.acquire();
    this.busy++;
    let failed = false;
    try {
      return await fn(w);
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      this.busy--;
      // A worker that failed may be in any state: replace it rather than reuse it.
      if (failed) this.retire(w);
      else this.release(w);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearIdleTimer();
    const all = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    this.live = 0;
    await Promise.all(all.map((w) => w.terminate().catch(() => undefined)));
  }

  private async acquire(): Promise<Worker> {
    if (this.closed) throw new Error('OCR is not available: the sandbox is shutting down');
    this.clearIdleTimer();
    const ready = this.idle.pop();
    if (ready) return ready;
    if (this.live < this.size) {
      this.live++;
      try {
        const w = await createWorker('eng', OEM.LSTM_ONLY, { langPath: engLangPath(), cacheMethod: 'none', gzip: true });
        if (this.closed) {
          await w.terminate().catch(() => undefined);
          throw new Error('OCR is not available: the sandbox is shutting down');
        }
        this.all.add(w);
        return w;
      } catch (err) {
        if (!this.closed) this.live--;
        throw err;
      }
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(w: Worker): void {
    if (this.closed) return;
    const next = this.waiting.shift();
    if (next) return next(w);
    this.idle.push(w);
    if (this.busy === 0) this.armIdleTimer();
  }

  private retire(w: Worker): void {
    this.all.delete(w);
    void w.terminate().catch(() => undefined);
    if (this.closed) return;
    this.live--;
    // Someone waiting gets a fresh worker in place of the retired one.
    const next = this.waiting.shift();
    if (next) this.acquire().then(next, () => this.waiting.unshift(next));
  }

  private armIdleTimer(): void {
    this.clearIdleTimer();
    this.idleTimer = setTimeout(() => {
      const stopping = this.idle.splice(0);
      for (const w of stopping) {
        this.all.delete(w);
        this.live--;
        void w.terminate().catch(() => undefined);
      }
    }, this.idleMs);
    // An idle pool must not keep a process alive.
    this.idleTimer.unref();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}

let shared: OcrPool | null = null;

/**
 * The pool of callers that bring none (tests, tools). Its workers stop soon after their last page,
 * so they never keep a process alive for long; the sandbox has its own pool, closed with it.
 */
export function sharedOcrPool(): OcrPool {
  shared ??= new OcrPool({ idleMs: 2000 });
  return shared;
}
