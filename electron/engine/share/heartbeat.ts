/**
 * Heartbeats: this agent's own (written every heartbeat, and first whenever it may look stale:
 * self-fencing) and the other agents' (read on every poll, judged by liveness.ts).
 */
import type { FleetAgent } from './api.js';
import type { ShareFiles } from './files.js';
import { Liveness, type ShareClock } from './liveness.js';
import { ShareRecordError, encode, parseHeartbeat, type Heartbeat, type SharePaths } from './records.js';

export interface ShareAgentInfo {
  /** Stable per data home; letters, digits, '.', '_' and '-'. */
  id: string;
  name: string;
  host: string;
  pid?: number;
}

export const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,200}$/;

export class Heartbeats {
  readonly #live: Liveness;
  readonly #beats = new Map<string, Heartbeat>();
  #seq = 0;
  #lastBeatStart = Number.NEGATIVE_INFINITY;
  #lastBeatWall: number | null = null;
  /** When a beat found the one before it older than the fence allows (a pause, a stall): beliefs from before may be stale. */
  #lapsedAt = Number.NEGATIVE_INFINITY;
  #beating: Promise<void> | null = null;

  constructor(
    private readonly files: ShareFiles,
    private readonly p: SharePaths,
    private readonly agent: ShareAgentInfo,
    private readonly leaseMs: number,
    private readonly heartbeatMs: number,
    private readonly clock: ShareClock,
    private readonly inFlight: () => number,
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
    };
    await this.files.overwrite(this.p.agent(this.agent.id), encode(hb));
    if (started - this.#lastBeatStart >= this.leaseMs - this.heartbeatMs && this.#lastBeatStart > Number.NEGATIVE_INFINITY) this.#lapsedAt = this.clock.now();
    // The START of the write counts: no observer can have seen this seq earlier.
    this.#lastBeatStart = Math.max(this.#lastBeatStart, started);
    this.#lastBeatWall = hb.at;
  }

  /**
   * Self-fencing: acts only while no observer can have judged this agent stale, i.e. its last
   * successful heartbeat started less than a lease (less one heartbeat of margin) ago. Returns true
   * when it had to write one first, or when a beat lapsed less than a lease ago: then what this
   * agent believes may have moved on. (Not only when this call wrote: after a SIGSTOP the timer's
   * beat may come first, and the three-agent test saw a woken agent overwrite a batch record then.)
   */
  async fence(): Promise<boolean> {
    let wrote = false;
    while (this.clock.now() - this.#lastBeatStart >= this.leaseMs - this.heartbeatMs) {
      await this.beat();
      wrote = true;
    }
    return wrote || this.clock.now() - this.#lapsedAt < this.leaseMs;
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

  /** An agent named by a record but with no heartbeat record counts as missing from now on. */
  noteMissing(agentId: string): void {
    if (agentId !== this.agent.id && !this.#beats.has(agentId)) this.#live.observe(agentId, null);
  }

  /** Reads every other agent's heartbeat (one listing, one read each). */
  async look(): Promise<void> {
    const ids = (await this.files.list(this.p.agents)).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter((id) => SEGMENT.test(id));
    const listed = new Set(ids);
    await Promise.all(ids.filter((id) => id !== this.agent.id).map(async (id) => {
      const path = this.p.agent(id);
      const bytes = await this.files.read(path);
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
    for (const id of this.#live.known()) if (!listed.has(id)) this.#live.observe(id, null);
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
