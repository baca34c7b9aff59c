export const AUDIT_LOG_TYPES = [
  'account_v2',
  'api_v2',
  'app_deployment_run_v2',
  'app_deployment_v2',
  'app_v2',
  'datasource_v2',
  'login_v2',
  'oauth2_v2',
  'org_v2',
  'org_secrets_v2',
  'perms_v2',
  'projects_v2',
  'review_v2',
  'workspace_v2',
] as const;
export type AuditLogType = (typeof AUDIT_LOG_TYPES)[number];

export interface AuditLogQuery {
  start?: number | null;
  size?: number | null;
  log_type?: AuditLogType | null;
  email?: string | null;
  /** Epoch milliseconds, as a string. */
  start_time?: string | null;
  end_time?: string | null;
}

export interface AuditLogEntry {
  /** Epoch milliseconds, as a string. */
  timestamp_millis: string;
  email: string;
  user_ip: string;
  log_type: AuditLogType;
  method: string;
  path: string;
  status: number;
  [extra: string]: unknown;
}

export type AuditLogResponse =
  | { status: 'OK'; data: { results: AuditLogEntry[] } }
  | { status: 'ERROR'; msg: string };
