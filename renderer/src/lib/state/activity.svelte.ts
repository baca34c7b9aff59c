/**
 * Activity's queue: a window onto every file the engine knows (100,000 and more), fetched by page
 * through `files.page` and cached (lib/page-cache.ts), refetched when `file` or `status` events say
 * something changed. Also the upload progress, the selected and opened row, and the row actions.
 */
import { SvelteMap } from 'svelte/reactivity';
import type { FileState } from '../../../../shared/file-states.js';
import type { FileHistoryEntry, FileView, Transfer } from '../../../../shared/ui/views.js';
import { bridge } from '../bridge.js';
import { PageCache } from '../page-cache.js';
import { pagesFor } from '../virtual.js';
import { app, message } from './app.svelte.js';

export const PAGE_SIZE = 200;
/** 30 pages of 200: the rows around the view and where the person came from, not the whole queue. */
const MAX_PAGES = 30;
/** Rows fetched beyond each end of the view, so rows scrolled into view are there already. */
const PREFETCH_ROWS = 200;
/** Events come in bursts while a batch moves: refetch once they settle, and at least this often while they don't. */
const REFRESH_QUIET_MS = 250;
const REFRESH_MAX_WAIT_MS = 1000;

export interface ActivityFilter {
  /** Empty: every state. */
  states: FileState[];
  /** null: every folder; 0: files dropped in by hand. */
  folderId: number | null;
  name: string;
}

export type HistoryEntry = FileHistoryEntry[] | { error: string } | 'loading';

class ActivityState {
  filter = $state.raw<ActivityFilter>({ states: [], folderId: null, name: '' });
  total = $state(0);
  loaded = $state(false);
  error = $state<string | null>(null);
  /** Bumped when the filter changes: the view scrolls back to the top. */
  resets = $state(0);
  transfers = $state.raw(new Map<number, Transfer>());
  selected = $state(0);
  /** The opened row: its index and the file it showed when opened. */
  opened = $state.raw<{ index: number; id: number } | null>(null);
  history = $state.raw(new Map<number, HistoryEntry>());
  /** Where a file is kept, for hosts that cannot open a file manager (headless). */
  revealedPath = $state.raw(new Map<number, string>());
  /** Files with an action on the way (buttons are disabled meanwhile). */
  busy = $state.raw(new Set<number>());

  private cache = new PageCache<FileView>(PAGE_SIZE, MAX_PAGES);
  /** Bumped per page when its cached rows change: a row shown re-reads only when its own page changed. */
  private pageVersion = new SvelteMap<number, number>();
  private range = { start: 0, end: 0 };
  private quietTimer: ReturnType<typeof setTimeout> | undefined;
  private maxTimer: ReturnType<typeof setTimeout> | undefined;
  private started = false;

  start(): () => void {
    if (this.started) return () => {};
    this.started = true;
    const offs = [
      bridge.on('file', (f) => this.onFile(f)),
      bridge.on('status', (s) => {
        this.setTransfers(s.transfers);
        this.scheduleRefresh();
      }),
      bridge.on('progress', (list) => this.setTransfers(list)),
    ];
    // The app already asks for the status (counting 100,000 rows is not free): take its transfers.
    if (app.status) this.setTransfers(app.status.transfers);
    this.refresh();
    return () => {
      for (const off of offs) off();
      clearTimeout(this.quietTimer);
      clearTimeout(this.maxTimer);
      this.quietTimer = this.maxTimer = undefined;
      this.started = false;
    };
  }

  /** The row at index `i`, when its page has arrived. */
  row(i: number): FileView | undefined {
    void this.resets;
    this.pageVersion.get(Math.floor(i / PAGE_SIZE));
    return this.cache.row(i);
  }

  /** The view shows rows [start, end): fetch the pages not cached yet. */
  show(start: number, end: number): void {
    this.range = { start, end };
    this.fetchVisible();
  }

  setFilter(f: Partial<ActivityFilter>): void {
    this.filter = { ...this.filter, ...f };
    this.cache.reset();
    this.loaded = false;
    this.selected = 0;
    this.opened = null;
    this.range = { start: 0, end: Math.max(1, this.range.end - this.range.start) };
    this.resets++;
    // Every row re-reads through `resets`; the versions start again for the new filter.
    this.pageVersion.clear();
    this.fetchVisible();
  }

  toggleState(s: FileState): void {
    const has = this.filter.states.includes(s);
    this.setFilter({ states: has ? this.filter.states.filter((x) => x !== s) : [...this.filter.states, s] });
  }

  /** Refetch what is shown (the engine said something changed). */
  refresh(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.quietTimer = this.maxTimer = undefined;
    this.cache.invalidate();
    this.fetchVisible();
  }

