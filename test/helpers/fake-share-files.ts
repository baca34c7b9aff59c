/**
 * An in-memory stand-in for the service's filesystem, for the share protocol's schedule tests.
 * Mocked because thousands of seeded interleavings cannot run against a real service in a test:
 * the real one is covered by test/integration/share. Each operation is atomic; WHEN it happens
 * is decided by a seeded scheduler that interleaves the operations of several agents, moves a
 * fake clock, and pauses or crashes agents.
 */
import type { ShareFiles } from '../../electron/engine/share/files.js';
import type { ShareClock } from '../../electron/engine/share/liveness.js';
import { seededRandom } from '../../shared/seeded-random.js';

interface Task {
  actor: string;
  readyAt: number;
  run: () => void;
}

interface Actor {
  pausedUntil: number;
  crashed: boolean;
}

/**
 * Lets every continuation of a resolved promise run (they are queued behind it as microtasks): Node
 * runs a tick callback only once the microtask queue is empty. Were it ever too early, the next step
 * would come between a check and its act: more interleavings, never fewer.
 */
const settle = (): Promise<void> => new Promise((r) => process.nextTick(r));

export class Scheduler {
  now = 0;
  readonly random: () => number;
  readonly #tasks: Task[] = [];
  readonly #actors = new Map<string, Actor>();
  readonly #events: { at: number; fire: () => void }[] = [];
  steps = 0;
  /** When the last pause ends. */
  pausesEndAt = 0;

  constructor(seed: number, private readonly maxStepMs: number) {
    this.random = seededRandom(seed);
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  #actor(id: string): Actor {
    let a = this.#actors.get(id);
    if (!a) this.#actors.set(id, (a = { pausedUntil: 0, crashed: false }));
    return a;
  }

  /** From `at` on, the actor's operations wait until `at + ms` (SIGSTOP, a frozen VM). */
  pauseAt(actor: string, at: number, ms: number): void {
    this.pausesEndAt = Math.max(this.pausesEndAt, at + ms);
    this.#events.push({ at, fire: () => (this.#actor(actor).pausedUntil = Math.max(this.#actor(actor).pausedUntil, at + ms)) });
  }

  /** From `at` on, the actor does nothing more, ever (kill -9). */
  crashAt(actor: string, at: number): void {
    this.#events.push({ at, fire: () => (this.#actor(actor).crashed = true) });
  }

  crashed(actor: string): boolean {
    return this.#actor(actor).crashed;
  }

  /** Runs `run` as one atomic step of `actor`, not before `readyAt`. */
  enqueue(actor: string, readyAt: number, run: () => void): void {
    this.#actor(actor);
    this.#tasks.push({ actor, readyAt, run });
  }

  sleep(actor: string, ms: number): Promise<void> {
    return new Promise((resolve) => this.enqueue(actor, this.now + ms, resolve));
  }

