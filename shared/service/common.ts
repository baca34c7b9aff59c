// Shapes shared by the sandbox and the client. Names follow the spec (seed 000) and
// ../shared/notes/service-shapes.md; fields the spec marks optional stay optional here.

/** Error body of every v2 endpoint. */
export interface ErrorBody {
  message: string;
}

export const JOB_STATES = ['PENDING', 'RUNNING', 'COMPLETE', 'FAILED', 'CANCELLED'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const TERMINAL_JOB_STATES: readonly JobState[] = ['COMPLETE', 'FAILED', 'CANCELLED'];

export interface JobStatus {
  state: JobState;
  message?: string;
}

export interface JobCreated {
  job_id: string;
}
