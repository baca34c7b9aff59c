/**
 * One agent's membership of a share (issue 15): claims, batches, finishing and the re-reads before
 * irreversible steps. Heartbeats and self-fencing are in heartbeat.ts, watching and takeover in
 * takeover.ts; the rules and the record layout in README.md beside this file. Every change of who
 * holds a content or a batch is the conditional create of its next generation, so exactly one agent
 * wins each change.
 */
import type { ClaimOutcome, ElsewhereNews, FleetAgent, Share, ShareBatchFile, ShareBatchRecord, ShareSettings } from './api.js';
import { ShareCore, check, checkSha } from './core.js';
import type { ShareFiles } from './files.js';
import { Heartbeats, SEGMENT, type ShareAgentInfo } from './heartbeat.js';
import { systemClock, type ShareClock } from './liveness.js';
import { encode, sharePaths, type ClaimGen, type Progress, type StoredBatch } from './records.js';
import { lookElsewhere } from './takeover.js';
import { shareTrace } from './trace.js';

export type { ShareAgentInfo } from './heartbeat.js';

/** Share plus what the engine's timers (or a test's scheduler) drive. */
export interface ShareAgent extends Share {
  /** The share's folder on the service: coordination folder / share name. */
  readonly base: string;
  /** Writes this agent's heartbeat now (start() does it every heartbeatMs). */
  beat(): Promise<void>;
  /** Looks at the other agents' heartbeats now (start() does it on a timer of its own). */
  look(): Promise<void>;
}

export interface ShareOptions {
  /** Run the heartbeat on a timer after start() (default true; tests drive beat() themselves). */
  timers?: boolean;
  /**
   * Files for the heartbeats and the looks at the others' (default: `files`): a lane of their own,
   * so they never wait behind this agent's polls and uploads; a late look is a late takeover.
   */
  liveFiles?: ShareFiles;
  /** Files for the looks at the others' heartbeats (default: liveFiles): best without retries, as a look is asked again soon. */
  lookFiles?: ShareFiles;
  /** Called once stop() is done (closes what was opened for liveFiles). */
  onStop?: () => void;
}

export function createShare(files: ShareFiles, settings: ShareSettings, agent: ShareAgentInfo, clock: ShareClock = systemClock, options: ShareOptions = {}): ShareAgent {
  return new ShareProtocol(files, settings, agent, clock, options);
}

class ShareProtocol implements ShareAgent {
  readonly agentId: string;
  readonly agentName: string;
  readonly base: string;
  readonly #core: ShareCore;
  readonly #heart: Heartbeats;
  readonly #hb: number;
  readonly #clock: ShareClock;
  #timer: ReturnType<typeof setInterval> | null = null;
  #lookTimer: ReturnType<typeof setTimeout> | null = null;
  #polling: Promise<unknown> = Promise.resolve();

  constructor(files: ShareFiles, settings: ShareSettings, agent: ShareAgentInfo, clock: ShareClock, private readonly options: ShareOptions) {
    check(SEGMENT.test(agent.id), `the agent id "${agent.id}" may hold only letters, digits, ".", "_" and "-"`);
    check(SEGMENT.test(settings.name), `the share name "${settings.name}" may hold only letters, digits, ".", "_" and "-"`);
    const folder = settings.coordinationFolder.replace(/\/+$/, '');
    check(folder !== '', 'the share has no coordination folder: find the default one (defaultCoordinationFolder) before joining');
    check(settings.heartbeatMs > 0 && settings.heartbeatMs * 2 <= settings.leaseMs, 'the heartbeat must be at most half of the lease');
    this.agentId = agent.id;
    this.agentName = agent.name;
    this.base = `${folder}/${settings.name}`;
    this.#hb = settings.heartbeatMs;
    this.#clock = clock;
    const p = sharePaths(this.base);
    this.#heart = new Heartbeats(options.liveFiles ?? files, options.lookFiles ?? options.liveFiles ?? files, p, agent, settings.leaseMs, settings.heartbeatMs, clock, () => this.#core.inFlight(), () => this.#core.heldBatches());
    this.#core = new ShareCore(files, p, agent, settings.leaseMs, clock, this.#heart);
  }

