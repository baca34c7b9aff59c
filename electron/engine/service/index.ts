/**
 * The typed client of the document-processing service (spec: shared/seed 000; shapes the spec
 * leaves open: shared/notes/service-shapes.md). Plain Node, no electron. Everything the engine
 * and the app say to the service goes through ServiceClient; the rules for retries and for calls
 * that are not idempotent are in http.ts.
 */
import type {
  AppRunRequest, AuditLogEntry, AuditLogQuery, BatchInfoView, CreateBatchRequest, CreateSecretRequest, DeleteRunFlags,
  DeleteRunResponse, DeploymentRunRequest, FileNode, JobStatusView, ListBatchesQuery, ListBatchFilesResponse, ListRunsQuery,
  PartRef, PathMetadata, ResultsQuery, SecretRecordView, StartMultipartRequest, StartMultipartResponse, UpdateSecretRequest,
  UploadPartResponse,
} from '../../../shared/service/index.js';
import type { FolderTarget } from '../../../shared/hot-folder.js';
import { auditLogs } from './audit.js';
import {
  createBatch, deleteBatch, deleteBatchFile, getBatch, iterateBatchFiles, listBatchFiles, listBatches, putBatchFile,
  type CreatedBatch, type UploadOptions,
} from './batches.js';
import type { ClientConfig, ResolvedConfig, RetryPolicy, Timeouts } from './config.js';
import { downloadFile, type DownloadOptions, type DownloadResult } from './downloads.js';
import {
  deletePath, listFolder, readFile, statPath, writeFile,
  type FileRead, type NotFoundRetry, type ReadFileOptions, type WriteFileOptions, type WriteResult,
} from './files.js';
import { Transport } from './http.js';
import { getBatchJob, getJob, type CallOptions } from './jobs.js';
import {
  abortMultipart, commitMultipart, startMultipart, uploadMultipart, uploadPart,
  type MultipartOptions, type MultipartResult, type PartOptions, type PartSource,
} from './multipart.js';
import { getResults, iterateResults, type ResultsFlags, type ResultsPage } from './results.js';
import { deleteRun, getRun, listRuns, startAppRun, startDeploymentRun, type Run, type StartedRun } from './runs.js';
import { createSecret, deleteSecret, listSecrets, updateSecret } from './secrets.js';
import { targetExists } from './targets.js';
import { waitForJob, waitForRun, type RunWaitResult, type WaitJobOptions, type WaitRunOptions } from './waiters.js';

export * from './config.js';
export { ServiceError, isServiceError, type ErrorKind } from './errors.js';
export { parseRetryAfter, fullJitter } from './backoff.js';
export type { CreatedBatch, UploadOptions } from './batches.js';
export type { DownloadOptions, DownloadResult } from './downloads.js';
export type { ByteRange, FileRead, NotFoundRetry, ReadFileOptions, WriteFileOptions, WriteResult } from './files.js';
export type { CallOptions } from './jobs.js';
export type { MultipartOptions, MultipartProgress, MultipartResult, MultipartSession, PartOptions, PartSource, ResumeState } from './multipart.js';
export type { ResultsFlags, ResultsPage } from './results.js';
export type { Run, StartedRun } from './runs.js';
export { runWaitState, type RunWaitResult, type RunWaitState, type WaitJobOptions, type WaitOptions, type WaitRunOptions } from './waiters.js';

export class ServiceClient {
  readonly #t: Transport;
  readonly #config: ClientConfig;

  constructor(config: ClientConfig) {
    this.#t = new Transport(config);
    this.#config = config;
  }

