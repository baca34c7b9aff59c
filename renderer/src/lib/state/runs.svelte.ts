/**
 * The Runs screen's data: one page of runs at a time (there may be thousands), kept current by
 * `run` events: a run on the page is replaced in place, a new run reloads the first page.
 */
import type { RunView } from '../../../../shared/ui/views.js';
import { bridge } from '../bridge.js';
import { runIsActive } from '../run-format.js';

export const RUNS_PAGE = 100;

class RunsState {
  rows = $state.raw<RunView[]>([]);
  total = $state(0);
  offset = $state(0);
  loading = $state(false);
  error = $state<string | null>(null);
  /** Ticks once a second while a run on the page is still going, for live durations. */
  now = $state(Date.now());

  #seq = 0;
  #reload: ReturnType<typeof setTimeout> | undefined;
  #tick: ReturnType<typeof setInterval> | undefined;

  get pageCount(): number {
    return Math.max(1, Math.ceil(this.total / RUNS_PAGE));
  }

  get page(): number {
    return Math.floor(this.offset / RUNS_PAGE) + 1;
  }

  async load(offset = this.offset): Promise<void> {
    const seq = ++this.#seq;
    this.loading = true;
    try {
      const page = await bridge.call('runs.page', { offset: Math.max(0, offset), limit: RUNS_PAGE });
      if (seq !== this.#seq) return;
      // A page past the end (runs were removed): step back to the last page.
      if (page.rows.length === 0 && page.total > 0 && offset > 0) return void (await this.load(Math.floor((page.total - 1) / RUNS_PAGE) * RUNS_PAGE));
      this.rows = page.rows;
      this.total = page.total;
      this.offset = page.offset;
      this.error = null;
      this.#syncTick();
    } catch (err) {
      if (seq === this.#seq) this.error = err instanceof Error ? err.message : String(err);
    } finally {
      if (seq === this.#seq) this.loading = false;
    }
  }

  next(): Promise<void> {
    return this.load(Math.min(this.offset + RUNS_PAGE, (this.pageCount - 1) * RUNS_PAGE));
  }

  prev(): Promise<void> {
    return this.load(Math.max(0, this.offset - RUNS_PAGE));
  }

  /** Subscribes to run events and loads; returns the unsubscribe for the view's $effect. */
  start(): () => void {
    void this.load();
    const off = bridge.on('run', (run) => this.#onRun(run));
    return () => {
      off();
      clearTimeout(this.#reload);
      clearInterval(this.#tick);
      this.#tick = undefined;
    };
  }

  #onRun(run: RunView): void {
    const i = this.rows.findIndex((r) => r.id === run.id);
    if (i >= 0) {
      this.rows = this.rows.with(i, run);
      this.#syncTick();
      return;
    }
    // A run not on this page: new runs land on the first page; coalesce bursts into one reload.
    clearTimeout(this.#reload);
    this.#reload = setTimeout(() => void this.load(), 300);
  }

  #syncTick(): void {
    const live = this.rows.some((r) => runIsActive(r));
    if (live && !this.#tick) this.#tick = setInterval(() => (this.now = Date.now()), 1000);
    if (!live && this.#tick) {
      clearInterval(this.#tick);
      this.#tick = undefined;
    }
    this.now = Date.now();
  }
}

export const runs = new RunsState();
