/**
 * A Share kept in this process's memory: the engine's side of shared folders is tested against it
 * where the claim protocol itself is not the subject (the protocol is tested over the real service
 * in its own tests). Same rules as the design: claims by content, batches taken over whole,
 * staleness by the observer's clock.
 */
import type { ClaimOutcome, ElsewhereNews, FleetAgent, Share, ShareBatchFile, ShareBatchRecord, Takeover } from '../../electron/engine/share/api.js';
import type { ShareFactory } from '../../electron/engine/pipeline/shared-folder.js';

interface Claim { holder: string; gen: number; rel: string; stage: 'claimed' | 'batched' | 'done' | 'failed'; batch: string | null; reason: string | null }
interface Agent { id: string; name: string; beatAt: number; inFlight: number }

export class MemoryShares {
  readonly agents = new Map<string, Agent>();
  readonly claims = new Map<string, Claim>();
  readonly batches = new Map<string, { holder: string; record: ShareBatchRecord }>();

  factory(leaseMs: number): ShareFactory {
    return (o) => new MemoryShare(this, o.agentId, o.agentName, leaseMs, o.settings.heartbeatMs);
  }
}

class MemoryShare implements Share {
  private timer?: NodeJS.Timeout;
  private readonly watched = new Map<string, string>();
  private readonly lastHolder = new Map<string, string>();

  constructor(private readonly r: MemoryShares, readonly agentId: string, readonly agentName: string, private readonly leaseMs: number, private readonly heartbeatMs: number) {}

  private beat(): void {
    const inFlight = [...this.r.claims.values()].filter((c) => c.holder === this.agentId && (c.stage === 'claimed' || c.stage === 'batched')).length;
    this.r.agents.set(this.agentId, { id: this.agentId, name: this.agentName, beatAt: performance.now(), inFlight });
  }

  private stale(id: string): boolean {
    const a = this.r.agents.get(id);
    return !a || performance.now() - a.beatAt > this.leaseMs;
  }

  private nameOf(id: string): string {
    return this.r.agents.get(id)?.name ?? id;
  }

  async start(): Promise<void> {
    this.beat();
    const tick = (): void => {
      this.beat();
      this.timer = setTimeout(tick, this.heartbeatMs);
    };
    this.timer = setTimeout(tick, this.heartbeatMs);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
  }

  async claim(sha256: string, rel: string): Promise<ClaimOutcome> {
    // A request's time on the wire, varying: which agent wins a content is a race, as over a network.
    await new Promise((r) => setTimeout(r, Math.random() * 4));
    const c = this.r.claims.get(sha256);
    if (!c) {
      this.r.claims.set(sha256, { holder: this.agentId, gen: 1, rel, stage: 'claimed', batch: null, reason: null });
      return { kind: 'won', gen: 1 };
    }
    if (c.stage === 'done' || c.stage === 'failed') return { kind: 'finished', holderId: c.holder, holderName: this.nameOf(c.holder), outcome: c.stage, reason: c.reason };
    return { kind: 'held', holderId: c.holder, holderName: this.nameOf(c.holder) };
  }

  async batched(record: ShareBatchRecord): Promise<void> {
    this.r.batches.set(record.name, { holder: this.agentId, record });
    for (const f of record.files) {
      const c = this.r.claims.get(f.sha256);
      if (c && c.holder === this.agentId) Object.assign(c, { stage: 'batched', batch: record.name });
    }
  }

  async updateBatch(record: ShareBatchRecord): Promise<void> {
    const b = this.r.batches.get(record.name);
    if (b && b.holder === this.agentId) b.record = record;
  }

  async finished(sha256: string, outcome: 'done' | 'failed', reason: string | null): Promise<void> {
    const c = this.r.claims.get(sha256);
    if (c) Object.assign(c, { stage: outcome, reason });
  }

  async release(sha256: string): Promise<void> {
    if (this.r.claims.get(sha256)?.holder === this.agentId) this.r.claims.delete(sha256);
  }

  async stillMine(sha256: string): Promise<boolean> {
    const c = this.r.claims.get(sha256);
    if (!c || c.holder !== this.agentId) return false;
    return c.batch === null || this.r.batches.get(c.batch)?.holder === this.agentId;
  }

  async stillMineBatch(name: string): Promise<boolean> {
    return this.r.batches.get(name)?.holder === this.agentId;
  }

  watch(sha256: string, rel: string): void {
    this.watched.set(sha256, rel);
  }

  unwatch(sha256: string): void {
    this.watched.delete(sha256);
  }

  async poll(): Promise<ElsewhereNews> {
    const news: ElsewhereNews = { finished: [], takeovers: [], moved: [] };
    for (const [sha, rel] of this.watched) {
      const c = this.r.claims.get(sha);
      if (!c) {
        this.r.claims.set(sha, { holder: this.agentId, gen: 1, rel, stage: 'claimed', batch: null, reason: null });
        news.takeovers.push({ kind: 'content', sha256: sha, rel });
      } else if (c.stage === 'done' || c.stage === 'failed') {
        news.finished.push({ sha256: sha, holderName: this.nameOf(c.holder), outcome: c.stage, reason: c.reason });
      } else if (c.holder !== this.agentId && this.stale(c.holder)) {
        const t = this.takeOver(sha, c);
        if (t) news.takeovers.push(t);
      } else if (this.lastHolder.get(sha) !== c.holder) {
        news.moved.push({ sha256: sha, holderId: c.holder, holderName: this.nameOf(c.holder) });
      }
      const now = this.r.claims.get(sha);
      if (now) this.lastHolder.set(sha, now.holder);
    }
    return news;
  }

  private takeOver(sha: string, c: Claim): Takeover | null {
    const old = c.holder;
    if (c.stage === 'claimed' || c.batch === null) {
      Object.assign(c, { holder: this.agentId, gen: c.gen + 1 });
      return { kind: 'content', sha256: sha, rel: c.rel };
    }
    const b = this.r.batches.get(c.batch);
    if (!b) return null;
    b.holder = this.agentId;
    const dropped: ShareBatchFile[] = [];
    for (const f of b.record.files) {
      const fc = this.r.claims.get(f.sha256);
      if (fc && fc.holder === old) Object.assign(fc, { holder: this.agentId, gen: fc.gen + 1 });
      else dropped.push(f);
    }
    return { kind: 'batch', record: structuredClone(b.record), dropped };
  }

  fleet(): FleetAgent[] {
    return [...this.r.agents.values()].map((a) => ({ id: a.id, name: a.name, host: 'localhost', lastHeartbeatMs: Date.now() - (performance.now() - a.beatAt), inFlight: a.inFlight, self: a.id === this.agentId, stale: this.stale(a.id) }));
  }

  calls(): Record<string, number> {
    return {};
  }
}
