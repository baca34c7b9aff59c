/**
 * One agent's membership of a share (issue 15): claims, leases, takeover, heartbeats and
 * self-fencing, over the service's filesystem. The rules and the record layout are in README.md
 * beside this file. Every change of who holds a content or a batch is the conditional create of
 * its next generation, so exactly one agent wins each change.
 */
import type { ClaimOutcome, ElsewhereNews, FleetAgent, Share, ShareBatchFile, ShareBatchRecord, ShareSettings, Takeover } from './api.js';
import type { ShareFiles } from './files.js';
import { Liveness, systemClock, type ShareClock } from './liveness.js';
import {
  ShareRecordError, encode, highestGen, parseBatchGen, parseClaimGen, parseHeartbeat, parseStoredBatch, sharePaths,
  type BatchGen, type ClaimGen, type ClaimState, type Heartbeat, type Progress, type SharePaths, type StoredBatch,
} from './records.js';

export interface ShareAgentInfo {
  /** Stable per data home; letters, digits, '.', '_' and '-'. */
  id: string;
  name: string;
  host: string;
  pid?: number;
}

/** Share plus what the engine's timers (or a test's scheduler) drive. */
export interface ShareAgent extends Share {
  /** The share's folder on the service: coordination folder / share name. */
  readonly base: string;
  /** Writes this agent's heartbeat now (start() does it every heartbeatMs). */
  beat(): Promise<void>;
}

export interface ShareOptions {
  /** Run the heartbeat on a timer after start() (default true; tests drive beat() themselves). */
  timers?: boolean;
}

/** A content this agent holds (or held: `lost` once its claim moved on). */
interface Hold {
  gen: number;
  rel: string;
  size: number;
  state: ClaimState;
  batch?: string;
  batchGen?: number;
  lost: boolean;
}

interface HeldBatch {
  gen: number;
  lost: boolean;
}

interface Watched {
  rel: string;
  /** The content's newest generation as last read. */
  cur: ClaimGen | null;
  lastLookAt: number;
}

const SHA = /^[0-9a-f]{64}$/;
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,200}$/;

function check(ok: boolean, message: string): void {
  if (!ok) throw new RangeError(message);
}

export function createShare(files: ShareFiles, settings: ShareSettings, agent: ShareAgentInfo, clock: ShareClock = systemClock, options: ShareOptions = {}): ShareAgent {
  return new ShareProtocol(files, settings, agent, clock, options);
}

