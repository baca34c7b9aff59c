/**
 * Heartbeats: this agent's own (written every heartbeat, and first whenever it may look stale:
 * self-fencing; a lapse waited out; every act's attempts guarded) and the other agents' (looked at
 * twice a heartbeat and when one turns stale, judged by liveness.ts).
 */
import { ShareFenced, type FleetAgent } from './api.js';
import type { ShareFiles } from './files.js';
import { Liveness, type ShareClock } from './liveness.js';
import { ShareRecordError, encode, parseHeartbeat, type Heartbeat, type HeldBatchRef, type SharePaths } from './records.js';
import { shareTrace } from './trace.js';

export interface ShareAgentInfo {
  /** Stable per data home; letters, digits, '.', '_' and '-'. */
  id: string;
  name: string;
  host: string;
  pid?: number;
}

/**
 * How long a routine look (a heartbeat, a claim's HEAD or read) waits for an answer that has gone
 * quiet: two heartbeats, 5 s at least. Given up, it is asked again on the next look or poll.
 */
export const lookTimeoutMs = (heartbeatMs: number): number => Math.max(2 * heartbeatMs, 5_000);

export const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,200}$/;

export class Heartbeats {
  readonly #live: Liveness;
  readonly #beats = new Map<string, Heartbeat>();
  #seq = 0;
  #lastBeatStart = Number.NEGATIVE_INFINITY;
  #lastBeatWall: number | null = null;
  /** When a beat landed a lease less one heartbeat (or more) after the last one began (a pause, a stall): beliefs from before may be stale. */
  #lapsedAt = Number.NEGATIVE_INFINITY;
  #beating: Promise<void> | null = null;
  #looking: Promise<void> | null = null;
  /** When the last look at the other agents began (monotonic). */
  #lookedAt = Number.NEGATIVE_INFINITY;
  /** The agents the last listing that succeeded named (null: none has yet). */
  #listed: Set<string> | null = null;
  /** Agents judged stale (to act) at the last look: a new one wakes `onStale`. */
  #stale = new Set<string>();
  /** Called when a look finds an agent newly stale: its work can be taken over now. */
  onStale: () => void = () => undefined;
  /** Looks in a row with a failed call: the look timer looks again soon, backing off (a failed read is a late sighting). */
  failedLooks = 0;
  #staleAbort = new AbortController();
  /**
   * Aborted when a look next finds an agent newly stale: a poll under way stops its routine work, and
   * gives up its calls in flight (a read waiting out a 429's Retry-After held a takeover back by 1.5 s
   * in the three-agent test).
   */
  get staleSignal(): AbortSignal {
    return this.#staleAbort.signal;
  }

  constructor(
    private readonly files: ShareFiles,
    private readonly lookFiles: ShareFiles,
    private readonly p: SharePaths,
    private readonly agent: ShareAgentInfo,
    private readonly leaseMs: number,
    readonly heartbeatMs: number,
    private readonly clock: ShareClock,
    private readonly inFlight: () => number,
    private readonly heldBatches: () => HeldBatchRef[] = () => [],
  ) {
    this.#live = new Liveness(clock);
  }

