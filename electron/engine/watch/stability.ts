/**
 * Stability rule (issue 4): a file is taken only when its size and mtime are unchanged for the folder's
 * threshold. The tracker is pure: callers feed it observations with the time they were made; it never reads
 * the clock or the disk. Stability is proven by observations: a file seen at t0 and again, unchanged, at
 * t1 >= t0 + threshold is stable; time passing without a fresh look proves nothing. Each version of a file
 * (size + mtime) is reported once; a reported file that changes is tracked again and reported again when
 * it settles. `recheck` confirms on disk, right before and after upload, that a file is still what was seen.
 *
 * Quick rule (issue 14), when a `quickMs` shorter than the threshold is given: a version seen unchanged
 * over `quickMs` may be proven stable at once by the caller (`quickCandidates`, then `settle` when no
 * program has it open for writing, or `refuseQuick`, leaving it to the threshold).
 */
import { stat } from 'node:fs/promises';
import type { FileObservation } from './scan.js';

export type { FileObservation } from './scan.js';

interface Tracked {
  size: number;
  mtimeMs: number;
  /** When this version was first seen. */
  since: number;
  /** Latest observation of this version. */
  lastSeen: number;
  /** The quick rule for this version: to be asked (at `askAt`, in a fresh look), proven stable, or not for it (nobody can tell). */
  quick: 'ask' | 'yes' | 'never';
  askAt: number;
}

export const sameVersion = (a: { size: number; mtimeMs: number }, b: { size: number; mtimeMs: number }): boolean =>
  a.size === b.size && a.mtimeMs === b.mtimeMs;

export class StabilityTracker {
  private readonly files = new Map<string, Tracked>();
  /**
   * The paths not yet reported: what the per-look questions below go over. A folder that keeps
   * 50,000 files it reported long ago is not walked whole on every look at a new one.
   */
  private readonly settling = new Map<string, Tracked>();

  /** Set only when shorter than the threshold. */
  readonly quickMs: number | undefined;

  constructor(
    readonly thresholdMs: number,
    quickMs?: number,
  ) {
    if (!(thresholdMs >= 0)) throw new RangeError(`thresholdMs must be >= 0, got ${thresholdMs}`);
    this.quickMs = quickMs !== undefined && quickMs >= 0 && quickMs < thresholdMs ? quickMs : undefined;
  }

  /** Record one observation made at `now`. Returns true when it is a new or changed version. */
  observe(obs: FileObservation, now: number): boolean {
    const t = this.files.get(obs.path);
    if (t && sameVersion(t, obs)) {
      if (now > t.lastSeen) t.lastSeen = now;
      return false;
    }
    const fresh: Tracked = { size: obs.size, mtimeMs: obs.mtimeMs, since: now, lastSeen: now, quick: 'ask', askAt: now + (this.quickMs ?? 0) };
    this.files.set(obs.path, fresh);
    this.settling.set(obs.path, fresh);
    return true;
  }

  /** The file is gone (or no longer a candidate). Returns true when it was tracked. */
  forget(path: string): boolean {
    this.settling.delete(path);
    return this.files.delete(path);
  }

  /** Forget every tracked path starting with `prefix` (the files of a folder that went away); returns them. */
  forgetUnder(prefix: string): string[] {
    const gone: string[] = [];
    for (const p of this.files.keys()) if (p.startsWith(prefix)) gone.push(p);
    for (const p of gone) this.forget(p);
    return gone;
  }

  /**
   * Record a complete scan made at `now`: each entry is observed, and every tracked path absent from the
   * scan is forgotten. Returns the forgotten paths.
   */
  observeScan(entries: Iterable<FileObservation>, now: number): string[] {
    const seen = new Set<string>();
    for (const e of entries) {
      seen.add(e.path);
      this.observe(e, now);
    }
    const removed: string[] = [];
    for (const p of this.files.keys()) if (!seen.has(p)) removed.push(p);
    for (const p of removed) this.forget(p);
    return removed;
  }

