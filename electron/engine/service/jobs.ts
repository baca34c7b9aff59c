/** Job status (spec 4.3, and the batch path kept for compatibility, spec 9.2). */
import { parseJobStatus, type JobStatusView } from '../../../shared/service/index.js';
import { seg, type Transport } from './http.js';

export interface CallOptions {
  signal?: AbortSignal;
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
