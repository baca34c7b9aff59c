/**
 * Waiting for a job or a run to finish: polls with a growing delay (about 1 s at first, up to a
 * configurable cap, with jitter), within an overall timeout, cancellable with an AbortSignal.
 * A poll that fails with a retryable error (after the transport's own retries) does not end the
 * wait; any other error does.
 */
import { TERMINAL_JOB_STATES, type JobStatusView, type RunStatus } from '../../../shared/service/index.js';
import { abortedError, pollDelay, sleep } from './backoff.js';
import { ServiceError, isServiceError } from './errors.js';
import type { Transport } from './http.js';
import { getBatchJob, getJob, type CallOptions } from './jobs.js';
import { getRun, type Run } from './runs.js';

export interface WaitOptions extends CallOptions {
  /** Give up after this long (kind 'timeout'). Default 1 hour. */
  timeoutMs?: number;
  /** First delay between polls. Default 1000 ms. */
  initialDelayMs?: number;
  /** Largest delay between polls. Default 15000 ms. */
  maxDelayMs?: number;
}

export interface WaitJobOptions extends WaitOptions {
  /** Poll the batch job path (spec 9.2) instead of /v2/jobs. */
  batchPath?: boolean;
  onPoll?: (job: JobStatusView) => void;
}

/** Where a run stands, as a waiter reports it. Only complete, failed and cancelled are terminal. */
export type RunWaitState = 'running' | 'paused' | 'waiting-for-review' | 'complete' | 'failed' | 'cancelled';

export function runWaitState(status: RunStatus | undefined): RunWaitState {
  switch (status) {
    case 'COMPLETE':
      return 'complete';
    case 'FAILED':
      return 'failed';
    case 'CANCELLED':
      return 'cancelled';
    case 'STOPPED_AT_CHECKPOINT':
      return 'waiting-for-review';
    case 'PAUSED':
      return 'paused';
    default:
      return 'running';
  }
}

export interface WaitRunOptions extends WaitOptions {
  onPoll?: (run: Run, state: RunWaitState) => void;
  /** Called each time the run enters STOPPED_AT_CHECKPOINT (it stays there until someone reviews it). */
  onReviewWaiting?: (run: Run) => void;
  /** Return as soon as the run waits for review instead of waiting through the review. */
  untilReview?: boolean;
}

export interface RunWaitResult {
  state: Exclude<RunWaitState, 'running' | 'paused'>;
  run: Run;
}

async function poll<T>(
  op: string,
  what: string,
  o: WaitOptions,
  read: () => Promise<T>,
  settled: (value: T) => boolean,
  describe: (value: T | undefined) => string,
): Promise<T> {
  const started = Date.now();
  const deadline = started + (o.timeoutMs ?? 3_600_000);
  const initial = o.initialDelayMs ?? 1000;
  const max = Math.max(initial, o.maxDelayMs ?? 15_000);
  let last: T | undefined;
  let delay: number | undefined;
  for (;;) {
    if (o.signal?.aborted) throw abortedError(op);
    try {
      last = await read();
      if (settled(last)) return last;
    } catch (e) {
      if (!isServiceError(e) || !e.retryable) throw e;
    }
    const step = pollDelay(delay, initial, max);
    delay = step.next;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new ServiceError({ kind: 'timeout', operation: op, retryable: true, message: `${what} ${describe(last)} after ${Date.now() - started} ms; gave up waiting` });
    }
    await sleep(Math.min(step.wait, left), o.signal, op);
  }
}

/** Polls a job until COMPLETE, FAILED or CANCELLED and returns that status (a FAILED job is not an error). */
export function waitForJob(t: Transport, jobId: string, o: WaitJobOptions = {}): Promise<JobStatusView> {
  const call = o.signal ? { signal: o.signal } : {};
  return poll(
    'waitForJob',
    `job ${jobId}`,
    o,
    async () => {
      const job = await (o.batchPath ? getBatchJob(t, jobId, call) : getJob(t, jobId, call));
      o.onPoll?.(job);
      return job;
    },
    (job) => TERMINAL_JOB_STATES.includes(job.state),
    (job) => (job ? `is still ${job.state}` : 'could not be read'),
  );
}

/**
 * Polls a run until COMPLETE, FAILED or CANCELLED. STOPPED_AT_CHECKPOINT is neither terminal nor
 * an error: it is reported through onReviewWaiting (and onPoll's 'waiting-for-review') and the
 * wait goes on, unless `untilReview` asks to return then.
 */
export async function waitForRun(t: Transport, runId: string, o: WaitRunOptions = {}): Promise<RunWaitResult> {
  const call = o.signal ? { signal: o.signal } : {};
  let previous: RunWaitState | undefined;
  const run = await poll(
    'waitForRun',
    `run ${runId}`,
    o,
    async () => {
      const r = await getRun(t, runId, call);
      const state = runWaitState(r.status);
      o.onPoll?.(r, state);
      if (state === 'waiting-for-review' && previous !== state) o.onReviewWaiting?.(r);
      previous = state;
      return r;
    },
    (r) => {
      const state = runWaitState(r.status);
      return state === 'complete' || state === 'failed' || state === 'cancelled' || (state === 'waiting-for-review' && o.untilReview === true);
    },
    (r) => (r ? `is still ${r.status ?? 'without a status'}` : 'could not be read'),
  );
  return { state: runWaitState(run.status) as RunWaitResult['state'], run };
}