  // Heartbeats

  async start(): Promise<void> {
    await this.#heart.resume();
    await this.#heart.beat();
    if (this.options.timers === false || this.#timer) return;
    // A failed beat is retried by the next tick; the fence keeps a silent agent from acting.
    this.#timer = setInterval(() => void this.#heart.beat().catch(() => undefined), this.#hb);
    this.#timer.unref?.();
    this.#armLook();
  }

  /**
   * The others' heartbeats are looked at on their own timer, twice a heartbeat and again the moment
   * one would turn stale, whatever poll() is busy with: so a dead agent is seen within half a
   * heartbeat of its lease running out, and onStale wakes the engine to take its work over.
   */
  #armLook(): void {
    const now = this.#clock.now();
    const due = this.#heart.nextStaleAt();
    // After a look with a failed call, again soon: each failure otherwise put off a dead agent's first
    // or last sighting by half a heartbeat (three-agent test, injected faults).
    // (Doubling from 150 ms while they keep failing: a service that is down is not asked more often.)
    const failed = this.#heart.failedLooks;
    const next = now + (failed > 0 ? Math.min(this.#hb / 2, 150 * 2 ** (failed - 1)) : this.#hb / 2);
    const at = due !== null && due + 1 < next ? Math.max(now, due + 1) : next;
    this.#lookTimer = setTimeout(() => {
      const late = this.#clock.now() - at;
      if (late > this.#hb / 2) shareTrace(this.agentName, () => `look ${Math.round(late)} ms late (the event loop was busy)`);
      void this.#heart.look().catch(() => undefined).finally(() => {
        if (this.#lookTimer) this.#armLook();
      });
    }, at - now);
    this.#lookTimer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#lookTimer) clearTimeout(this.#lookTimer);
    this.#timer = null;
    this.#lookTimer = null;
    await this.#heart.idle();
    this.options.onStop?.();
  }

  beat(): Promise<void> {
    return this.#heart.beat();
  }

  look(): Promise<void> {
    return this.#heart.look();
  }

  // Claims (rule 1)

  async claim(sha256: string, rel: string, size: number): Promise<ClaimOutcome> {
    const c = this.#core;
    const known = c.holds.get(sha256);
    if (known && !known.lost) {
      // Asked again (an earlier attempt failed, or the file came back): what this agent has is said as it is.
      if (known.state === 'claimed') return { kind: 'won', gen: known.gen };
      if (known.state === 'done' || known.state === 'failed') {
        return { kind: 'finished', holderId: this.agentId, holderName: this.agentName, outcome: known.state, reason: null };
      }
      // In a batch here (taken over with it): the batch brings it, never a second batch.
      return { kind: 'held', holderId: this.agentId, holderName: this.agentName };
    }
    await this.#heart.fence();
    const first = c.claimRecord(sha256, 1, rel, size, 'claimed');
    if ((await c.files.create(c.p.claim(sha256, 1), encode(first))) === 'created') {
      c.hold(sha256, first);
      shareTrace(this.agentName, () => `claim ${sha256.slice(0, 12)} ${rel}: won`);
      return { kind: 'won', gen: 1 };
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const cur = await c.current(sha256);
      if (!cur) break;
      if (cur.state === 'done' || cur.state === 'failed') {
        return { kind: 'finished', holderId: cur.agent, holderName: cur.name, outcome: cur.state, reason: cur.reason ?? null };
      }
      if (cur.agent === this.agentId && cur.state === 'claimed') {
        // This agent's own claim, from before a restart (the agent id is kept in its data home) or
        // made although the answer was lost.
        c.hold(sha256, cur);
        return { kind: 'won', gen: cur.gen };
      }
      if (cur.agent === this.agentId && cur.state === 'batched') {
        // In a batch of this agent's that this process does not know: the next poll hands the batch
        // over as a takeover (takeover.ts), so the file goes with its batch, never into a new one.
        c.watched.set(sha256, { rel, cur, lastLookAt: Number.NEGATIVE_INFINITY });
        return { kind: 'held', holderId: cur.agent, holderName: cur.name };
      }
      if (cur.state !== 'released') {
        c.watched.set(sha256, { rel, cur, lastLookAt: c.clock.now() });
        shareTrace(this.agentName, () => `claim ${sha256.slice(0, 12)} ${rel}: held by ${cur.agent}, ${cur.state}${cur.batch ? ` in ${cur.batch}` : ''}`);
        return { kind: 'held', holderId: cur.agent, holderName: cur.name };
      }
      const next = c.claimRecord(sha256, cur.gen + 1, rel, size, 'claimed');
      if (await c.make(c.p.claim(sha256, next.gen), next)) {
        c.hold(sha256, next);
        return { kind: 'won', gen: next.gen };
      }
    }
    throw new Error(`Could not claim the file ${rel}: the share's records for it keep changing. It will be tried again.`);
  }