class ShareProtocol implements ShareAgent {
  readonly agentId: string;
  readonly agentName: string;
  readonly base: string;
  readonly #p: SharePaths;
  readonly #lease: number;
  readonly #hb: number;
  readonly #live: Liveness;
  readonly #holds = new Map<string, Hold>();
  readonly #batches = new Map<string, HeldBatch>();
  /** Every file a batch was made with: its stored record always lists them all, so no taker misses one. */
  readonly #members = new Map<string, ShareBatchFile[]>();
  readonly #watched = new Map<string, Watched>();
  /** The holder of each batch held elsewhere, as last read: a batched content moves with its batch, so that holder's liveness counts. */
  readonly #batchHolders = new Map<string, string>();
  readonly #beats = new Map<string, Heartbeat>();
  #seq = 0;
  #lastBeatStart = Number.NEGATIVE_INFINITY;
  #lastBeatWall: number | null = null;
  #beating: Promise<void> | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly files: ShareFiles,
    settings: ShareSettings,
    private readonly agent: ShareAgentInfo,
    private readonly clock: ShareClock,
    private readonly options: ShareOptions,
  ) {
    check(SEGMENT.test(agent.id), `the agent id "${agent.id}" may hold only letters, digits, ".", "_" and "-"`);
    check(SEGMENT.test(settings.name), `the share name "${settings.name}" may hold only letters, digits, ".", "_" and "-"`);
    const folder = settings.coordinationFolder.replace(/\/+$/, '');
    check(folder !== '', 'the share has no coordination folder: find the default one (defaultCoordinationFolder) before joining');
    check(settings.heartbeatMs > 0 && settings.heartbeatMs * 2 <= settings.leaseMs, 'the heartbeat must be at most half of the lease');
    this.agentId = agent.id;
    this.agentName = agent.name;
    this.base = `${folder}/${settings.name}`;
    this.#p = sharePaths(this.base);
    this.#lease = settings.leaseMs;
    this.#hb = settings.heartbeatMs;
    this.#live = new Liveness(clock);
  }

  // Heartbeats and self-fencing

  async start(): Promise<void> {
    if (this.#seq === 0) {
      // Continue the seq of this agent's earlier life, so observers never see an old seq again.
      const path = this.#p.agent(this.agentId);
      const bytes = await this.files.read(path);
      try {
        if (bytes) this.#seq = parseHeartbeat(path, bytes).seq;
      } catch (e) {
        if (!(e instanceof ShareRecordError)) throw e;
      }
    }
    await this.beat();
    if (this.options.timers === false || this.#timer) return;
    // A failed beat is retried by the next tick; the fence (below) keeps a silent agent from acting.
    this.#timer = setInterval(() => void this.beat().catch(() => undefined), this.#hb);
    this.#timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#beating?.catch(() => undefined);
  }

  beat(): Promise<void> {
    this.#beating ??= this.#writeBeat().finally(() => {
      this.#beating = null;
    });
    return this.#beating;
  }

  async #writeBeat(): Promise<void> {
    const started = this.clock.now();
    const hb: Heartbeat = {
      agent: this.agentId, name: this.agentName, host: this.agent.host, pid: this.agent.pid ?? 0,
      seq: ++this.#seq, inFlight: this.#inFlight(), leaseMs: this.#lease, at: this.clock.wallNow(),
    };
    await this.files.overwrite(this.#p.agent(this.agentId), encode(hb));
    // The START of the write counts: no observer can have seen this seq earlier.
    this.#lastBeatStart = Math.max(this.#lastBeatStart, started);
    this.#lastBeatWall = hb.at;
  }

  /**
   * Rule 3: acts only while no observer can have judged this agent stale, i.e. its last successful
   * heartbeat started less than a lease (less one heartbeat of margin) ago. Returns true when it had
   * to write one first: then what this agent believes may have moved on, and the caller re-reads.
   */
  async #fence(): Promise<boolean> {
    let wrote = false;
    while (this.clock.now() - this.#lastBeatStart >= this.#lease - this.#hb) {
      await this.beat();
      wrote = true;
    }
    return wrote;
  }

  #inFlight(): number {
    let n = 0;
    for (const h of this.#holds.values()) if (!h.lost && (h.state === 'claimed' || h.state === 'batched')) n++;
    return n;
  }

  // Records

  #claimRecord(sha: string, gen: number, rel: string, size: number, state: ClaimState, extra: Partial<ClaimGen> = {}): ClaimGen {
    check(SHA.test(sha), `"${sha}" is not a sha256 in lowercase hex`);
    return { agent: this.agentId, name: this.agentName, gen, rel, size, state, ...extra, at: this.clock.wallNow() };
  }

  /** The newest generation of a content, or null when it has none. */
  async #current(sha: string): Promise<ClaimGen | null> {
    const gen = highestGen(await this.files.list(this.#p.claims(sha)));
    if (gen === 0) return null;
    const path = this.#p.claim(sha, gen);
    const bytes = await this.files.read(path);
    if (!bytes) throw new ShareRecordError(path, 'it vanished although generations are never deleted');
    return parseClaimGen(path, bytes, gen);
  }

  #hold(sha: string, rec: ClaimGen): void {
    const h: Hold = { gen: rec.gen, rel: rec.rel, size: rec.size, state: rec.state, lost: false };
    if (rec.batch !== undefined) h.batch = rec.batch;
    if (rec.batchGen !== undefined) h.batchGen = rec.batchGen;
    this.#holds.set(sha, h);
    this.#watched.delete(sha);
  }

  // Claims (rule 1)

  async claim(sha256: string, rel: string, size: number): Promise<ClaimOutcome> {
    await this.#fence();
    const first = this.#claimRecord(sha256, 1, rel, size, 'claimed');
    if ((await this.files.create(this.#p.claim(sha256, 1), encode(first))) === 'created') {
      this.#hold(sha256, first);
      return { kind: 'won', gen: 1 };
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const cur = await this.#current(sha256);
      if (!cur) break;
      if (cur.state === 'done' || cur.state === 'failed') {
        return { kind: 'finished', holderId: cur.agent, holderName: cur.name, outcome: cur.state, reason: cur.reason ?? null };
      }
      if (cur.agent === this.agentId && cur.state !== 'released') {
        // This agent's own claim from before a restart (the agent id is kept in its data home).
        this.#hold(sha256, cur);
        if (cur.batch !== undefined && cur.batchGen !== undefined && !this.#batches.has(cur.batch)) this.#batches.set(cur.batch, { gen: cur.batchGen, lost: false });
        return { kind: 'won', gen: cur.gen };
      }
      if (cur.state !== 'released') {
        this.#watched.set(sha256, { rel, cur, lastLookAt: this.clock.now() });
        return { kind: 'held', holderId: cur.agent, holderName: cur.name };
      }
      const next = this.#claimRecord(sha256, cur.gen + 1, rel, size, 'claimed');
      if ((await this.files.create(this.#p.claim(sha256, next.gen), encode(next))) === 'created') {
        this.#hold(sha256, next);
        return { kind: 'won', gen: next.gen };
      }
    }
    throw new Error(`Could not claim the file ${rel}: the share's records for it keep changing. It will be tried again.`);
  }

  // Batches (rule 2's records)

  async batched(record: ShareBatchRecord): Promise<void> {
    check(SEGMENT.test(record.name), `the batch name "${record.name}" cannot name a service file`);
    const mine = [...new Map(record.files.map((f) => [f.sha256, f])).values()];
    for (const f of mine) check(this.#holds.has(f.sha256), `the file ${f.rel} was not claimed before it was put in a batch`);
    await this.#fence();
    const gen1 = { agent: this.agentId, name: this.agentName, gen: 1, at: this.clock.wallNow() };
    if ((await this.files.create(this.#p.batchGen(record.name, 1), encode(gen1))) === 'exists') {
      throw new Error(`The share already holds a batch named ${record.name}; batch names must be unique.`);
    }
    // The record before the contents point at it: a taker that finds a content in this batch finds its record.
    await this.files.overwrite(this.#p.batch(record.name), encode({ ...record, agent: this.agentId, gen: 1 } satisfies StoredBatch));
    this.#batches.set(record.name, { gen: 1, lost: false });
    this.#members.set(record.name, record.files);
    await Promise.all(mine.map(async (f) => {
      const h = this.#holds.get(f.sha256) as Hold;
      if (h.lost || h.state !== 'claimed') return;
      const next = this.#claimRecord(f.sha256, h.gen + 1, h.rel, h.size, 'batched', { batch: record.name, batchGen: 1 });
      // Races a takeover of the content alone: exactly one of them makes this generation.
      if ((await this.files.create(this.#p.claim(f.sha256, next.gen), encode(next))) === 'created') {
        Object.assign(h, { gen: next.gen, state: 'batched', batch: record.name, batchGen: 1 });
      } else {
        h.lost = true;
      }
    }));
  }

  async updateBatch(record: ShareBatchRecord): Promise<void> {
    const b = this.#batches.get(record.name);
    check(b !== undefined, `the batch ${record.name} is not one of this agent's`);
    if (!b || b.lost) return;
    if ((await this.#fence()) && (await this.#batchMoved(record.name, b))) return;
    await this.files.overwrite(this.#p.batch(record.name), encode({ ...record, files: this.#allFiles(record), agent: this.agentId, gen: b.gen } satisfies StoredBatch));
  }

  /** The engine's files (uploads as it says) and the batch's other members, as they were. */
  #allFiles(record: ShareBatchRecord): ShareBatchFile[] {
    const given = new Map(record.files.map((f) => [f.sha256, f]));
    const members = this.#members.get(record.name) ?? [];
    const all = members.map((m) => given.get(m.sha256) ?? m);
    for (const f of record.files) if (!members.some((m) => m.sha256 === f.sha256)) all.push(f);
    this.#members.set(record.name, all);
    return all;
  }

  async #batchMoved(name: string, b: HeldBatch): Promise<boolean> {
    if (b.lost) return true;
    if (!(await this.files.exists(this.#p.batchGen(name, b.gen + 1)))) return false;
    b.lost = true;
    for (const h of this.#holds.values()) if (h.batch === name && h.state === 'batched') h.lost = true;
    return true;
  }

  // Finishing and giving up (rule 5)

  async finished(sha256: string, outcome: 'done' | 'failed', reason: string | null): Promise<void> {
    const h = this.#holds.get(sha256);
    check(h !== undefined, 'a file this agent never claimed cannot be finished by it');
    if (!h || h.lost || h.state === 'done' || h.state === 'failed') return;
    await this.#fence();
    const extra: Partial<ClaimGen> = { reason };
    if (h.batch !== undefined) extra.batch = h.batch;
    if (h.batchGen !== undefined) extra.batchGen = h.batchGen;
    const next = this.#claimRecord(sha256, h.gen + 1, h.rel, h.size, outcome, extra);
    if ((await this.files.create(this.#p.claim(sha256, next.gen), encode(next))) === 'exists') {
      h.lost = true;
      return;
    }
    Object.assign(h, { gen: next.gen, state: outcome });
    const progress: Progress = { agent: this.agentId, name: this.agentName, gen: next.gen, stage: outcome, reason, at: next.at };
    if (h.batch !== undefined) progress.batch = h.batch;
    // A summary for people and tools only: the generation above decides, so a failed write here loses nothing.
    await this.files.overwrite(this.#p.progress(sha256), encode(progress)).catch(() => undefined);
  }

  async release(sha256: string): Promise<void> {
    const h = this.#holds.get(sha256);
    if (!h || h.lost || h.state === 'done' || h.state === 'failed') return;
    await this.#fence();
    const next = this.#claimRecord(sha256, h.gen + 1, h.rel, h.size, 'released');
    await this.files.create(this.#p.claim(sha256, next.gen), encode(next));
    this.#holds.delete(sha256);
  }

  // Re-reads before irreversible steps (rule 4)

  async stillMine(sha256: string): Promise<boolean> {
    const h = this.#holds.get(sha256);
    if (!h || h.lost) return false;
    // Nobody takes a finished content over: its finisher keeps it for the archive move.
    if (h.state === 'done' || h.state === 'failed') return true;
    await this.#fence();
    if (h.state === 'batched' && h.batch !== undefined) {
      // A batched content moves only with its batch, and the batch's next generation comes first.
      const b = this.#batches.get(h.batch);
      return b !== undefined && !(await this.#batchMoved(h.batch, b));
    }
    if (h.state !== 'claimed') return false;
    if (await this.files.exists(this.#p.claim(sha256, h.gen + 1))) {
      h.lost = true;
      return false;
    }
    return true;
  }

  async stillMineBatch(name: string): Promise<boolean> {
    const b = this.#batches.get(name);
    if (!b || b.lost) return false;
    await this.#fence();
    return !(await this.#batchMoved(name, b));
  }

  // Watching contents held elsewhere, and taking over (rules 2 and 6)

  watch(sha256: string, rel: string): void {
    check(SHA.test(sha256), `"${sha256}" is not a sha256 in lowercase hex`);
    const h = this.#holds.get(sha256);
    if (h && !h.lost) return;
    const w = this.#watched.get(sha256);
    if (w) w.rel = rel;
    else this.#watched.set(sha256, { rel, cur: null, lastLookAt: Number.NEGATIVE_INFINITY });
  }

  unwatch(sha256: string): void {
    this.#watched.delete(sha256);
  }

  async poll(): Promise<ElsewhereNews> {
    const news: ElsewhereNews = { finished: [], takeovers: [], moved: [] };
    await this.#lookAtHeartbeats();
    const triedBatches = new Set<string>();
    for (const [sha, w] of [...this.#watched]) {
      if (!this.#watched.has(sha)) continue; // taken along with a batch earlier in this loop
      const batchHolder = w.cur?.batch === undefined ? undefined : this.#batchHolders.get(w.cur.batch);
      const holderStale = w.cur !== null && (this.#isStale(w.cur.agent) || (batchHolder !== undefined && this.#isStale(batchHolder)));
      const due = this.clock.now() - w.lastLookAt >= this.#lease;
      if (!holderStale && !due) continue;
      // Cheap look first: nothing new while the next generation does not exist.
      if (w.cur && !holderStale && !(await this.files.exists(this.#p.claim(sha, w.cur.gen + 1)))) {
        w.lastLookAt = this.clock.now();
        continue;
      }
      let cur: ClaimGen | null;
      try {
        cur = await this.#current(sha);
      } catch (e) {
        if (e instanceof ShareRecordError) continue; // a damaged record: left alone, looked at again next time
        throw e;
      }
      w.lastLookAt = this.clock.now();
      if (!cur) continue;
      if (w.cur && cur.agent !== w.cur.agent && cur.agent !== this.agentId && (cur.state === 'claimed' || cur.state === 'batched')) {
        news.moved.push({ sha256: sha, holderId: cur.agent, holderName: cur.name });
      }
      w.cur = cur;
      if (cur.state === 'done' || cur.state === 'failed') {
        news.finished.push({ sha256: sha, holderName: cur.name, outcome: cur.state, reason: cur.reason ?? null });
        this.#watched.delete(sha);
      } else if (cur.state === 'released' || (cur.state === 'claimed' && this.#isStale(cur.agent))) {
        const t = await this.#takeContent(sha, w, cur);
        if (t) news.takeovers.push(t);
      } else if (cur.state === 'batched' && cur.batch !== undefined && !triedBatches.has(cur.batch)) {
        // Looked at every lease even while the content's holder lives: the batch may have moved to an agent that died.
        triedBatches.add(cur.batch);
        news.takeovers.push(...(await this.#takeBatch(cur.batch)));
      }
    }
    return news;
  }

  async #takeContent(sha: string, w: Watched, cur: ClaimGen): Promise<Takeover | null> {
    await this.#fence();
    const next = this.#claimRecord(sha, cur.gen + 1, w.rel, cur.size, 'claimed');
    if ((await this.files.create(this.#p.claim(sha, next.gen), encode(next))) === 'exists') {
      w.lastLookAt = Number.NEGATIVE_INFINITY; // someone else moved first: look again next poll
      return null;
    }
    this.#hold(sha, next);
    return { kind: 'content', sha256: sha, rel: w.rel };
  }

  /**
   * Takes a batch whose holder went stale: its next generation, then each of its contents that still
   * belongs to it. A content its creator had not yet marked batched (paused or killed in the middle
   * of batched()) is taken alone instead, racing that very mark: so no content is left behind.
   */
  async #takeBatch(name: string): Promise<Takeover[]> {
    const gen = highestGen(await this.files.list(this.#p.batchGens(name)));
    if (gen === 0) return [];
    const holder = await this.#batchGenRecord(name, gen);
    if (!holder) return [];
    this.#batchHolders.set(name, holder.agent);
    if (!this.#beats.has(holder.agent)) this.#live.observe(holder.agent, null); // no heartbeat record: missing since now
    if (holder.agent === this.agentId || !this.#isStale(holder.agent)) return [];
    await this.#fence();
    const mine = { agent: this.agentId, name: this.agentName, gen: gen + 1, at: this.clock.wallNow() };
    if ((await this.files.create(this.#p.batchGen(name, mine.gen), encode(mine))) === 'exists') return [];
    const held: HeldBatch = { gen: mine.gen, lost: false };
    this.#batches.set(name, held);
    const creator = gen === 1 ? holder : await this.#batchGenRecord(name, 1);
    const recPath = this.#p.batch(name);
    const recBytes = await this.files.read(recPath);
    const stored = recBytes ? parseStoredBatch(recPath, recBytes) : null;
    const members = stored?.files ?? [];
    this.#members.set(name, members);
    const fates = await Promise.all(members.map((f) => this.#takeMember(f, name, mine.gen, creator?.agent ?? null)));
    const files = members.filter((_, i) => fates[i] === 'batch');
    const dropped = members.filter((_, i) => fates[i] !== 'batch');
    const alone: Takeover[] = members.filter((_, i) => fates[i] === 'alone').map((f) => ({ kind: 'content', sha256: f.sha256, rel: f.rel }));
    const record: ShareBatchRecord = {
      name, plan: stored?.plan ?? '', serviceBatchId: stored?.serviceBatchId ?? null, servicePath: stored?.servicePath ?? null, files, run: stored?.run ?? null,
    };
    await this.files.overwrite(recPath, encode({ ...record, files: members, agent: this.agentId, gen: mine.gen } satisfies StoredBatch));
    // Paused while taking it? Then another agent may hold the batch already: hand the engine only what stayed here.
    if (await this.#batchMoved(name, held)) return alone;
    return [{ kind: 'batch', record, dropped }, ...alone];
  }

  async #batchGenRecord(name: string, gen: number): Promise<BatchGen | null> {
    const path = this.#p.batchGen(name, gen);
    const bytes = await this.files.read(path);
    return bytes ? parseBatchGen(path, bytes, gen) : null;
  }

  /**
   * One member of a batch just taken. With the batch ('batch') while its newest generation is batched
   * in it at an older batch generation: only the batch's holders make those, and a lost race means
   * an older holder finished it or one more holder came between (then the loop looks again). Alone
   * ('alone') while its creator still holds it only as claimed. Otherwise someone else has it.
   */
  async #takeMember(f: ShareBatchFile, name: string, batchGen: number, creator: string | null): Promise<'batch' | 'alone' | 'dropped'> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const cur = await this.#current(f.sha256).catch((e: unknown) => {
        if (e instanceof ShareRecordError) return null;
        throw e;
      });
      if (!cur) return 'dropped';
      let next: ClaimGen;
      if (cur.state === 'batched' && cur.batch === name && (cur.batchGen ?? 0) < batchGen) {
        next = this.#claimRecord(f.sha256, cur.gen + 1, f.rel, cur.size, 'batched', { batch: name, batchGen });
      } else if (cur.state === 'claimed' && cur.agent === creator && cur.agent !== this.agentId) {
        next = this.#claimRecord(f.sha256, cur.gen + 1, f.rel, cur.size, 'claimed');
      } else {
        return 'dropped';
      }
      if ((await this.files.create(this.#p.claim(f.sha256, next.gen), encode(next))) === 'created') {
        this.#hold(f.sha256, next);
        return next.state === 'batched' ? 'batch' : 'alone';
      }
    }
    return 'dropped';
  }

  #isStale(agentId: string): boolean {
    if (agentId === this.agentId) return false;
    const advertised = this.#beats.get(agentId)?.leaseMs ?? 0;
    // The longer of the two leases: an agent configured with a longer one is not cut short.
    return this.#live.isStale(agentId, Math.max(this.#lease, advertised));
  }

  async #lookAtHeartbeats(): Promise<void> {
    const ids = (await this.files.list(this.#p.agents)).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter((id) => SEGMENT.test(id));
    const listed = new Set(ids);
    await Promise.all(ids.filter((id) => id !== this.agentId).map(async (id) => {
      const path = this.#p.agent(id);
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
    for (const w of this.#watched.values()) if (w.cur && w.cur.agent !== this.agentId && !listed.has(w.cur.agent)) this.#live.observe(w.cur.agent, null);
  }

  fleet(): FleetAgent[] {
    const wallOf = (mono: number | null): number | null => (mono === null ? null : Math.round(this.clock.wallNow() - (this.clock.now() - mono)));
    const self: FleetAgent = {
      id: this.agentId, name: this.agentName, host: this.agent.host, lastHeartbeatMs: this.#lastBeatWall, inFlight: this.#inFlight(), self: true, stale: false,
    };
    const others = [...this.#beats.values()].filter((hb) => hb.agent !== this.agentId).map((hb): FleetAgent => ({
      id: hb.agent, name: hb.name, host: hb.host, lastHeartbeatMs: wallOf(this.#live.lastChangeAt(hb.agent)), inFlight: hb.inFlight, self: false, stale: this.#isStale(hb.agent),
    }));
    return [self, ...others.sort((a, b) => a.name.localeCompare(b.name))];
  }

  calls(): Record<string, number> {
    return this.files.calls();
  }
}