  /** An operation of `actor`: `op` runs atomically when the scheduler picks it, and its result is delivered at once. */
  op<T>(actor: string, op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => this.enqueue(actor, this.now, () => {
      try {
        resolve(op());
      } catch (e) {
        reject(e as Error);
      }
    }));
  }

  #fireEvents(): void {
    for (let i = this.#events.length - 1; i >= 0; i--) {
      const e = this.#events[i]!;
      if (e.at <= this.now) {
        this.#events.splice(i, 1);
        e.fire();
      }
    }
  }

  /** What is waiting, as `actor@readyAt`: for a failing seed's printout. */
  pending(): string[] {
    return this.#tasks.map((t) => `${t.actor}@${Math.round(t.readyAt)}`);
  }

  /** Steps until `done()` or `untilMs` of fake time; returns whether done() held. */
  async run(done: () => boolean, untilMs: number): Promise<boolean> {
    await settle();
    while (!done()) {
      if (this.#events.length > 0) this.#fireEvents();
      const eligible: Task[] = [];
      let wake = Number.POSITIVE_INFINITY;
      for (const t of this.#tasks) {
        const a = this.#actors.get(t.actor)!;
        if (a.crashed) continue;
        const at = Math.max(t.readyAt, a.pausedUntil);
        if (at <= this.now) eligible.push(t);
        else if (at < wake) wake = at;
      }
      if (eligible.length === 0) {
        for (const e of this.#events) wake = Math.min(wake, e.at);
        if (!Number.isFinite(wake) || wake > untilMs) return done();
        this.now = Math.max(this.now, wake);
        continue;
      }
      const t = eligible[Math.floor(this.random() * eligible.length)]!;
      const step = this.random() * this.maxStepMs;
      // Out of time: the task stays queued for a later run().
      if (this.now + step > untilMs) return done();
      this.#tasks.splice(this.#tasks.indexOf(t), 1);
      this.now += step;
      this.steps++;
      t.run();
      await settle();
    }
    return true;
  }
}

/** The service's files: bytes by path, and each folder's names (folders appear as files are put in them). */
export class FakeStore {
  readonly files = new Map<string, Uint8Array>();
  readonly #folders = new Map<string, Set<string>>();
  readonly #parsed = new Map<string, Record<string, unknown>>();
  /** Grows with every write: lets observers cache what they computed from the store. */
  version = 0;

  set(path: string, data: Uint8Array): void {
    this.files.set(path, data);
    this.#parsed.delete(path);
    this.version++;
    for (let p = path, i = p.lastIndexOf('/'); i > 0; p = p.slice(0, i), i = p.lastIndexOf('/')) {
      const folder = p.slice(0, i);
      let names = this.#folders.get(folder);
      if (!names) this.#folders.set(folder, (names = new Set()));
      if (names.has(p.slice(i + 1))) break;
      names.add(p.slice(i + 1));
    }
  }

  list(folder: string): string[] {
    return [...(this.#folders.get(folder) ?? [])].sort();
  }

  isFolder(path: string): boolean {
    return this.#folders.has(path);
  }

  json(path: string): Record<string, unknown> | null {
    let v = this.#parsed.get(path);
    if (v) return v;
    const b = this.files.get(path);
    if (!b) return null;
    v = JSON.parse(Buffer.from(b).toString('utf8')) as Record<string, unknown>;
    this.#parsed.set(path, v);
    return v;
  }
}

/** Failures of the service as a caller sees them once its client's retries are spent. */
export interface FakeFaults {
  /** The call fails and nothing happened (refused, 5xx). */
  before: number;
  /** The call took effect but its answer was lost. */
  after: number;
}

/** One agent's view of the store: every call is a scheduled, atomic step of that agent. */
export function fakeShareFiles(store: FakeStore, sched: Scheduler, actor: string, faults: FakeFaults = { before: 0, after: 0 }): ShareFiles {
  const counts: Record<string, number> = { create: 0, overwrite: 0, read: 0, exists: 0, list: 0 };
  const op = <T>(kind: string, fn: () => T): Promise<T> => {
    counts[kind]!++;
    return sched.op(actor, () => {
      const r = sched.random();
      if (r < faults.before) throw new Error('the service did not answer (nothing happened)');
      const result = fn();
      if (r < faults.before + faults.after) throw new Error('the answer was lost (it did happen)');
      return result;
    });
  };
  return {
    create: (path, data, guard) => op('create', () => {
      guard?.(); // right before the request would be sent: here, the atomic step itself
      if (store.files.has(path)) return 'exists' as const;
      store.set(path, data);
      return 'created' as const;
    }),
    overwrite: (path, data, guard) => op('overwrite', () => (guard?.(), store.set(path, data))),
    read: (path) => op('read', () => store.files.get(path) ?? null),
    exists: (path) => op('exists', () => store.files.has(path) || store.isFolder(path)),
    list: (folder) => op('list', () => store.list(folder)),
    calls: () => ({ ...counts }),
  };
}

export function fakeClock(sched: Scheduler, actor: string): ShareClock {
  return { now: () => sched.now, wallNow: () => 1_800_000_000_000 + Math.floor(sched.now), sleep: (ms) => sched.sleep(actor, ms) };
}

/** Files over the store with no scheduler: each call happens at once, and is logged as `kind path`. */
export function immediateShareFiles(store: FakeStore, log: string[] = []): ShareFiles & { log: string[] } {
  const counts: Record<string, number> = { create: 0, overwrite: 0, read: 0, exists: 0, list: 0 };
  const op = <T>(kind: string, path: string, fn: () => T): Promise<T> => {
    counts[kind]!++;
    log.push(`${kind} ${path}`);
    return Promise.resolve(fn());
  };
  return {
    log,
    create: (path, data) => op('create', path, () => (store.files.has(path) ? ('exists' as const) : (store.set(path, data), 'created' as const))),
    overwrite: (path, data) => op('overwrite', path, () => store.set(path, data)),
    read: (path) => op('read', path, () => store.files.get(path) ?? null),
    exists: (path) => op('exists', path, () => store.files.has(path) || store.isFolder(path)),
    list: (folder) => op('list', folder, () => store.list(folder)),
    calls: () => ({ ...counts }),
  };
}
