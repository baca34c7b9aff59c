/**
 * Liveness of other agents, free of clock skew: an agent is stale when its heartbeat's `seq` has
 * not changed for a lease of the OBSERVER's monotonic clock, counted from when the observer first
 * saw that seq (or first saw the record missing). A freshly started observer therefore waits a
 * full lease before it judges anyone stale.
 */

/** Monotonic time for liveness and fencing, wall time only for display. Injectable for tests. */
export interface ShareClock {
  /** Monotonic milliseconds (performance.now in production). */
  now(): number;
  /** Milliseconds since the epoch. */
  wallNow(): number;
  /** Resolves after `ms` of this clock (the fence waits out a lapse with it). */
  sleep(ms: number): Promise<void>;
}

export const systemClock: ShareClock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

interface Seen {
  /** null: the record was missing. */
  seq: number | null;
  firstSeenAt: number;
  /** The latest look: staleness is known only as of then (see isStale). */
  lastSeenAt: number;
  /** Whether the seq ever changed while observed (else lastChange is unknown). */
  changed: boolean;
}

export class Liveness {
  readonly #seen = new Map<string, Seen>();

  constructor(private readonly clock: ShareClock) {}

  /** Records one look at an agent's heartbeat (null: no record). */
  observe(agentId: string, seq: number | null): void {
    const s = this.#seen.get(agentId);
    const now = this.clock.now();
    if (!s) this.#seen.set(agentId, { seq, firstSeenAt: now, lastSeenAt: now, changed: false });
    else if (s.seq !== seq) this.#seen.set(agentId, { seq, firstSeenAt: now, lastSeenAt: now, changed: true });
    else s.lastSeenAt = now;
  }

  /**
   * Stale: observed unchanged for at least leaseMs, up to the latest look. Not up to now: an
   * observer paused (SIGSTOP, a slow poll) since its last look has not seen the beats written
   * meanwhile, and would take a live agent's work. With `maxLookAgeMs`, a look older than that
   * judges nobody stale (look again first). An agent never observed is not stale (yet).
   */
  isStale(agentId: string, leaseMs: number, maxLookAgeMs = Infinity): boolean {
    const s = this.#seen.get(agentId);
    return s !== undefined && s.lastSeenAt - s.firstSeenAt >= leaseMs && this.clock.now() - s.lastSeenAt <= maxLookAgeMs;
  }

  /** When the agent turns stale if its seq stays as it is (monotonic), or null when never observed. */
  staleAt(agentId: string, leaseMs: number): number | null {
    const s = this.#seen.get(agentId);
    return s ? s.firstSeenAt + leaseMs : null;
  }

  /** Monotonic time of the last observed change, or null when none was observed. */
  lastChangeAt(agentId: string): number | null {
    const s = this.#seen.get(agentId);
    return s?.changed ? s.firstSeenAt : null;
  }

  known(): string[] {
    return [...this.#seen.keys()];
  }
}