  /**
   * A second client to the same service with its own connections and `concurrency` slots: calls
   * that must not wait behind this one's uploads and polls (a shared folder's heartbeats). Close it
   * when done. `retry` changes its retry policy (a look that is asked again on its own timer need
   * not wait out a backoff); `timeouts` its timeouts, each no longer than this client's (a look at
   * a few bytes that stalls is given up well before an upload's minute of silence would be).
   */
  lane(concurrency: number, retry?: Partial<RetryPolicy>, timeouts?: Partial<Timeouts>): ServiceClient {
    const mine = this.#t.cfg.timeouts;
    const shorter = timeouts && {
      connectMs: Math.min(mine.connectMs, timeouts.connectMs ?? Infinity),
      responseMs: Math.min(mine.responseMs, timeouts.responseMs ?? Infinity),
      idleMs: Math.min(mine.idleMs, timeouts.idleMs ?? Infinity),
    };
    return new ServiceClient({ ...this.#config, concurrency, ...(retry ? { retry: { ...this.#config.retry, ...retry } } : {}), ...(shorter ? { timeouts: shorter } : {}) });
  }

  /** The configuration in force (without the token). */
  get config(): ResolvedConfig {
    return this.#t.cfg;
  }

  /** Closes pooled keep-alive connections. The client must not be used afterwards. */
  close(): void {
    this.#t.close();
  }

  // Batches (4.1)
  createBatch(req: CreateBatchRequest, o?: CallOptions): Promise<CreatedBatch> {
    return createBatch(this.#t, req, o);
  }
  listBatches(q?: ListBatchesQuery, o?: CallOptions): Promise<{ batches: BatchInfoView[] }> {
    return listBatches(this.#t, q, o);
  }
  getBatch(batchId: number, o?: CallOptions): Promise<BatchInfoView> {
    return getBatch(this.#t, batchId, o);
  }
  deleteBatch(batchId: number, o?: CallOptions): Promise<{ job_id: string }> {
    return deleteBatch(this.#t, batchId, o);
  }
  putBatchFile(batchId: number, name: string, path: string, o?: UploadOptions): Promise<{ size: number }> {
    return putBatchFile(this.#t, batchId, name, path, o);
  }
  deleteBatchFile(batchId: number, name: string, o?: CallOptions): Promise<{ jobId: string | null }> {
    return deleteBatchFile(this.#t, batchId, name, o);
  }
  listBatchFiles(batchId: number, q?: { page_size?: number; start_token?: string }, o?: CallOptions): Promise<ListBatchFilesResponse> {
    return listBatchFiles(this.#t, batchId, q, o);
  }
  iterateBatchFiles(batchId: number, pageSize?: number, o?: CallOptions): AsyncGenerator<FileNode> {
    return iterateBatchFiles(this.#t, batchId, pageSize, o);
  }

  // Multipart upload (4.2)
  startMultipart(req: StartMultipartRequest, o?: CallOptions): Promise<StartMultipartResponse> {
    return startMultipart(this.#t, req, o);
  }
  uploadPart(sessionId: string, partNum: number, source: PartSource, o?: PartOptions): Promise<UploadPartResponse> {
    return uploadPart(this.#t, sessionId, partNum, source, o);
  }
  commitMultipart(sessionId: string, parts: PartRef[], o?: CallOptions): Promise<void> {
    return commitMultipart(this.#t, sessionId, parts, o);
  }
  abortMultipart(sessionId: string, o?: CallOptions): Promise<void> {
    return abortMultipart(this.#t, sessionId, o);
  }
  uploadMultipart(batchId: number, name: string, path: string, o?: MultipartOptions): Promise<MultipartResult> {
    return uploadMultipart(this.#t, batchId, name, path, o);
  }

  // Jobs (4.3)
  getJob(jobId: string, o?: CallOptions): Promise<JobStatusView> {
    return getJob(this.#t, jobId, o);
  }
  getBatchJob(jobId: string, o?: CallOptions): Promise<JobStatusView> {
    return getBatchJob(this.#t, jobId, o);
  }
  waitForJob(jobId: string, o?: WaitJobOptions): Promise<JobStatusView> {
    return waitForJob(this.#t, jobId, o);
  }

  // Runs (4.3b, 4.4, 4.5, 4.6)
  /** true / false when the service says whether the deployment or app exists; undefined when it cannot tell (targets.ts). */
  targetExists(target: FolderTarget, o?: CallOptions): Promise<boolean | undefined> {
    return targetExists(this.#t, target, o);
  }
  startDeploymentRun(deploymentId: string, req: DeploymentRunRequest, o?: CallOptions): Promise<StartedRun> {
    return startDeploymentRun(this.#t, deploymentId, req, o);
  }
  startAppRun(req: AppRunRequest, o?: CallOptions): Promise<StartedRun> {
    return startAppRun(this.#t, req, o);
  }
  listRuns(q?: ListRunsQuery, o?: CallOptions): Promise<{ runs: Run[] }> {
    return listRuns(this.#t, q, o);
  }
  getRun(runId: string, o?: CallOptions): Promise<Run> {
    return getRun(this.#t, runId, o);
  }
  deleteRun(runId: string, flags?: DeleteRunFlags, o?: CallOptions): Promise<DeleteRunResponse> {
    return deleteRun(this.#t, runId, flags, o);
  }
  waitForRun(runId: string, o?: WaitRunOptions): Promise<RunWaitResult> {
    return waitForRun(this.#t, runId, o);
  }
  getResults(runId: string, q?: ResultsQuery, o?: CallOptions): Promise<ResultsPage> {
    return getResults(this.#t, runId, q, o);
  }
  iterateResults(runId: string, flags?: ResultsFlags, o?: CallOptions): AsyncGenerator<ResultsPage> {
    return iterateResults(this.#t, runId, flags, o);
  }

  // Secrets (4.7)
  createSecret(req: CreateSecretRequest, o?: CallOptions): Promise<{ recovered: boolean }> {
    return createSecret(this.#t, req, o);
  }
  listSecrets(q?: { workspace?: string; alias?: string }, o?: CallOptions): Promise<{ secrets: SecretRecordView[] }> {
    return listSecrets(this.#t, q, o);
  }
  updateSecret(req: UpdateSecretRequest, o?: CallOptions): Promise<void> {
    return updateSecret(this.#t, req, o);
  }
  deleteSecret(alias: string, o?: CallOptions): Promise<void> {
    return deleteSecret(this.#t, alias, o);
  }

  // Files (4.8)
  readFile(servicePath: string, o?: ReadFileOptions): Promise<FileRead> {
    return readFile(this.#t, servicePath, o);
  }
  downloadFile(servicePath: string, dest: string, o?: DownloadOptions): Promise<DownloadResult> {
    return downloadFile(this.#t, servicePath, dest, o);
  }
  writeFile(servicePath: string, source: string | Uint8Array, o?: WriteFileOptions): Promise<WriteResult> {
    return writeFile(this.#t, servicePath, source, o);
  }
  statPath(servicePath: string, o?: CallOptions & { retry?: NotFoundRetry }): Promise<PathMetadata | null> {
    return statPath(this.#t, servicePath, o);
  }
  deletePath(servicePath: string, o?: CallOptions): Promise<{ jobId: string | null }> {
    return deletePath(this.#t, servicePath, o);
  }
  listFolder(servicePath: string, o?: CallOptions & { retry?: NotFoundRetry }): Promise<{ nodes: FileNode[] }> {
    return listFolder(this.#t, servicePath, o);
  }

  // Audit logs (4.9)
  auditLogs(q?: AuditLogQuery, o?: CallOptions): Promise<{ results: AuditLogEntry[] }> {
    return auditLogs(this.#t, q, o);
  }
}

export function createServiceClient(config: ClientConfig): ServiceClient {
  return new ServiceClient(config);
}
