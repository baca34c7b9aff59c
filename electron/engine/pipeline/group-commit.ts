/**
 * Group commit (issue 14): store writes asked for in the same turn of the event loop go into one
 * SQLite transaction. Each caller's promise resolves only after that transaction has committed, so
 * "stored before acted on" holds for every file; what is saved is a commit per file and step, which
 * was most of the engine's own cost per small file (measured with `bench:hot-folder` and a CPU profile).
 *
 * Events announced while a grouped write runs are held and sent after the commit: the store is the
 * truth, events are news. A write that throws is rolled back alone (the group then runs again, a savepoint each) and only its
 * caller sees the error; a commit that fails rejects every caller of the group and sends nothing.
 */
import type { Store } from '../store/index.js';

/** Writes per transaction at most: a very long one would hold the store's write lock for others too long. */
const MAX_GROUP = 500;

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  /** Announcements made during the running group, sent once it is committed; null outside a group. */
  private held: (() => void)[] | null = null;

  /** `onError`: a listener that threw while a held announcement was sent (the others are still sent). */
  constructor(private readonly store: Store, private readonly onError: (e: unknown) => void) {}

  /** Runs `fn` (synchronous store writes) in the next group's transaction; resolves with its result once committed. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not a microtask: writes of every callback of this turn (each finished hash or upload) join.
        setImmediate(() => this.flush());
      }
    });
  }

  /** `send` now, or after the running group's commit when called from inside one. */
  announce(send: () => void): void {
    if (this.held) this.held.push(send);
    else send();
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length) this.commitGroup(this.queue.splice(0, MAX_GROUP));
  }

  private commitGroup(group: Pending[]): void {
    const held: (() => void)[] = [];
    this.held = held;
    let outcomes: { ok: boolean; value: unknown }[];
    try {
      const all = this.whole(group);
      if (all) outcomes = all;
      else {
        held.length = 0;
        outcomes = this.oneByOne(group, held);
      }
    } catch (e) {
      this.held = null;
      for (const p of group) p.reject(e);
      return;
    }
    this.held = null;
    for (const send of held) {
      try {
        send();
      } catch (e) {
        this.onError(e);
      }
    }
    group.forEach((p, i) => {
      const o = outcomes[i] as { ok: boolean; value: unknown };
      if (o.ok) p.resolve(o.value);
      else p.reject(o.value);
    });
  }

  /**
   * The usual case: every write of the group in one transaction without a savepoint each (a
   * SAVEPOINT and a RELEASE per write and step were a measurable part of the CPU per file, issue 14).
   * Undefined when a write threw: the whole transaction was rolled back and oneByOne runs the group
   * again (the writes only touch the store and announce, so running them again is safe).
   */
  private whole(group: Pending[]): { ok: boolean; value: unknown }[] | undefined {
    const values: unknown[] = [];
    let threw = false;
    try {
      this.store.transaction(() => {
        for (const p of group) {
          try {
            values.push(p.fn());
          } catch (e) {
            threw = true;
            throw e;
          }
        }
      });
    } catch (e) {
      if (threw) return undefined;
      throw e;
    }
    return values.map((value) => ({ ok: true, value }));
  }

  /** Each write in a savepoint of its own, so a failing one leaves the others of the group in place. */
  private oneByOne(group: Pending[], held: (() => void)[]): { ok: boolean; value: unknown }[] {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    this.store.transaction(() => {
      for (const p of group) {
        const mark = held.length;
        try {
          outcomes.push({ ok: true, value: this.store.transaction(p.fn) });
        } catch (e) {
          held.length = mark;
          outcomes.push({ ok: false, value: e });
        }
      }
    });
    return outcomes;
  }
}
