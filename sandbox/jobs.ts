import { randomBytes } from 'node:crypto';
import type { JobState } from '../shared/service/common.js';
import type { Db } from './db.js';

export interface JobRow {
  id: string;
  kind: string;
  target: string;
  state: JobState;
  message: string;
  created_at_ms: number;
  updated_at_ms: number;
}

/** The work of one job kind: resolves to the final message, throws to fail the job. Must be idempotent: a restart repeats it. */
export type JobWork = (target: Record<string, unknown>) => Promise<string>;

/**
 * Asynchronous jobs: PENDING for one delay, RUNNING while the work happens and for one more
 * delay, then COMPLETE or FAILED. Unfinished jobs are picked up again after a restart.
 */
export class JobRunner {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  /** Failures asked for through /sandbox/jobs/fail: per job kind, how many jobs and with what message. */
  private readonly failures = new Map<string, { left: number; message: string }>();

  constructor(
    private readonly db: Db,
    private readonly delayMs: number,
    private readonly work: Record<string, JobWork>,
  ) {}

  create(kind: string, target: Record<string, unknown>): string {
    if (!this.work[kind]) throw new Error(`no work defined for job kind ${kind}`);
    const id = `job_${randomBytes(12).toString('hex')}`;
    const now = Date.now();
    this.db
      .prepare('INSERT INTO jobs (id, kind, target, state, message, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, kind, JSON.stringify(target), 'PENDING', 'queued', now, now);
    this.schedule(id);
    return id;
  }

  /** The next `count` jobs of `kind` to run FAIL with `message` and leave their work undone (sandbox-only, for tests). */
  failNext(kind: string, count: number, message: string): void {
    if (!this.work[kind]) throw new Error(`no job kind ${kind}; kinds: ${Object.keys(this.work).join(', ')}`);
    this.failures.set(kind, { left: count, message });
  }

  get(id: string): JobRow | undefined {
    return this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
  }

  resumeUnfinished(): void {
    const rows = this.db.prepare("SELECT id FROM jobs WHERE state IN ('PENDING', 'RUNNING')").all() as { id: string }[];
    for (const r of rows) this.schedule(r.id);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private later(fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, this.delayMs);
    this.timers.add(t);
  }

  private setState(id: string, state: JobState, message: string): void {
    this.db.prepare('UPDATE jobs SET state = ?, message = ?, updated_at_ms = ? WHERE id = ?').run(state, message, Date.now(), id);
  }

  private schedule(id: string): void {
    this.later(() => {
      const job = this.get(id);
      if (!job) return;
      this.setState(id, 'RUNNING', 'running');
      const fail = this.failures.get(job.kind);
      let work = this.work[job.kind] as JobWork;
      if (fail && fail.left > 0) {
        fail.left--;
        work = () => Promise.reject(new Error(fail.message));
      }
      void work(JSON.parse(job.target) as Record<string, unknown>).then(
        (msg) => this.later(() => this.setState(id, 'COMPLETE', msg)),
        (err: unknown) => this.later(() => this.setState(id, 'FAILED', err instanceof Error ? err.message : String(err))),
      );
    });
  }
}
