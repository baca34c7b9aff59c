/**
 * Rows of a long server-side list, kept by page (Activity's queue). Pages are fetched when they come
 * into view, kept while recently used, and marked stale (still shown) when the engine says something
 * changed, so the view refetches them without flashing empty rows. A refetched row equal to the
 * cached one keeps the cached object, so views comparing by identity redo nothing. Pure: the caller
 * does the fetching.
 */

export interface Ticket {
  page: number;
  generation: number;
  epoch: number;
}

export class PageCache<T extends { id: number }> {
  /** Insertion order doubles as recency (oldest first), for eviction. */
  private pages = new Map<number, T[]>();
  private stale = new Set<number>();
  private inflight = new Map<number, Ticket>();
  /** Epoch each stored page was asked at: an older answer arriving late never replaces a newer one. */
  private asked = new Map<number, number>();
  /** Bumped by reset(): answers to older requests are dropped (the filter changed). */
  private generation = 0;
  /** Bumped by invalidate(): a page fetched before the bump is stale when it arrives. */
  private epoch = 0;

  constructor(
    readonly pageSize: number,
    readonly maxPages: number,
  ) {}

  row(i: number): T | undefined {
    return this.pages.get(Math.floor(i / this.pageSize))?.[i % this.pageSize];
  }

  has(page: number): boolean {
    return this.pages.has(page);
  }

  get size(): number {
    return this.pages.size;
  }

  /** Of the given pages, those to request now (absent or stale, and not already on the way); marks them used. */
  wanted(pages: number[]): number[] {
    const out: number[] = [];
    for (const p of pages) {
      const rows = this.pages.get(p);
      if (rows) {
        this.pages.delete(p);
        this.pages.set(p, rows);
      }
      const ticket = this.inflight.get(p);
      if (ticket && ticket.epoch === this.epoch) continue;
      if (!rows || this.stale.has(p)) out.push(p);
    }
    return out;
  }

  begin(page: number): Ticket {
    const t = { page, generation: this.generation, epoch: this.epoch };
    this.inflight.set(page, t);
    return t;
  }

  /**
   * Stores an answer: 'dropped' when it is for an older filter or older than what is stored,
   * 'unchanged' when every row equals the cached one. `keep` pages are never evicted.
   */
  settle(t: Ticket, rows: T[], keep: number[] = []): 'dropped' | 'unchanged' | 'changed' {
    if (this.inflight.get(t.page) === t) this.inflight.delete(t.page);
    if (t.generation !== this.generation) return 'dropped';
    if ((this.asked.get(t.page) ?? -1) > t.epoch) return 'dropped';
    this.asked.set(t.page, t.epoch);
    const old = this.pages.get(t.page);
    let same = old !== undefined && old.length === rows.length;
    const next = rows.map((r, k) => {
      const o = old?.[k];
      if (o !== undefined && shallowEqual(o, r)) return o;
      same = false;
      return r;
    });
    this.pages.delete(t.page);
    this.pages.set(t.page, next);
    if (t.epoch === this.epoch) this.stale.delete(t.page);
    else this.stale.add(t.page);
    this.evict(keep);
    return same ? 'unchanged' : 'changed';
  }

  /** A request failed: it may be asked again. */
  fail(t: Ticket): void {
    if (this.inflight.get(t.page) === t) this.inflight.delete(t.page);
  }

  /** Something changed on the engine's side: every page is kept for display but refetched when wanted. */
  invalidate(): void {
    this.epoch++;
    for (const p of this.pages.keys()) this.stale.add(p);
  }

  /** The query changed: forget everything. */
  reset(): void {
    this.generation++;
    this.epoch++;
    this.pages.clear();
    this.stale.clear();
    this.inflight.clear();
    this.asked.clear();
  }

  /** Replaces the cached copy of a row (same id) in place; returns the pages where it was found. */
  patch(row: T): number[] {
    const found: number[] = [];
    for (const [page, rows] of this.pages) {
      const i = rows.findIndex((r) => r.id === row.id);
      if (i >= 0) {
        rows[i] = row;
        found.push(page);
      }
    }
    return found;
  }

  private evict(keep: number[]): void {
    for (const p of this.pages.keys()) {
      if (this.pages.size <= this.maxPages) return;
      if (keep.includes(p)) continue;
      this.pages.delete(p);
      this.stale.delete(p);
      this.asked.delete(p);
    }
  }
}

/** Same own keys with identical values (rows are flat records of primitives). */
function shallowEqual(a: object, b: object): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
