/** Job status (spec 4.3, and the batch path kept for compatibility, spec 9.2). */
import { parseJobCreated, parseJobStatus, type JobStatusView } from '../../../shared/service/index.js';
import { ServiceError } from './errors.js';
import { seg, type Reply, type Transport } from './http.js';

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Called right before each attempt is sent (retries included); a throw stops the call with that
   * error, never retried. A shared folder's agent checks there that it may still act (share/).
   */
  onAttempt?: (attempt: number) => void;
}

/** GET /v2/jobs/{job_id} */
export function getJob(t: Transport, jobId: string, o: CallOptions = {}): Promise<JobStatusView> {
  return t.json({ op: 'getJob', method: 'GET', path: `/v2/jobs/${seg(jobId)}`, idempotent: true, ok: [200], ...o }, parseJobStatus);
}

/** GET /v2/batches/jobs/{job_id} (backward-compatible path; behaves as getJob). */
export function getBatchJob(t: Transport, jobId: string, o: CallOptions = {}): Promise<JobStatusView> {
  return t.json({ op: 'getBatchJob', method: 'GET', path: `/v2/batches/jobs/${seg(jobId)}`, idempotent: true, ok: [200], ...o }, parseJobStatus);
}

/** The job id at the end of a Location header such as `/v2/jobs/job_123`, or null. */
export function jobIdFromLocation(location: string | string[] | undefined): string | null {
  const loc = Array.isArray(location) ? location[0] : location;
  if (!loc) return null;
  const m = /\/jobs\/([^/?#]+)\/?(?:[?#].*)?$/.exec(loc);
  if (!m?.[1]) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

/**
 * The job a 202 answer names: by its Location header (the service sends no body), else by a
 * `job_id` in the body when one is there; null when neither names one.
 */
export function jobIdOfReply(t: Transport, op: string, reply: Reply): string | null {
  const fromLocation = jobIdFromLocation(reply.headers.location);
  if (fromLocation || !reply.text.trim()) return fromLocation;
  try {
    return t.parseBody(op, reply, parseJobCreated).job_id;
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    return null;
  }
}