  select(i: number): void {
    this.selected = Math.max(0, Math.min(this.total - 1, i));
  }

  /** Opens or closes the row at `i` (its history is loaded on open). */
  toggle(i: number): void {
    const f = this.row(i);
    if (!f) return;
    this.selected = i;
    if (this.opened?.id === f.id) {
      this.opened = null;
      return;
    }
    this.opened = { index: i, id: f.id };
    void this.loadHistory(f.id);
  }

  /** The opened row's index, if it still shows the file it was opened on. */
  openIndex(): number | null {
    const o = this.opened;
    return o && this.row(o.index)?.id === o.id ? o.index : null;
  }

  async retry(f: FileView): Promise<void> {
    await this.act(f, async () => this.onFile(await bridge.call('files.retry', { id: f.id })));
  }

  async cancel(f: FileView): Promise<void> {
    await this.act(f, async () => this.onFile(await bridge.call('files.cancel', { id: f.id })));
  }

  /** Shows the file in the OS file manager; where the host cannot (headless), shows its path in the opened row. */
  async reveal(f: FileView, i: number): Promise<void> {
    await this.act(f, async () => {
      const r = await bridge.call('files.reveal', { id: f.id });
      if (r.revealed) return;
      this.revealedPath = new Map(this.revealedPath).set(f.id, r.path);
      if (this.opened?.id !== f.id) this.toggle(i);
    });
  }

  private async act(f: FileView, fn: () => Promise<void>): Promise<void> {
    if (this.busy.has(f.id)) return;
    this.busy = new Set(this.busy).add(f.id);
    try {
      await fn();
    } catch (e) {
      app.notifyError(e, `${f.name}: `, `files:${f.id}`);
    } finally {
      const next = new Set(this.busy);
      next.delete(f.id);
      this.busy = next;
    }
  }

  private async loadHistory(id: number): Promise<void> {
    if (!this.history.has(id)) this.history = new Map(this.history).set(id, 'loading');
    let entry: HistoryEntry;
    try {
      entry = await bridge.call('files.history', { id });
    } catch (e) {
      entry = { error: message(e) };
    }
    this.history = new Map(this.history).set(id, entry);
  }

  private changed(page: number): void {
    this.pageVersion.set(page, (this.pageVersion.get(page) ?? 0) + 1);
  }

  private onFile(f: FileView): void {
    for (const p of this.cache.patch(f)) this.changed(p);
    if (this.opened?.id === f.id) void this.loadHistory(f.id);
    this.scheduleRefresh();
  }

  private setTransfers(list: Transfer[]): void {
    this.transfers = new Map(list.map((t) => [t.fileId, t]));
  }

  private scheduleRefresh(): void {
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.refresh(), REFRESH_QUIET_MS);
    this.maxTimer ??= setTimeout(() => this.refresh(), REFRESH_MAX_WAIT_MS);
  }

  private query(): { states?: FileState[]; folderId?: number; name?: string } {
    const { states, folderId, name } = this.filter;
    return {
      ...(states.length > 0 ? { states: [...states] } : {}),
      ...(folderId !== null ? { folderId } : {}),
      ...(name.trim() ? { name: name.trim() } : {}),
    };
  }

  private fetchVisible(): void {
    const { start, end } = this.range;
    const pages = pagesFor(start, Math.max(end, start + 1), PAGE_SIZE);
    const last = this.loaded ? this.total : end;
    const near = pagesFor(Math.max(0, start - PREFETCH_ROWS), Math.max(end, Math.min(last, end + PREFETCH_ROWS)), PAGE_SIZE);
    // The rows in view first, then those around them.
    for (const p of this.cache.wanted(pages)) void this.fetchPage(p, near);
    for (const p of this.cache.wanted(near.filter((n) => !pages.includes(n)))) void this.fetchPage(p, near);
  }

  private async fetchPage(page: number, keep: number[]): Promise<void> {
    const ticket = this.cache.begin(page);
    try {
      const res = await bridge.call('files.page', { ...this.query(), offset: page * PAGE_SIZE, limit: PAGE_SIZE });
      const settled = this.cache.settle(ticket, res.rows, keep);
      if (settled === 'dropped') return;
      this.total = res.total;
      if (this.selected >= res.total) this.selected = Math.max(0, res.total - 1);
      this.loaded = true;
      this.error = null;
      // A refetch that found the same rows (the usual case after an event) changes nothing shown.
      if (settled === 'changed') this.changed(page);
    } catch (e) {
      this.cache.fail(ticket);
      this.error = message(e);
      this.loaded = true;
    }
  }
}

export const activity = new ActivityState();
