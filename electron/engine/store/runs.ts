/** Batches (table `batches`), runs (`runs`) and service jobs (`jobs`). */
import type { JobState, RunStatus } from '../../../shared/service/index.js';
import type { Db } from './db.js';

export interface BatchRow {
  id: number;
  serviceBatchId: string | null;
  folderId: number | null;
  servicePath: string | null;
  createdMs: number;
  closedMs: number | null;
  deletedMs: number | null;
  /** The batch's name on the service (unique: found again by name after a crash). */
  name: string | null;
  /** JSON: what to run when the batch is uploaded (see engine/pipeline/plan.ts). */
  plan: string | null;
  /** The service the batch was created on (services.id); null until it is created on one. */
  serviceId: number | null;
}

export interface RunRow {
  id: number;
  serviceRunId: string;
  batchId: number | null;
  deploymentId: string | null;
  appId: string | null;
  status: RunStatus | null;
  msg: string | null;
  reviewWaiting: boolean;
  /** When this client first saw the run waiting for review (the service gives no such time); null when not waiting. */
  reviewSinceMs: number | null;
  startMs: number | null;
  finishMs: number | null;
  createdMs: number;
  updatedMs: number;
  resultsStoredMs: number | null;
  deletedMs: number | null;
  /** The service the run runs on (services.id). */
  serviceId: number | null;
  /**
   * The last run record the service sent, as read (its named members and `extra`, whatever the
   * view does not name; migration 006), or null before one was seen.
   */
  record: Record<string, unknown> | null;
}

export interface JobRow {
  id: number;
  serviceJobId: string;
  kind: string;
  runId: number | null;
  batchId: number | null;
  status: JobState | null;
  msg: string | null;
  createdMs: number;
  updatedMs: number;
  serviceId: number | null;
}

interface RawBatch {
  id: number; service_batch_id: string | null; folder_id: number | null; service_path: string | null; created_ms: number; closed_ms: number | null;
  deleted_ms: number | null; name: string | null; plan: string | null; service_id: number | null;
}
interface RawRun {
  id: number; service_run_id: string; batch_id: number | null; deployment_id: string | null; app_id: string | null; status: RunStatus | null;
  msg: string | null; review_waiting: number; review_since_ms: number | null; start_ms: number | null; finish_ms: number | null; created_ms: number; updated_ms: number;
  results_stored_ms: number | null; deleted_ms: number | null; service_id: number | null; record_json: string | null;
}
interface RawJob { id: number; service_job_id: string; kind: string; run_id: number | null; batch_id: number | null; status: JobState | null; msg: string | null; created_ms: number; updated_ms: number; service_id: number | null }

const batch = (r: RawBatch): BatchRow => ({
  id: r.id, serviceBatchId: r.service_batch_id, folderId: r.folder_id, servicePath: r.service_path, createdMs: r.created_ms, closedMs: r.closed_ms, deletedMs: r.deleted_ms,
  name: r.name, plan: r.plan, serviceId: r.service_id,
});
const run = (r: RawRun): RunRow => ({
  id: r.id, serviceRunId: r.service_run_id, batchId: r.batch_id, deploymentId: r.deployment_id, appId: r.app_id, status: r.status, msg: r.msg,
  reviewWaiting: r.review_waiting === 1, reviewSinceMs: r.review_since_ms, startMs: r.start_ms, finishMs: r.finish_ms, createdMs: r.created_ms, updatedMs: r.updated_ms,
  resultsStoredMs: r.results_stored_ms, deletedMs: r.deleted_ms, serviceId: r.service_id,
  record: r.record_json === null ? null : (JSON.parse(r.record_json) as Record<string, unknown>),
});
const recordJson = (v: object | null | undefined): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
const job = (r: RawJob): JobRow => ({
  id: r.id, serviceJobId: r.service_job_id, kind: r.kind, runId: r.run_id, batchId: r.batch_id, status: r.status, msg: r.msg, createdMs: r.created_ms, updatedMs: r.updated_ms,
  serviceId: r.service_id,
});
const ms = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.floor(n));

