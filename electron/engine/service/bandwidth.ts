/**
 * The engine's bandwidth limit (issue 27, section 3): one token bucket for uploads and one for
 * downloads, shared by every request of the process, whichever client, batch or part sends it.
 * Two, not one: an office line's upload and download are separate capacities (a scan going up
 * takes nothing from a result coming down), and rclone's syntax, which ours follows, has
 * `UP:DOWN`; one rate (`2M`) limits each direction to it, as in rclone.
 *
 * A timetable is looked at when it is set, at each time it names, and every minute (a clock
 * changed by hand or by a DST switch is caught within the minute); the buckets' rates change there
 * while transfers run.
 */
import { EventEmitter } from 'node:events';
import { limitAt, type BwSchedule, type LimitNow } from '../../../shared/bwlimit.js';
import { realClock, TokenBucket, type Clock } from './token-bucket.js';

/** Where the limit in force came from: the saved setting, DOCSYNC_BWLIMIT, or a --bwlimit flag. */
export type BwSource = 'saved' | 'env' | 'flag';

export interface BandwidthNow extends LimitNow {
  spec: string;
  source: BwSource;
}

/** Wall-clock time for the timetable, and timers; the buckets keep their own monotonic clock. */
export interface WallClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realWall: WallClock = { now: () => Date.now(), setTimeout: realClock.setTimeout, clearTimeout: realClock.clearTimeout };
const RECHECK_MS = 60_000;

export class Bandwidth extends EventEmitter<{ change: [BandwidthNow | null] }> {
  readonly up: TokenBucket;
  readonly down: TokenBucket;
  #schedule: BwSchedule | null = null;
  #source: BwSource = 'saved';
  #now: LimitNow | null = null;
  #timer: unknown;

  constructor(
    readonly wall: WallClock = realWall,
    bucketClock: Clock = realClock,
  ) {
    super();
    this.up = new TokenBucket(bucketClock);
    this.down = new TokenBucket(bucketClock);
  }

  /** Sets (or with null, lifts) the limit; takes effect at once, for transfers already running too. */
  set(schedule: BwSchedule | null, source: BwSource = 'saved'): void {
    this.#schedule = schedule;
    this.#source = source;
    this.#apply(true);
  }

  /** The limit in force now, or null when there is none at all (no setting, or the setting says off now). */
  now(): BandwidthNow | null {
    const n = this.#now;
    if (!this.#schedule || !n || (n.rates.up === null && n.rates.down === null)) return null;
    return { ...n, spec: this.#schedule.spec, source: this.#source };
  }

  /** The setting in force, limiting now or not. */
  get schedule(): { schedule: BwSchedule; source: BwSource } | null {
    return this.#schedule ? { schedule: this.#schedule, source: this.#source } : null;
  }

  #apply(force = false): void {
    if (this.#timer !== undefined) this.wall.clearTimeout(this.#timer);
    this.#timer = undefined;
    const before = JSON.stringify(this.now());
    const s = this.#schedule;
    this.#now = s ? limitAt(s, new Date(this.wall.now())) : null;
    this.up.setRate(this.#now?.rates.up ?? null);
    this.down.setRate(this.#now?.rates.down ?? null);
    if (s) {
      const untilMs = this.#now?.untilMs ?? null;
      const wait = untilMs === null ? RECHECK_MS : Math.min(RECHECK_MS, Math.max(0, untilMs - this.wall.now()));
      this.#timer = this.wall.setTimeout(() => this.#apply(), wait);
    }
    const after = this.now();
    if (force || JSON.stringify(after) !== before) this.emit('change', after);
  }

  /** Stops the timetable's timer (the limit stays as it is). */
  close(): void {
    if (this.#timer !== undefined) this.wall.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** The process's limit: every upload and download of the engine goes through it. */
export const engineBandwidth = new Bandwidth();
