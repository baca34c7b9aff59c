/**
 * The engine's memory budget (issue 14): a full collection asked of V8 when enough garbage has piled
 * up since the last one, the process is past a floor, and not more often than a minimum interval.
 *
 * Why: while results are stored, each page's HTTP body (several MB, as Buffers outside V8's heap, on
 * malloc's heap) stays allocated until V8's next full collection, and V8, its own heap small and
 * calm then, waits for about 64 MB of them; malloc's heap and RSS grow with them.
 *
 * And a scavenge (a young-generation collection, a few ms) whenever external memory has grown by a
 * few MB: a results page read with node:http leaves about 4 MB of 64 KB chunks (the HTTP parser's
 * copies, raw-get.ts) that are young garbage at once; freed now, malloc reuses them for the next page
 * instead of growing its heap until V8 gets round to them.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemoryUse {
  rss: number;
  /** V8's heap in use outside the young generation (its garbage goes in cheap scavenges, not here). */
  heapUsed: number;
  /** Memory outside V8's heap held by its objects: buffers, and more (large strings, native objects). */
  external: number;
}

const YOUNG = new Set(['new_space', 'new_large_object_space']);

export function memoryUse(): MemoryUse {
  const m = process.memoryUsage();
  let young = 0;
  for (const s of getHeapSpaceStatistics()) if (YOUNG.has(s.space_name)) young += s.space_used_size;
  return { rss: m.rss, heapUsed: m.heapUsed - young, external: m.external };
}

export interface MemoryBudgetOptions {
  /** Below this RSS (bytes) nothing is collected: a small process never pays. */
  rssFloor: number;
  /** Growth since the last collection (V8 heap in use + external memory, bytes) worth collecting. */
  slack: number;
  /** At most one collection this often (ms). */
  minIntervalMs: number;
  /** External memory grown since the last collection of either kind that is worth a scavenge (bytes; no floor, no interval). */
  youngSlack: number;
}

export const MEMORY_BUDGET: MemoryBudgetOptions = { rssFloor: 160 * 1024 * 1024, slack: 24 * 1024 * 1024, minIntervalMs: 250, youngSlack: 4 * 1024 * 1024 };

let exposedGc: (() => void) | null | undefined;

/** V8's gc(), without a command-line flag (works wherever the engine is hosted); null where it cannot be had. */
export function fullCollection(): (() => void) | null {
  if (exposedGc === undefined) {
    try {
      // The flag applies to contexts made after it: a new one hands out its gc().
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as unknown;
      exposedGc = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      exposedGc = null;
    }
  }
  return exposedGc;
}

/** A young-generation collection (V8's scavenge): what died young goes, ArrayBuffers' memory with it. */
export function youngCollection(): (() => void) | null {
  const gc = fullCollection() as ((o?: { type: 'minor' }) => void) | null;
  return gc ? () => gc({ type: 'minor' }) : null;
}

export interface MemoryBudgetDeps {
  usage: () => MemoryUse;
  collect: (() => void) | null;
  scavenge: (() => void) | null;
  now: () => number;
}

export class MemoryBudget {
  /** Collections made, and the time they took (ms): for the bench. */
  collections = 0;
  collectMs = 0;
  scavenges = 0;
  scavengeMs = 0;
  #lastAt = -Infinity;
  /** Heap in use and external memory just after the last collection (or the lowest seen since: V8 collects on its own too). */
  #heapBase = 0;
  #externalBase = 0;
  /** External memory after the last collection of either kind (or the lowest seen since). */
  #youngBase = 0;
  readonly #o: MemoryBudgetOptions;
  readonly #d: MemoryBudgetDeps;

  constructor(o: MemoryBudgetOptions = MEMORY_BUDGET, deps: Partial<MemoryBudgetDeps> = {}) {
    this.#o = o;
    this.#d = {
      usage: deps.usage ?? memoryUse,
      collect: deps.collect === undefined ? fullCollection() : deps.collect,
      scavenge: deps.scavenge === undefined ? youngCollection() : deps.scavenge,
      now: deps.now ?? (() => performance.now()),
    };
  }

  /** Collects when it is worth it (see the module comment); true when it made a full collection. Cheap otherwise. */
  check(): boolean {
    const { collect, scavenge } = this.#d;
    if (!collect && !scavenge) return false;
    const now = this.#d.now();
    const u = this.#d.usage();
    this.#heapBase = Math.min(this.#heapBase, u.heapUsed);
    this.#externalBase = Math.min(this.#externalBase, u.external);
    this.#youngBase = Math.min(this.#youngBase, u.external);
    const full =
      collect &&
      now - this.#lastAt >= this.#o.minIntervalMs &&
      u.rss >= this.#o.rssFloor &&
      u.heapUsed - this.#heapBase + (u.external - this.#externalBase) >= this.#o.slack;
    if (full) {
      collect();
      const after = this.#d.usage();
      this.#lastAt = this.#d.now();
      this.collections++;
      this.collectMs += this.#lastAt - now;
      this.#heapBase = after.heapUsed;
      this.#externalBase = after.external;
      this.#youngBase = after.external;
      return true;
    }
    if (scavenge && u.external - this.#youngBase >= this.#o.youngSlack) {
      scavenge();
      this.scavenges++;
      this.scavengeMs += this.#d.now() - now;
      this.#youngBase = this.#d.usage().external;
    }
    return false;
  }
}