/** Run statuses after which nothing changes on the service. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['COMPLETE', 'FAILED', 'CANCELLED'];

export function runsQueries(db: Db, now: () => number = Date.now) {
  const insBatch = db.prepare<[string | null, number | null, string | null, number, string | null, string | null], RawBatch>(
    'INSERT INTO batches (service_batch_id, folder_id, service_path, created_ms, name, plan) VALUES (?, ?, ?, ?, ?, ?) RETURNING *');
  const unfinishedBatches = db.prepare<[], RawBatch>(
    `SELECT b.* FROM batches b WHERE b.closed_ms IS NOT NULL AND b.deleted_ms IS NULL AND b.plan IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.batch_id = b.id) ORDER BY b.id`);
  const batchById = db.prepare<[number], RawBatch>('SELECT * FROM batches WHERE id = ?');
  const batchByService = db.prepare<[string, number | null], RawBatch>('SELECT * FROM batches WHERE service_batch_id = ? AND service_id IS ?');
  const openBatches = db.prepare<[], RawBatch>('SELECT * FROM batches WHERE closed_ms IS NULL AND deleted_ms IS NULL ORDER BY id');
  const setBatchService = db.prepare<[string, string | null, number | null, number]>('UPDATE batches SET service_batch_id = ?, service_path = ?, service_id = ? WHERE id = ?');
  const forgetService = db.prepare<[number]>('UPDATE batches SET service_batch_id = NULL, service_path = NULL, service_id = NULL WHERE id = ?');
  const closeBatch = db.prepare<[number, number]>('UPDATE batches SET closed_ms = coalesce(closed_ms, ?) WHERE id = ?');
  const deleteBatch = db.prepare<[number, number]>('UPDATE batches SET deleted_ms = coalesce(deleted_ms, ?) WHERE id = ?');

  const insRun = db.prepare<[string, number | null, string | null, string | null, RunStatus | null, number, number, number | null, string | null], RawRun>(
    `INSERT INTO runs (service_run_id, batch_id, deployment_id, app_id, status, created_ms, updated_ms, service_id, record_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (ifnull(service_id, 0), service_run_id) DO UPDATE SET batch_id = coalesce(runs.batch_id, excluded.batch_id),
       record_json = coalesce(excluded.record_json, runs.record_json) RETURNING *`);
  const runById = db.prepare<[number], RawRun>('SELECT * FROM runs WHERE id = ?');
  const runByService = db.prepare<[string], RawRun>('SELECT * FROM runs WHERE service_run_id = ? ORDER BY id DESC LIMIT 1');
  const runByBatch = db.prepare<[number], RawRun>('SELECT * FROM runs WHERE batch_id = ? ORDER BY id DESC LIMIT 1');
  const allRuns = db.prepare<[number], RawRun>('SELECT * FROM runs ORDER BY id DESC LIMIT ?');
  const startedFor = db.prepare<[number, string | null, string | null, number], { n: number }>(
    'SELECT 1 AS n FROM runs WHERE service_id = ? AND (deployment_id = ? OR app_id = ?) AND created_ms >= ? LIMIT 1');
  const activeRuns = db.prepare<{ service: number | null }, RawRun>(
    "SELECT * FROM runs WHERE (@service IS NULL OR service_id = @service) AND deleted_ms IS NULL AND (status IS NULL OR status NOT IN ('COMPLETE','FAILED','CANCELLED') OR (status = 'COMPLETE' AND results_stored_ms IS NULL)) ORDER BY id");
  // review_since_ms: kept while the run stays waiting, set when it starts to, cleared when it stops.
  const setStatus = db.prepare<[RunStatus | null, string | null, number, number, number, number | null, number | null, number, string | null, number], RawRun>(
    `UPDATE runs SET status = ?, msg = ?, review_waiting = ?, review_since_ms = CASE WHEN ? = 1 THEN coalesce(review_since_ms, ?) END, start_ms = coalesce(?, start_ms), finish_ms = coalesce(?, finish_ms), updated_ms = ?,
       record_json = coalesce(?, record_json) WHERE id = ? RETURNING *`);
  const setStored = db.prepare<[number, number, number]>('UPDATE runs SET results_stored_ms = ?, updated_ms = ? WHERE id = ?');
  const setRunDeleted = db.prepare<[number, number]>('UPDATE runs SET deleted_ms = coalesce(deleted_ms, ?) WHERE id = ?');

  const insJob = db.prepare<[string, string, number | null, number | null, JobState | null, number, number, number | null], RawJob>(
    `INSERT INTO jobs (service_job_id, kind, run_id, batch_id, status, created_ms, updated_ms, service_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (ifnull(service_id, 0), service_job_id) DO UPDATE SET kind = excluded.kind RETURNING *`);
  const jobByService = db.prepare<[string, number | null], RawJob>('SELECT * FROM jobs WHERE service_job_id = ? AND service_id IS ?');
  const setJob = db.prepare<[JobState | null, string | null, number, string, number | null], RawJob>(
    'UPDATE jobs SET status = ?, msg = ?, updated_ms = ? WHERE service_job_id = ? AND service_id IS ? RETURNING *');
  const pendingJobs = db.prepare<[], RawJob>(
    "SELECT * FROM jobs WHERE status IS NULL OR status NOT IN ('COMPLETE','FAILED','CANCELLED') ORDER BY id");

  return {
    /** Records a batch; `serviceBatchId` may come later through `setBatchService`. */
    addBatch(b: { serviceBatchId?: string | null; folderId?: number | null; servicePath?: string | null; name?: string | null; plan?: string | null }): BatchRow {
      return batch(insBatch.get(b.serviceBatchId ?? null, b.folderId ?? null, b.servicePath ?? null, now(), b.name ?? null, b.plan ?? null)!);
    },
    /** Closed batches with a plan whose run has not been recorded yet: work to finish after a restart. */
    unfinishedBatches(): BatchRow[] {
      return unfinishedBatches.all().map(batch);
    },
    batch(id: number): BatchRow | undefined {
      const r = batchById.get(id);
      return r && batch(r);
    },
    /** The batch with that id on service `serviceId` (ids are unique per service only). */
    batchByServiceId(serviceBatchId: string, serviceId: number | null = null): BatchRow | undefined {
      const r = batchByService.get(serviceBatchId, serviceId);
      return r && batch(r);
    },
    openBatches(): BatchRow[] {
      return openBatches.all().map(batch);
    },
    /** Records the batch created for it on service `serviceId`. */
    setBatchService(id: number, serviceBatchId: string, servicePath: string | null = null, serviceId: number | null = null): void {
      setBatchService.run(serviceBatchId, servicePath, serviceId, id);
    },
    /** The batch is to be created again (on another service): its service batch is forgotten here. */
    forgetBatchService(id: number): void {
      forgetService.run(id);
    },
    closeBatch(id: number): void {
      closeBatch.run(now(), id);
    },
    markBatchDeleted(id: number): void {
      deleteBatch.run(now(), id);
    },

    /** Records a run started on service `serviceId` (idempotent on the service and its run id); `record` is the run record as read, kept whole. */
    addRun(r: { serviceRunId: string; serviceId?: number | null; batchId?: number | null; deploymentId?: string | null; appId?: string | null; status?: RunStatus | null; record?: object | null }): RunRow {
      const t = now();
      return run(insRun.get(r.serviceRunId, r.batchId ?? null, r.deploymentId ?? null, r.appId ?? null, r.status ?? null, t, t, r.serviceId ?? null, recordJson(r.record))!);
    },
    run(id: number): RunRow | undefined {
      const r = runById.get(id);
      return r && run(r);
    },
    /** The latest run with that service run id (of any service). */
    runByServiceId(serviceRunId: string): RunRow | undefined {
      const r = runByService.get(serviceRunId);
      return r && run(r);
    },
    runForBatch(batchId: number): RunRow | undefined {
      const r = runByBatch.get(batchId);
      return r && run(r);
    },
    /** Most recent first. */
    /** Whether a run of this deployment or app was started (or found) on service `serviceId` since `sinceMs`. */
    startedFor(serviceId: number, target: { deploymentId?: string; appId?: string }, sinceMs: number): boolean {
      return startedFor.get(serviceId, target.deploymentId ?? null, target.appId ?? null, sinceMs) !== undefined;
    },
    listRuns(limit = 1000): RunRow[] {
      return allRuns.all(limit).map(run);
    },
    /** Runs still to follow: not terminal, or COMPLETE with results not yet all stored; not deleted. Of one service when given. */
    activeRuns(serviceId: number | null = null): RunRow[] {
      return activeRuns.all({ service: serviceId }).map(run);
    },
    /**
     * Records the status seen on the service. Timestamps are Unix ms (null keeps the stored one);
     * review_waiting is set exactly when the status is STOPPED_AT_CHECKPOINT, and review_since_ms to
     * the first time it was seen so (kept across polls, cleared when the run goes on). `record`, the run
     * record as read (named members and `extra`), replaces the stored one; absent keeps it.
     */
    setRunStatus(id: number, s: { status: RunStatus | null; msg?: string | null; startMs?: number | null; finishMs?: number | null; record?: object | null }): RunRow | undefined {
      const waiting = s.status === 'STOPPED_AT_CHECKPOINT' ? 1 : 0;
      const t = now();
      const r = setStatus.get(s.status, s.msg ?? null, waiting, waiting, t, ms(s.startMs), ms(s.finishMs), t, recordJson(s.record), id);
      return r && run(r);
    },
    /** Marks that every results page of the run is stored. */
    markResultsStored(id: number): void {
      const t = now();
      setStored.run(t, t, id);
    },
    markRunDeleted(id: number): void {
      setRunDeleted.run(now(), id);
    },

    /** Records a job the service started (idempotent on its id). */
    addJob(j: { serviceJobId: string; serviceId?: number | null; kind: string; runId?: number | null; batchId?: number | null; status?: JobState | null }): JobRow {
      const t = now();
      return job(insJob.get(j.serviceJobId, j.kind, j.runId ?? null, j.batchId ?? null, j.status ?? null, t, t, j.serviceId ?? null)!);
    },
    job(serviceJobId: string, serviceId: number | null = null): JobRow | undefined {
      const r = jobByService.get(serviceJobId, serviceId);
      return r && job(r);
    },
    setJobStatus(serviceJobId: string, status: JobState | null, msg: string | null = null, serviceId: number | null = null): JobRow | undefined {
      const r = setJob.get(status, msg, now(), serviceJobId, serviceId);
      return r && job(r);
    },
    /** Jobs whose last state seen is not terminal (COMPLETE, FAILED, CANCELLED). */
    pendingJobs(): JobRow[] {
      return pendingJobs.all().map(job);
    },
  };
}

export type RunsQueries = ReturnType<typeof runsQueries>;