  /** Continues the seq of this agent's earlier life, so observers never see an old seq again. */
  async resume(): Promise<void> {
    if (this.#seq !== 0) return;
    const path = this.p.agent(this.agent.id);
    const bytes = await this.files.read(path);
    try {
      if (bytes) this.#seq = parseHeartbeat(path, bytes).seq;
    } catch (e) {
      if (!(e instanceof ShareRecordError)) throw e;
    }
  }

  beat(): Promise<void> {
    this.#beating ??= this.#write().finally(() => {
      this.#beating = null;
    });
    return this.#beating;
  }

  async idle(): Promise<void> {
    await this.#beating?.catch(() => undefined);
  }

  async #write(): Promise<void> {
    const started = this.clock.now();
    const hb: Heartbeat = {
      agent: this.agent.id, name: this.agent.name, host: this.agent.host, pid: this.agent.pid ?? 0,
      seq: ++this.#seq, inFlight: this.inFlight(), leaseMs: this.leaseMs, at: this.clock.wallNow(),
      batches: this.heldBatches(),
    };
    await this.files.overwrite(this.p.agent(this.agent.id), encode(hb));
    const landed = this.clock.now();
    // Lapsed when this beat LANDED a lease less a heartbeat after the last one began: until it landed
    // observers saw the old seq, and may have judged this agent stale on it (a beat retried for long,
    // or this process stopped while it was in flight, counts from when it landed, not when it began).
    if (landed - this.#lastBeatStart >= this.leaseMs - this.heartbeatMs && this.#lastBeatStart > Number.NEGATIVE_INFINITY) {
      this.#lapsedAt = landed;
      shareTrace(this.agent.name, () => `lapse: beat ${hb.seq} landed ${Math.round(landed - this.#lastBeatStart)} ms after the last began`);
    }
    // The START of the write counts for the next lease: no observer can have seen this seq earlier.
    this.#lastBeatStart = Math.max(this.#lastBeatStart, started);
    this.#lastBeatWall = hb.at;
  }

  /**
   * After a lapse, how long this agent keeps still: a taker acts on a look at most lease - 2
   * heartbeats old (isStale), and every look that judged this agent stale came before the beat that
   * ended the lapse landed; one heartbeat more for the taker's request in flight.
   */
  get #settleMs(): number {
    return this.leaseMs - this.heartbeatMs;
  }

  /**
   * Self-fencing, before every write and re-read: waits until no observer can act on a judgment
   * that this agent is stale. That is, its last successful heartbeat began less than a lease less
   * two heartbeats ago, beating first when not, and a lapse is waited out (#settleMs). Returns true
   * when a beat lapsed less than a lease ago: then what this agent believes may have moved on, and
   * it must re-read before it acts.
   */
  async fence(): Promise<boolean> {
    for (;;) {
      const now = this.clock.now();
      // Beats a heartbeat before the guard would refuse: so an act fenced now has a heartbeat to
      // spare, and a beat that lands at once is no lapse.
      if (now - this.#lastBeatStart >= this.leaseMs - 2 * this.heartbeatMs) {
        await this.beat();
      } else if (now < this.#lapsedAt + this.#settleMs) {
        // A heartbeat at a time: the beats go on meanwhile (this loop's, if not the timer's).
        await this.clock.sleep(Math.min(this.heartbeatMs, this.#lapsedAt + this.#settleMs - now));
      } else {
        return now - this.#lapsedAt < this.leaseMs;
      }
    }
  }

  /**
   * For an act prepared (fenced and re-read) since `since`: throws ShareFenced right before a
   * request would be sent when the act may no longer be this agent's, i.e. its lease ran out, or it
   * lapsed since (the re-read may predate a takeover). Synchronous, so nothing comes between the
   * check and the send: a retry after a backoff is checked again.
   */
  guard(since: number): void {
    const now = this.clock.now();
    if (now - this.#lastBeatStart >= this.leaseMs - this.heartbeatMs || this.#lapsedAt >= since || now < this.#lapsedAt + this.#settleMs) {
      shareTrace(this.agent.name, () => `guard refused: last beat began ${Math.round(now - this.#lastBeatStart)} ms ago, lapse ${Math.round(now - this.#lapsedAt)} ms ago`);
      throw new ShareFenced();
    }
  }

  /** `toAct`: for a takeover, judged only on a recent look (below); for showing, on the latest look. */
  isStale(agentId: string, toAct = true): boolean {
    if (agentId === this.agent.id) return false;
    const advertised = this.#beats.get(agentId)?.leaseMs ?? 0;
    // The longer of the two leases: an agent configured with a longer one is not cut short.
    // A takeover acts on a look younger than lease - 2 heartbeats: a holder that wakes after it
    // re-reads (fence) for a lease after its lapse, so it sees the takeover before it writes again.
    return this.#live.isStale(agentId, Math.max(this.leaseMs, advertised), toAct ? this.leaseMs - 2 * this.heartbeatMs : Infinity);
  }

  /** For a takeover: stale on a recent look, looking again when it was stale on one too old to act on. */
  async staleToAct(agentId: string): Promise<boolean> {
    if (this.isStale(agentId)) return true;
    if (!this.isStale(agentId, false)) return false;
    await this.look();
    return this.isStale(agentId);
  }

  /**
   * The batches a stale agent's last heartbeat says it held, with that heartbeat's seq (so a taker
   * tries each stale spell's list once); null while the agent is not stale to act on.
   */
  staleHeldBatches(agentId: string): { seq: number; batches: HeldBatchRef[] } | null {
    const hb = this.#beats.get(agentId);
    return hb && hb.batches.length > 0 && this.isStale(agentId) ? { seq: hb.seq, batches: hb.batches } : null;
  }

  /** The agents judged stale at the last look. */
  staleAgents(): ReadonlySet<string> {
    return this.#stale;
  }

  /**
   * An agent named by a record but with no heartbeat record counts as missing from now on. Not one
   * the last listing named (its record is there, only its read failed: that tells nothing), nor any
   * before a listing succeeded.
   */
  noteMissing(agentId: string): void {
    if (agentId !== this.agent.id && !this.#beats.has(agentId) && this.#listed !== null && !this.#listed.has(agentId)) this.#live.observe(agentId, null);
  }

  /** Reads every other agent's heartbeat (one listing, one read each); one look at a time. */
  look(): Promise<void> {
    this.#looking ??= this.#look().finally(() => {
      this.#looking = null;
    });
    return this.#looking;
  }

  /** Looks unless the last look began less than half a heartbeat ago (the look timer's, usually). */
  async lookIfOld(): Promise<void> {
    if (this.clock.now() - this.#lookedAt >= this.heartbeatMs / 2) await this.look();
  }

  /**
   * When the next look should be, so that an agent is seen stale as soon as it is: the earliest
   * moment one of the others turns stale if its seq stays (monotonic), or null.
   */
  nextStaleAt(): number | null {
    let at: number | null = null;
    for (const id of this.#live.known()) {
      if (id === this.agent.id || this.#stale.has(id)) continue;
      const t = this.#live.staleAt(id, Math.max(this.leaseMs, this.#beats.get(id)?.leaseMs ?? 0));
      if (t !== null && (at === null || t < at)) at = t;
    }
    return at;
  }

  /**
   * A failed call tells nothing of the agents it was about: each keeps what was last seen of it (its
   * staleness counts only up to its own last look, liveness.ts). A failed listing reads the agents
   * known already. So a look never fails: a taker that needs a recent look at an agent (staleToAct)
   * finds that agent's last look too old and does not act.
   */
  async #look(): Promise<void> {
    this.#lookedAt = this.clock.now();
    const names = await this.lookFiles.list(this.p.agents).catch((e: unknown) => e);
    const listedOk = Array.isArray(names);
    const ids = listedOk ? (names as string[]).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter((id) => SEGMENT.test(id)) : this.#live.known();
    const listed = new Set(ids);
    if (listedOk) this.#listed = listed;
    let failed: unknown = listedOk ? null : names;
    await Promise.all(ids.filter((id) => id !== this.agent.id).map(async (id) => {
      const path = this.p.agent(id);
      let bytes: Uint8Array | null;
      try {
        bytes = await this.lookFiles.read(path);
      } catch (e) {
        failed ??= e;
        return;
      }
      let hb: Heartbeat | null = null;
      try {
        hb = bytes ? parseHeartbeat(path, bytes) : null;
      } catch (e) {
        if (!(e instanceof ShareRecordError)) throw e;
        return; // a damaged heartbeat tells nothing: its agent keeps the state it had
      }
      if (hb && hb.agent !== id) return; // foreign record under another agent's name
      this.#live.observe(id, hb?.seq ?? null);
      if (hb) this.#beats.set(id, hb);
    }));
    if (listedOk) for (const id of this.#live.known()) if (!listed.has(id)) this.#live.observe(id, null);
    const stale = new Set(this.#live.known().filter((id) => this.isStale(id)));
    const fresh = [...stale].some((id) => !this.#stale.has(id));
    if (fresh || stale.size !== this.#stale.size) shareTrace(this.agent.name, () => `stale now: [${[...stale].join(', ')}]`);
    this.#stale = stale;
    if (fresh) {
      this.#staleAbort.abort();
      this.#staleAbort = new AbortController();
      this.onStale();
    }
    this.failedLooks = failed === null ? 0 : this.failedLooks + 1;
    if (failed !== null) shareTrace(this.agent.name, () => `look: a call failed (${failed instanceof Error ? failed.message : String(failed)}); the agents it was about keep what was seen before`);
  }

  /** This agent and the others, as of the last look. */
  fleet(): FleetAgent[] {
    const wallOf = (mono: number | null): number | null => (mono === null ? null : Math.round(this.clock.wallNow() - (this.clock.now() - mono)));
    const self: FleetAgent = {
      id: this.agent.id, name: this.agent.name, host: this.agent.host, lastHeartbeatMs: this.#lastBeatWall, inFlight: this.inFlight(), self: true, stale: false,
    };
    const others = [...this.#beats.values()].filter((hb) => hb.agent !== this.agent.id).map((hb): FleetAgent => ({
      id: hb.agent, name: hb.name, host: hb.host, lastHeartbeatMs: wallOf(this.#live.lastChangeAt(hb.agent)), inFlight: hb.inFlight, self: false, stale: this.isStale(hb.agent, false),
    }));
    return [self, ...others.sort((a, b) => a.name.localeCompare(b.name))];
  }
}
