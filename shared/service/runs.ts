export const RUN_STATUSES = ['CANCELLED', 'COMPLETE', 'FAILED', 'PAUSED', 'RUNNING', 'STOPPED_AT_CHECKPOINT'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Run record returned by start run and get run (spec 2.6). */
export interface RunRecord {
  id?: string;
  status?: RunStatus;
  /** Unix nanoseconds. */
  start_timestamp?: number;
  /** Unix nanoseconds; null while the run is in progress. */
  finish_timestamp?: number | null;
  msg?: string | null;
  batch_id?: number | null;
  input_dir?: string | null;
  app_id?: string | null;
  deployment_id?: string | null;
  tags?: string[] | null;
}

/**
 * The namespace segment the spec writes as `svc`. It is a setting of each deployment of the
 * service and appears in two places: the secrets path (`/v2/<segment>/secrets`) and run settings
 * (`runtime_config.<segment>.pdf.passwords`). A client must use the same segment in both.
 */
export const DEFAULT_NAMESPACE = 'svc';

/** The block of runtime_config under the namespace segment. */
export interface NamespaceConfig {
  pdf?: { passwords?: Record<string, string> };
}

/**
 * runtime_config (spec 2.7). The PDF passwords sit under the deployment's namespace segment
 * (`svc` by default; see DEFAULT_NAMESPACE): build it with `runtimeConfig`, read it with `pdfPasswordsOf`.
 */
export interface RuntimeConfig {
  generate_post_process_pdf?: boolean;
  [segment: string]: NamespaceConfig | boolean | undefined;
}

/** Run settings (spec 2.7). */
export interface RunSettings {
  keys?: { custom?: Record<string, unknown>; secret?: Record<string, string> };
  runtime_config?: RuntimeConfig;
  tags?: string[];
}

/** A runtime_config with the PDF passwords under `namespace` (omitted when there are none). */
export function runtimeConfig(namespace: string, o: { generatePostProcessPdf?: boolean; pdfPasswords?: Record<string, string> }): RuntimeConfig {
  const rc: RuntimeConfig = {};
  if (o.generatePostProcessPdf) rc.generate_post_process_pdf = true;
  if (o.pdfPasswords && Object.keys(o.pdfPasswords).length > 0) rc[namespace] = { pdf: { passwords: { ...o.pdfPasswords } } };
  return rc;
}

/** The PDF passwords under `namespace` in a runtime_config ({} when none); other segments are not looked at. */
export function pdfPasswordsOf(rc: RuntimeConfig | undefined, namespace: string): Record<string, string> {
  const block = rc && namespace !== 'generate_post_process_pdf' ? rc[namespace] : undefined;
  return typeof block === 'object' && block !== null ? { ...(block.pdf?.passwords ?? {}) } : {};
}

export interface DeploymentRunRequest {
  batch_id?: number;
  input_dir?: string;
  manual_upstream_integration?: boolean;
  from_timestamp?: number;
  to_timestamp?: number;
  version?: string;
  output_dir?: string;
  settings?: RunSettings;
}

export interface AppRunRequest {
  app_name?: string;
  app_id?: string;
  owner?: string;
  batch_id?: number;
  input_dir?: string;
  version?: string;
  output_workspace?: string;
  output_dir?: string;
  settings?: RunSettings;
}

export const RUN_SORT_FIELDS = ['start_timestamp', 'status'] as const;
export type RunSortField = (typeof RUN_SORT_FIELDS)[number];
export const SORT_ORDERS = ['ASCENDING', 'DESCENDING'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export interface ListRunsQuery {
  app_id?: string;
  app_name?: string;
  deployment_id?: string;
  username?: string;
  run_id?: string;
  status?: RunStatus[];
  output_workspaces?: string[];
  /** Unix seconds. */
  from_timestamp?: number;
  /** Unix seconds. */
  to_timestamp?: number;
  limit?: number;
  offset?: number;
  sort_by?: RunSortField;
  order?: SortOrder;
}

export interface ListRunsResponse {
  runs: RunRecord[];
}

export interface DeleteRunFlags {
  delete_db_data?: boolean;
  delete_input?: boolean;
  delete_output?: boolean;
  delete_logs?: boolean;
}

export interface DeleteRunResponse {
  delete_input_dir_job_id: string | null;
  delete_output_dir_job_id: string | null;
  delete_log_dir_job_id: string | null;
}
