import { availableParallelism } from 'node:os';
import type { FaultSpec } from './faults.js';
import type { TlsOption } from './tls.js';
import type { UsersConfig } from './users.js';

/** Everything that shapes one sandbox instance. Defaults suit a person trying DocSync; tests shrink the delays. */
export interface SandboxOptions {
  /** 0 picks a free port. */
  port: number;
  /** State folder; survives restarts. A fresh temporary folder when absent. */
  dataDir?: string;
  faults?: FaultSpec;
  users?: UsersConfig;
  /** Bytes per multipart part (spec: returned at session start; the published example is 10 MiB). */
  partSize: number;
  /** How long an out-of-order part waits for its predecessor to begin before it is refused. */
  partOrderGraceMs: number;
  /** Processing time per page of a run. */
  pageDelayMs: number;
  /** Time a job spends in PENDING and again in RUNNING. */
  jobDelayMs: number;
  /** Files per results page. */
  resultsPageSize: number;
  /** Name of the context header. */
  contextHeader: string;
  /**
   * The deployment's namespace segment (the spec's `svc`): the secrets path /v2/{ns}/secrets, and
   * where run settings carry PDF passwords, runtime_config.{ns}.pdf.passwords (no other segment is read).
   */
  namespace: string;
  /** Largest JSON request body. */
  maxJsonBytes: number;
  /** Runs wait, RUNNING, until released by POST /sandbox/runs/hold {"hold": false} (executor.ts). */
  holdRuns: boolean;
  /** Most OCR workers at once (images and scanned PDF pages); each is a thread with its own model. */
  ocrWorkers: number;
  /** HTTPS with these files, or with a CA and certificate of its own ('self', kept in `<data>/tls/`); plain HTTP when absent. */
  tls?: TlsOption;
}

export const DEFAULT_OPTIONS: SandboxOptions = {
  port: 0,
  partSize: 10 * 1024 * 1024,
  partOrderGraceMs: 2000,
  pageDelayMs: 200,
  jobDelayMs: 250,
  resultsPageSize: 20,
  contextHeader: 'Svc-Context',
  namespace: 'svc',
  maxJsonBytes: 1024 * 1024,
  ocrWorkers: availableParallelism(),
  holdRuns: false,
};
