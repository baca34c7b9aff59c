/**
 * The world of the schedule tests: a shared folder, a fake service (batches and runs, no files:
 * the share's records live in the FakeStore), and a ledger of every irreversible act with the
 * check that the actor held what it acted on at that moment.
 */
import type { FakeStore, Scheduler } from '../../../helpers/fake-share-files.js';

export interface Content {
  sha: string;
  rel: string;
  size: number;
  arrivesAt: number;
}

export interface ServiceRun {
  id: string;
  batch: string;
  files: Set<string>;
  finishAt: number;
}

export class World {
  readonly contents: Content[] = [];
  /** Files archived (gone from the folder). */
  readonly archived = new Map<string, string>();
  /** Service batches by name (ensureServiceBatch finds one by its name). */
  readonly serviceBatches = new Map<string, Set<string>>();
  readonly runs = new Map<string, ServiceRun>();
  readonly uploads = new Map<string, Set<string>>();
  readonly inRuns = new Map<string, string[]>();
  readonly violations: string[] = [];
  /** Takeovers the agents were handed, by kind: the schedules must exercise them. */
  readonly takeovers = { content: 0, batch: 0, dropped: 0 };
  readonly log: string[] = [];

  constructor(readonly sched: Scheduler, readonly store: FakeStore, readonly base: string) {}

  present(): Content[] {
    return this.contents.filter((c) => c.arrivesAt <= this.sched.now && !this.archived.has(c.sha));
  }

  #newest(folder: string): Record<string, unknown> | null {
    const gens = this.store.list(folder).map((n) => /^(\d+)\.json$/.exec(n)?.[1]).filter(Boolean).map(Number);
    return gens.length ? this.store.json(`${folder}/${Math.max(...gens)}.json`) : null;
  }

  /** Who holds a content now, as the records on the service say (null: nobody, or finished). */
  holderOf(sha: string): { agent: string; state: string; batch?: string } | null {
    const g = this.#newest(`${this.base}/claims/${sha}`);
    return g ? { agent: g.agent as string, state: g.state as string, ...(g.batch ? { batch: g.batch as string } : {}) } : null;
  }

  batchHolder(name: string): string | null {
    return (this.#newest(`${this.base}/batches/${name}`)?.agent as string | undefined) ?? null;
  }

  #act(agent: string, what: string, ok: boolean): void {
    this.log.push(`${Math.round(this.sched.now)} ${agent} ${what}`);
    if (!ok) this.violations.push(`${agent} ${what} at ${Math.round(this.sched.now)} ms without holding it`);
  }

  upload(agent: string, sha: string, batch: string): void {
    const h = this.holderOf(sha);
    this.#act(agent, `uploads ${sha.slice(0, 6)} into ${batch}`, h?.agent === agent && h.state === 'batched' && h.batch === batch && this.batchHolder(batch) === agent);
    const into = this.uploads.get(sha) ?? new Set<string>();
    into.add(batch);
    this.uploads.set(sha, into);
    if (into.size > 1) this.violations.push(`${sha.slice(0, 6)} was uploaded into two batches: ${[...into].join(', ')}`);
    this.serviceBatch(batch).add(sha);
  }

  removeFromBatch(agent: string, sha: string, batch: string): void {
    this.#act(agent, `removes ${sha.slice(0, 6)} from ${batch}`, this.batchHolder(batch) === agent);
    this.serviceBatch(batch).delete(sha);
  }

  serviceBatch(name: string): Set<string> {
    let b = this.serviceBatches.get(name);
    if (!b) this.serviceBatches.set(name, (b = new Set()));
    return b;
  }

  runOf(batch: string): ServiceRun | undefined {
    return [...this.runs.values()].find((r) => r.batch === batch);
  }

  startRun(agent: string, batch: string): ServiceRun {
    this.#act(agent, `starts the run of ${batch}`, this.batchHolder(batch) === agent);
    if (this.runOf(batch)) this.violations.push(`${batch} got a second run`);
    const run: ServiceRun = { id: `run-${this.runs.size + 1}`, batch, files: new Set(this.serviceBatch(batch)), finishAt: this.sched.now + this.sched.int(20, 400) };
    this.runs.set(run.id, run);
    for (const sha of run.files) {
      const runs = [...(this.inRuns.get(sha) ?? []), run.id];
      this.inRuns.set(sha, runs);
      if (runs.length > 1) this.violations.push(`${sha.slice(0, 6)} went into two runs: ${runs.join(', ')}`);
    }
    return run;
  }

  archive(agent: string, sha: string): void {
    const h = this.holderOf(sha);
    this.#act(agent, `archives ${sha.slice(0, 6)}`, h?.agent === agent && (h.state === 'done' || h.state === 'failed'));
    if (this.archived.has(sha)) this.violations.push(`${sha.slice(0, 6)} was archived twice`);
    this.archived.set(sha, agent);
  }

  #ended = { version: -1, value: false };

  /** Every content finished on the service. */
  allEnded(): boolean {
    if (this.#ended.version === this.store.version) return this.#ended.value;
    this.#ended.version = this.store.version;
    return (this.#ended.value = this.contents.every((c) => {
      const s = this.holderOf(c.sha)?.state;
      return s === 'done' || s === 'failed';
    }));
  }

  /** Every finished content moved by its finisher (or its finisher was killed). */
  allArchived(): boolean {
    return this.contents.every((c) => {
      const h = this.holderOf(c.sha);
      return h?.state !== 'done' || this.archived.has(c.sha) || this.sched.crashed(h.agent);
    });
  }

  /** The end state: every content done, in exactly one run. */
  checkEnd(): void {
    for (const c of this.contents) {
      const h = this.holderOf(c.sha);
      if (h?.state !== 'done') this.violations.push(`${c.sha.slice(0, 6)} did not end: ${h ? `${h.state} by ${h.agent}` : 'never claimed'}`);
      else if ((this.inRuns.get(c.sha) ?? []).length !== 1) this.violations.push(`${c.sha.slice(0, 6)} is done but was in ${(this.inRuns.get(c.sha) ?? []).length} runs`);
      // Its finisher moves the file, unless it was killed before it could.
      else if (!this.archived.has(c.sha) && !this.sched.crashed(h.agent)) this.violations.push(`${c.sha.slice(0, 6)} was finished by ${h.agent} but never archived`);
    }
  }
}