  // Batches (rule 2's records)

  async batched(record: ShareBatchRecord): Promise<void> {
    const c = this.#core;
    check(SEGMENT.test(record.name), `the batch name "${record.name}" cannot name a service file`);
    const mine = [...new Map(record.files.map((f) => [f.sha256, f])).values()];
    for (const f of mine) {
      const h = c.holds.get(f.sha256);
      check(h !== undefined, `the file ${f.rel} was not claimed before it was put in a batch`);
      check(h?.state !== 'batched' || h.lost || h.batch === record.name, `the file ${f.rel} is already in the batch ${h?.batch ?? ''}`);
    }
    await this.#heart.fence();
    if (!(await c.make(c.p.batchGen(record.name, 1), c.batchRecord(1)))) {
      throw new Error(`The share already holds a batch named ${record.name}; batch names must be unique.`);
    }
    // The record before the contents point at it: a taker that finds a content in this batch finds its record.
    await c.files.overwrite(c.p.batch(record.name), encode({ ...record, agent: this.agentId, gen: 1 } satisfies StoredBatch));
    c.batches.set(record.name, { gen: 1, lost: false });
    c.members.set(record.name, record.files);
    await Promise.all(mine.map(async (f) => {
      const h = c.holds.get(f.sha256);
      if (!h || h.lost || h.state !== 'claimed') return;
      const next = c.claimRecord(f.sha256, h.gen + 1, h.rel, h.size, 'batched', { batch: record.name, batchGen: 1 });
      // Races a takeover of the content alone: exactly one of them makes this generation.
      if (await c.make(c.p.claim(f.sha256, next.gen), next)) Object.assign(h, { gen: next.gen, state: 'batched', batch: record.name, batchGen: 1 });
      else h.lost = true;
    }));
  }