  /** Versions proven stable and not yet reported; marks them reported. */
  takeStable(): FileObservation[] {
    const out: FileObservation[] = [];
    for (const [path, t] of this.settling) {
      if (t.quick === 'yes' || t.lastSeen - t.since >= this.thresholdMs) {
        this.settling.delete(path); // (deleting the entry being visited is safe for a Map)
        out.push({ path, size: t.size, mtimeMs: t.mtimeMs });
      }
    }
    return out;
  }

  /** Paths not yet reported (still settling), for a targeted re-look. */
  unsettled(): string[] {
    const out: string[] = [];
    for (const p of this.settling.keys()) out.push(p);
    return out;
  }

  /** Unreported versions seen unchanged over quickMs (and since the last refusal): ask whether a program writes them. */
  quickCandidates(): string[] {
    const out: string[] = [];
    if (this.quickMs === undefined) return out;
    for (const [p, t] of this.settling) if (t.quick === 'ask' && t.lastSeen >= t.askAt) out.push(p);
    return out;
  }

  /** No program has this version open for writing: it is stable (reported by the next takeStable). */
  settle(path: string): void {
    const t = this.files.get(path);
    if (t && t.quick === 'ask') t.quick = 'yes';
  }

  /**
   * A program has this version open: asked again `quickMs` after `now` (a scanner may close a file a
   * moment after its last write), until the threshold proves it anyway. `never`: nobody can tell (another
   * user's file): it waits for the threshold.
   */
  refuseQuick(path: string, now: number, never = false): void {
    const t = this.files.get(path);
    if (!t || t.quick !== 'ask') return;
    if (never || this.quickMs === undefined) t.quick = 'never';
    else t.askAt = now + this.quickMs;
  }

  /** Earliest time a fresh observation could prove an unsettled file stable; undefined when none waits. */
  nextDueAt(): number | undefined {
    let due: number | undefined;
    for (const t of this.settling.values()) {
      const full = t.since + this.thresholdMs;
      const at = this.quickMs !== undefined && t.quick === 'ask' ? Math.min(t.askAt, full) : full;
      if (due === undefined || at < due) due = at;
    }
    return due;
  }

  /** Mark a path as not reported, so its current version is reported again once re-proven (a re-queue). */
  requeue(path: string, now: number): void {
    const t = this.files.get(path);
    if (!t) return;
    Object.assign(t, { since: now, lastSeen: now, quick: 'ask', askAt: now + (this.quickMs ?? 0) });
    this.settling.set(path, t);
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  get size(): number {
    return this.files.size;
  }
}

export type RecheckResult =
  | { ok: true; observation: FileObservation }
  | { ok: false; reason: 'missing' | 'not-a-file' }
  | { ok: false; reason: 'changed'; observation: FileObservation };

/** Look at the file again: is it still exactly the version that was found stable? */
export async function recheck(expected: FileObservation): Promise<RecheckResult> {
  let st;
  try {
    st = await stat(expected.path);
  } catch (err) {
    const c = (err as NodeJS.ErrnoException).code;
    if (c === 'ENOENT' || c === 'ENOTDIR') return { ok: false, reason: 'missing' };
    throw err;
  }
  if (!st.isFile()) return { ok: false, reason: 'not-a-file' };
  const observation = { path: expected.path, size: st.size, mtimeMs: st.mtimeMs };
  return sameVersion(observation, expected) ? { ok: true, observation } : { ok: false, reason: 'changed', observation };
}

/** Observe one path now (undefined when it is missing or not a file): the building block of targeted re-looks. */
export async function observePath(p: string): Promise<FileObservation | undefined> {
  try {
    const st = await stat(p);
    return st.isFile() ? { path: p, size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch (err) {
    const c = (err as NodeJS.ErrnoException).code;
    if (c === 'ENOENT' || c === 'ENOTDIR' || c === 'EACCES' || c === 'EPERM') return undefined;
    throw err;
  }
}
