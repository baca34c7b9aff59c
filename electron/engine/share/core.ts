/**
 * What one agent knows of a share, and the record operations its protocol steps share: the
 * contents and batches it holds, the contents it watches, and the conditional creates of
 * generations by which every change of holder or state is made.
 */
import type { ShareBatchFile } from './api.js';
import type { ShareFiles } from './files.js';
import type { Heartbeats, ShareAgentInfo } from './heartbeat.js';
import type { ShareClock } from './liveness.js';
import { shareTrace } from './trace.js';
import {
  HEARTBEAT_BATCHES, ShareRecordError, encode, highestGen, parseBatchGen, parseClaimGen, type BatchGen, type ClaimGen, type HeldBatchRef, type ClaimState, type SharePaths,
} from './records.js';

/** A content this agent holds (or held: `lost` once its claim moved on). */
export interface Hold {
  gen: number;
  rel: string;
  size: number;
  state: ClaimState;
  batch?: string;
  batchGen?: number;
  lost: boolean;
}

export interface HeldBatch {
  gen: number;
  lost: boolean;
}

export interface Watched {
  rel: string;
  /** The content's newest generation as last read. */
  cur: ClaimGen | null;
  lastLookAt: number;
}

const SHA = /^[0-9a-f]{64}$/;

export function check(ok: boolean, message: string): void {
  if (!ok) throw new RangeError(message);
}

export const checkSha = (sha: string): void => check(SHA.test(sha), `"${sha}" is not a sha256 in lowercase hex`);

export class ShareCore {
  readonly holds = new Map<string, Hold>();
  readonly batches = new Map<string, HeldBatch>();
  /** Every file a batch was made with: its stored record always lists them all, so no taker misses one. */
  readonly members = new Map<string, ShareBatchFile[]>();
  readonly watched = new Map<string, Watched>();
  /** The holder of each batch held elsewhere, as last read: a batched content moves with its batch, so that holder's liveness counts. */
  readonly batchHolders = new Map<string, string>();
  /** Batches this agent took (made their next generation) but could not finish taking: the service failed in the middle. */
  readonly unfinishedTakes = new Map<string, number>();
  /** Batches a take of this agent is working on now: a second take of one at once would hand it over twice. */
  readonly taking = new Set<string>();
  /** `agent@seq:batch` taken up from a stale agent's last heartbeat: tried once per stale spell (a failed try is forgotten, so tried again). */
  readonly fromHeartbeats = new Set<string>();

  constructor(
    readonly files: ShareFiles,
    readonly p: SharePaths,
    readonly agent: ShareAgentInfo,
    readonly leaseMs: number,
    readonly clock: ShareClock,
    readonly heart: Heartbeats,
  ) {}

  inFlight(): number {
    let n = 0;
    for (const h of this.holds.values()) if (!h.lost && (h.state === 'claimed' || h.state === 'batched')) n++;
    return n;
  }

  /** The batches with work left here (a member batched and not finished), at the generation held: for the heartbeat. */
  heldBatches(): HeldBatchRef[] {
    const out = new Map<string, number>();
    for (const h of this.holds.values()) {
      if (h.lost || h.state !== 'batched' || h.batch === undefined || out.has(h.batch)) continue;
      const b = this.batches.get(h.batch);
      if (b && !b.lost) out.set(h.batch, b.gen);
      if (out.size >= HEARTBEAT_BATCHES) break;
    }
    return [...out].map(([name, gen]) => ({ name, gen }));
  }

  claimRecord(sha: string, gen: number, rel: string, size: number, state: ClaimState, extra: Partial<ClaimGen> = {}): ClaimGen {
    checkSha(sha);
    return { agent: this.agent.id, name: this.agent.name, gen, rel, size, state, ...extra, at: this.clock.wallNow() };
  }

  batchRecord(gen: number): BatchGen {
    return { agent: this.agent.id, name: this.agent.name, gen, at: this.clock.wallNow() };
  }

  /**
   * Creates a generation; true when this agent has it. A generation already there that is this
   * agent's own, in the same state, counts as made here: an earlier attempt took effect although
   * it failed (a reset after the service acted, retries given up), and the engine tried again.
   */
  async make(path: string, rec: ClaimGen | BatchGen, guard?: () => void): Promise<boolean> {
    return (await this.makeOrRead(path, rec, guard)).won;
  }

  /** make(), and when it is not this agent's, the generation found there (read to tell), or null. */
  async makeOrRead<T extends ClaimGen | BatchGen>(path: string, rec: T, guard?: () => void): Promise<{ won: boolean; there: T | null }> {
    if ((await this.files.create(path, encode(rec), guard)) === 'created') return { won: true, there: null };
    const bytes = await this.files.read(path);
    if (!bytes) return { won: false, there: null };
    let there: T;
    try {
      there = ('state' in rec ? parseClaimGen(path, bytes, rec.gen) : parseBatchGen(path, bytes, rec.gen)) as T;
    } catch (e) {
      if (e instanceof ShareRecordError) return { won: false, there: null };
      throw e;
    }
    if (there.agent !== this.agent.id) return { won: false, there };
    const same = !('state' in rec) || ((there as ClaimGen).state === rec.state && (there as ClaimGen).batch === rec.batch);
    return { won: same, there: same ? null : there };
  }

  /** The newest generation of a content, or null when it has none. `signal`: the look given up. */
  async current(sha: string, signal?: AbortSignal): Promise<ClaimGen | null> {
    const gen = highestGen(await this.files.list(this.p.claims(sha), signal));
    if (gen === 0) return null;
    const path = this.p.claim(sha, gen);
    const bytes = await this.files.read(path, signal);
    if (!bytes) throw new ShareRecordError(path, 'it vanished although generations are never deleted');
    return parseClaimGen(path, bytes, gen);
  }

  async batchGen(name: string, gen: number): Promise<BatchGen | null> {
    const path = this.p.batchGen(name, gen);
    const bytes = await this.files.read(path);
    return bytes ? parseBatchGen(path, bytes, gen) : null;
  }

  hold(sha: string, rec: ClaimGen): void {
    const h: Hold = { gen: rec.gen, rel: rec.rel, size: rec.size, state: rec.state, lost: false };
    if (rec.batch !== undefined) h.batch = rec.batch;
    if (rec.batchGen !== undefined) h.batchGen = rec.batchGen;
    this.holds.set(sha, h);
    if (this.watched.delete(sha)) shareTrace(this.agent.name, () => `hold ${sha.slice(0, 12)} (${rec.state}${rec.batch ? ` in ${rec.batch}` : ''})`);
  }

  /** Whether a batch this agent held moved on (its next generation exists); marks it and its contents lost. */
  async batchMoved(name: string, b: HeldBatch): Promise<boolean> {
    if (b.lost) return true;
    if (!(await this.files.exists(this.p.batchGen(name, b.gen + 1)))) return false;
    b.lost = true;
    for (const h of this.holds.values()) if (h.batch === name && h.state === 'batched') h.lost = true;
    return true;
  }
}
