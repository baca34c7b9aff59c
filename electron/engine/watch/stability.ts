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
  /** The last full scan that saw it (beginScan's count). */
  scan: number;
}

export const sameVersion = (a: { size: number; mtimeMs: number }, b: { size: number; mtimeMs: number }): boolean =>
  a.size === b.size && a.mtimeMs === b.mtimeMs;

/** Slots of the reported versions' table: size, mtimeMs, the last full scan that saw it. */
const SLOT = 3;

export class StabilityTracker {
  /**
   * The paths not yet reported (settling): what the per-look questions below go over. A folder that
   * keeps 50,000 files it reported long ago is not walked whole on every look at a new one.
   */
  private readonly settling = new Map<string, Tracked>();
  /**
   * The reported versions, compactly: path -> slot of `versions` (size, mtimeMs). An object per
   * reported file (and a boxed number for each of its four times) was 250 bytes a file, what a
   * folder of 50,000 kept for as long as it was watched (heap snapshot, issue 14); this is about 140,
   * most of it the path.
   */
  private readonly reported = new Map<string, number>();
  private versions = new Float64Array(SLOT * 1024);
  private readonly freeSlots: number[] = [];
  private usedSlots = 0;
  /** Full scans begun: what each entry's mark is compared with at the end of one. */
  private scans = 0;

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
    const t = this.settling.get(obs.path);
    if (t && sameVersion(t, obs)) {
      if (now > t.lastSeen) t.lastSeen = now;
      t.scan = this.scans;
      return false;
    }
    if (!t) {
      const slot = this.reported.get(obs.path);
      if (slot !== undefined) {
        if (this.versions[slot * SLOT] === obs.size && this.versions[slot * SLOT + 1] === obs.mtimeMs) {
          this.versions[slot * SLOT + 2] = this.scans;
          return false;
        }
        this.unreport(obs.path, slot);
      }
    }
    this.settling.set(obs.path, this.fresh(obs, now));
    return true;
  }

  /** The file is gone (or no longer a candidate). Returns true when it was tracked. */
  forget(path: string): boolean {
    const slot = this.reported.get(path);
    if (slot !== undefined) this.unreport(path, slot);
    return this.settling.delete(path) || slot !== undefined;
  }

  /** Forget every tracked path starting with `prefix` (the files of a folder that went away); returns them. */
  forgetUnder(prefix: string): string[] {
    const gone: string[] = [];
    for (const p of this.settling.keys()) if (p.startsWith(prefix)) gone.push(p);
    for (const p of this.reported.keys()) if (p.startsWith(prefix)) gone.push(p);
    for (const p of gone) this.forget(p);
    return gone;
  }

  /**
   * A full scan begins: each observation from here on marks its file seen, and endScan forgets the
   * files not seen (a mark on each entry, not a set of the 50,000 paths a scan saw). A scan that
   * fails is simply not ended: what it saw counts, nothing is forgotten.
   */
  beginScan(): void {
    this.scans++;
  }

  /** The full scan begun last is complete: forgets every tracked path it did not see, and returns them. */
  endScan(): string[] {
    const removed: string[] = [];
    for (const [p, t] of this.settling) if (t.scan !== this.scans) removed.push(p);
    for (const [p, slot] of this.reported) if (this.versions[slot * SLOT + 2] !== this.scans) removed.push(p);
    for (const p of removed) this.forget(p);
    return removed;
  }

  /** Versions proven stable and not yet reported; marks them reported. */
  takeStable(): FileObservation[] {
    const out: FileObservation[] = [];
    for (const [path, t] of this.settling) {
      if (t.quick === 'yes' || t.lastSeen - t.since >= this.thresholdMs) {
        this.settling.delete(path); // (deleting the entry being visited is safe for a Map)
        this.report(path, t.size, t.mtimeMs, t.scan);
        out.push({ path, size: t.size, mtimeMs: t.mtimeMs });
      }
    }
    return out;
  }

  /** The version reported for `path`, while it is the one on record (undefined: not reported, settling again, or forgotten). */
  reportedVersion(path: string): FileObservation | undefined {
    const slot = this.reported.get(path);
    return slot === undefined ? undefined : { path, size: this.versions[slot * SLOT] as number, mtimeMs: this.versions[slot * SLOT + 1] as number };
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
    const t = this.settling.get(path);
    if (t && t.quick === 'ask') t.quick = 'yes';
  }

  /**
   * A program has this version open: asked again `quickMs` after `now` (a scanner may close a file a
   * moment after its last write), until the threshold proves it anyway. `never`: nobody can tell (another
   * user's file): it waits for the threshold.
   */
  refuseQuick(path: string, now: number, never = false): void {
    const t = this.settling.get(path);
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
    const t = this.settling.get(path);
    if (t) {
      Object.assign(t, { since: now, lastSeen: now, quick: 'ask', askAt: now + (this.quickMs ?? 0) });
      return;
    }
    const v = this.reportedVersion(path);
    if (!v) return;
    this.unreport(path, this.reported.get(path) as number);
    this.settling.set(path, this.fresh(v, now));
  }

  has(path: string): boolean {
    return this.settling.has(path) || this.reported.has(path);
  }

  get size(): number {
    return this.settling.size + this.reported.size;
  }

  private fresh(v: { size: number; mtimeMs: number }, now: number): Tracked {
    return { size: v.size, mtimeMs: v.mtimeMs, since: now, lastSeen: now, quick: 'ask', askAt: now + (this.quickMs ?? 0), scan: this.scans };
  }

  private report(path: string, size: number, mtimeMs: number, scan: number): void {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.usedSlots++;
      if (slot * SLOT >= this.versions.length) {
        const grown = new Float64Array(this.versions.length * 2);
        grown.set(this.versions);
        this.versions = grown;
      }
    }
    this.versions[slot * SLOT] = size;
    this.versions[slot * SLOT + 1] = mtimeMs;
    this.versions[slot * SLOT + 2] = scan;
    this.reported.set(path, slot);
  }

  private unreport(path: string, slot: number): void {
    this.reported.delete(path);
    this.freeSlots.push(slot);
    // All free and many: start over small (a folder emptied of 50,000 files keeps no 800 KB table).
    if (this.reported.size === 0 && this.usedSlots > 1024) {
      this.freeSlots.length = 0;
      this.usedSlots = 0;
      this.versions = new Float64Array(SLOT * 1024);
    }
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