  async updateBatch(record: ShareBatchRecord): Promise<void> {
    const c = this.#core;
    const b = c.batches.get(record.name);
    check(b !== undefined, `the batch ${record.name} is not one of this agent's`);
    if (!b || b.lost) return;
    const fenced = await this.#heart.fence();
    const guard = this.actGuard(); // after the fence (which waits a lapse out), before the re-read
    if (fenced && (await c.batchMoved(record.name, b))) return;
    // Guarded: an overwrite retried past this agent's lease would replace its taker's record.
    await c.files.overwrite(c.p.batch(record.name), encode({ ...record, files: this.#allFiles(record), agent: this.agentId, gen: b.gen } satisfies StoredBatch), guard);
  }

  /** The engine's files (uploads as it says) and the batch's other members, as they were. */
  #allFiles(record: ShareBatchRecord): ShareBatchFile[] {
    const given = new Map(record.files.map((f) => [f.sha256, f]));
    const members = this.#core.members.get(record.name) ?? [];
    const all = members.map((m) => given.get(m.sha256) ?? m);
    for (const f of record.files) if (!members.some((m) => m.sha256 === f.sha256)) all.push(f);
    this.#core.members.set(record.name, all);
    return all;
  }

  // Finishing and giving up (rule 7)

  async finished(sha256: string, outcome: 'done' | 'failed', reason: string | null): Promise<void> {
    const c = this.#core;
    const h = c.holds.get(sha256);
    check(h !== undefined, 'a file this agent never claimed cannot be finished by it');
    if (!h || h.lost || h.state === 'done' || h.state === 'failed') return;
    await this.#heart.fence();
    const extra: Partial<ClaimGen> = { reason };
    if (h.batch !== undefined) extra.batch = h.batch;
    if (h.batchGen !== undefined) extra.batchGen = h.batchGen;
    const next = c.claimRecord(sha256, h.gen + 1, h.rel, h.size, outcome, extra);
    if (!(await c.make(c.p.claim(sha256, next.gen), next))) {
      h.lost = true;
      return;
    }
    Object.assign(h, { gen: next.gen, state: outcome });
    const progress: Progress = { agent: this.agentId, name: this.agentName, gen: next.gen, stage: outcome, reason, at: next.at };
    if (h.batch !== undefined) progress.batch = h.batch;
    // A summary for people and tools only: the generation above decides, so a failed write here loses nothing.
    await c.files.overwrite(c.p.progress(sha256), encode(progress)).catch(() => undefined);
  }

  async release(sha256: string): Promise<void> {
    const c = this.#core;
    const h = c.holds.get(sha256);
    if (!h || h.lost || h.state === 'done' || h.state === 'failed') return;
    await this.#heart.fence();
    const next = c.claimRecord(sha256, h.gen + 1, h.rel, h.size, 'released');
    await c.make(c.p.claim(sha256, next.gen), next);
    c.holds.delete(sha256);
  }

  // Re-reads before irreversible steps (rule 6)

  async stillMine(sha256: string): Promise<boolean> {
    const c = this.#core;
    const h = c.holds.get(sha256);
    if (!h || h.lost) return false;
    // Nobody takes a finished content over: its finisher keeps it for the archive move.
    if (h.state === 'done' || h.state === 'failed') return true;
    await this.#heart.fence();
    if (h.state === 'batched' && h.batch !== undefined) {
      // A batched content moves only with its batch, and the batch's next generation comes first.
      const b = c.batches.get(h.batch);
      return b !== undefined && !(await c.batchMoved(h.batch, b));
    }
    if (h.state !== 'claimed') return false;
    if (await c.files.exists(c.p.claim(sha256, h.gen + 1))) {
      h.lost = true;
      return false;
    }
    return true;
  }

  async stillMineBatch(name: string): Promise<boolean> {
    const b = this.#core.batches.get(name);
    if (!b || b.lost) return false;
    await this.#heart.fence();
    return !(await this.#core.batchMoved(name, b));
  }

  actGuard(): () => void {
    const since = this.#clock.now();
    return () => this.#heart.guard(since);
  }

  onStale(listener: () => void): void {
    this.#heart.onStale = listener;
  }

  // Watching contents held elsewhere (takeover.ts)

  watch(sha256: string, rel: string): void {
    checkSha(sha256);
    const h = this.#core.holds.get(sha256);
    if (h && !h.lost) return;
    const w = this.#core.watched.get(sha256);
    if (w) w.rel = rel;
    else this.#core.watched.set(sha256, { rel, cur: null, lastLookAt: Number.NEGATIVE_INFINITY });
  }

  unwatch(sha256: string): void {
    if (this.#core.watched.has(sha256)) shareTrace(this.agentName, () => `unwatch ${sha256.slice(0, 12)}`);
    this.#core.watched.delete(sha256);
  }

  poll(): Promise<ElsewhereNews> {
    // One look at a time: an overlapping call waits, then looks afresh (it never repeats the news of the other).
    const run = this.#polling.then(() => lookElsewhere(this.#core));
    this.#polling = run.catch(() => undefined);
    return run;
  }

  fleet(): FleetAgent[] {
    return this.#heart.fleet();
  }

  calls(): Record<string, number> {
    const all = { ...this.#core.files.calls() };
    const live = this.options.liveFiles?.calls() ?? {};
    for (const [k, n] of Object.entries(live)) all[k] = (all[k] ?? 0) + n;
    return all;
  }
}
