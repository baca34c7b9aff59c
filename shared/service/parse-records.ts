/**
 * Lenient readers for every response record other than results pages (see lenient.ts for the
 * rules). Each throws ShapeError when a value the caller cannot do without is missing: a batch
 * without an id, a job without a state it can tell, a session without a part size.
 *
 * Nothing the service sends is lost: the views of run records, batches, jobs and secrets carry
 * `extra`, the members the view does not name, exactly as sent (audit entries keep theirs beside
 * the named ones, as their type always did). Results pages keep their whole raw JSON instead.
 */
import type { AuditLogEntry, AuditLogType } from './audit.js';
import { AUDIT_LOG_TYPES } from './audit.js';
import type { BatchInfo, FileNode, ListBatchFilesResponse, StartMultipartResponse, UploadPartResponse } from './batches.js';
import { JOB_STATES, type JobStatus } from './common.js';
import {
  bool, enumOf, extras, id, int, isObject, list, need, openEnum, preview, ShapeError, str, strOrNull, timestamp,
  type JsonObject, type Open,
} from './lenient.js';
import { RUN_STATUSES, type DeleteRunResponse, type RunRecord } from './runs.js';
import { WORKSPACE_SCOPES, type SecretRecord, type WorkspaceScope } from './secrets.js';

/** Members of a record that its typed view does not name, as the service sent them ({} when none). */
export interface Extra {
  extra: JsonObject;
}

/** A run record as read: always an id, and whatever else came in `extra`. */
export type RunRecordView = RunRecord & { id: string } & Extra;
export type BatchInfoView = BatchInfo & Extra;
export type JobStatusView = JobStatus & Extra;
/** allowed_workspaces_type is open: a scope this client does not know is kept as sent. */
export type SecretRecordView = Omit<SecretRecord, 'allowed_workspaces_type'> & { allowed_workspaces_type: Open<WorkspaceScope> } & Extra;

const BATCH_NAMED = ['id', 'name', 'workspace', 'mount_point', 'repo_owner', 'batch_owner', 'path_suffix', 'created_at_ms', 'updated_at_ms'];
const JOB_NAMED = ['state', 'message', 'msg'];
const RUN_NAMED = ['id', 'status', 'start_timestamp', 'finish_timestamp', 'msg', 'message', 'batch_id', 'input_dir', 'app_id', 'deployment_id', 'tags'];
const SECRET_NAMED = ['alias', 'description', 'allowed_workspaces_type', 'allowed_workspaces', 'org', 'created_at', 'created_by', 'updated_at', 'last_updated_by'];

function object(raw: unknown, what: string): JsonObject {
  if (!isObject(raw)) throw new ShapeError(`${what} must be a JSON object, got ${preview(raw)}`);
  return raw;
}

function array(raw: JsonObject, key: string, what: string): unknown[] {
  const v = raw[key];
  if (!Array.isArray(v)) throw new ShapeError(`${what}: "${key}" must be an array, got ${preview(v)}`);
  return v;
}

const nullable = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

export function parseBatchId(raw: unknown): { id: number } {
  const o = object(raw, 'create batch response');
  return { id: need(int(o.id), 'create batch response: "id" (integer)', o.id) };
}

export function parseBatchInfo(raw: unknown): BatchInfoView {
  const o = object(raw, 'batch');
  const out: BatchInfoView = {
    id: need(int(o.id), 'batch "id" (integer)', o.id),
    name: need(str(o.name), 'batch "name"', o.name),
    extra: extras(o, BATCH_NAMED),
  };
  const s = (k: 'workspace' | 'mount_point' | 'repo_owner' | 'batch_owner' | 'path_suffix'): void => {
    const v = str(o[k]);
    if (v !== undefined) out[k] = v;
  };
  s('workspace');
  s('mount_point');
  s('repo_owner');
  s('batch_owner');
  s('path_suffix');
  const created = timestamp(o.created_at_ms, 'ms');
  if (created != null) out.created_at_ms = created;
  const updated = timestamp(o.updated_at_ms, 'ms');
  if (updated != null) out.updated_at_ms = updated;
  return out;
}

export function parseBatchList(raw: unknown): { batches: BatchInfoView[] } {
  const o = object(raw, 'batch list');
  return { batches: array(o, 'batches', 'batch list').map(parseBatchInfo) };
}

export function parseFileNode(raw: unknown): FileNode {
  const o = object(raw, 'file node');
  const node: FileNode = {};
  const fullPath = str(o.full_path);
  if (fullPath !== undefined) node.full_path = fullPath;
  const name = str(o.name);
  if (name !== undefined) node.name = name;
  if (isObject(o.metadata)) {
    const m = o.metadata;
    node.metadata = {};
    const type = str(m.node_type);
    if (type !== undefined) node.metadata.node_type = type.toLowerCase();
    const size = int(m.size);
    if (size !== undefined) node.metadata.size = size;
    const mod = timestamp(m.modified_timestamp, 's');
    if (mod != null) node.metadata.modified_timestamp = mod;
  }
  if (isObject(o.perms)) {
    const p = o.perms;
    node.perms = {};
    for (const k of ['can_read', 'can_write', 'can_delete'] as const) {
      const b = bool(p[k]);
      if (b !== undefined) node.perms[k] = b;
    }
  }
  return node;
}

export function parseFileList(raw: unknown): ListBatchFilesResponse {
  const o = object(raw, 'file list');
  const out: ListBatchFilesResponse = {
    nodes: array(o, 'nodes', 'file list').map(parseFileNode),
    has_more: bool(o.has_more) ?? false,
  };
  const token = str(o.next_page_token);
  if (token) out.next_page_token = token;
  if (out.has_more && !out.next_page_token) throw new ShapeError('file list: has_more is true but there is no next_page_token');
  return out;
}

/** A folder listing of GET /v2/files/{path}?expect-node-type=folder. */
export function parseFolderList(raw: unknown): { nodes: FileNode[] } {
  const o = object(raw, 'folder listing');
  return { nodes: array(o, 'nodes', 'folder listing').map(parseFileNode) };
}

export function parseJobCreated(raw: unknown): { job_id: string } {
  const o = object(raw, 'job-creating response');
  return { job_id: need(id(o.job_id), 'job_id', o.job_id) };
}

export function parseJobStatus(raw: unknown): JobStatusView {
  const o = object(raw, 'job status');
  const state = enumOf(o.state, JOB_STATES);
  if (!state) throw new ShapeError(`job state ${preview(o.state)} is not one of ${JOB_STATES.join(', ')}`);
  const message = str(o.message ?? o.msg);
  const extra = extras(o, JOB_NAMED);
  return message === undefined ? { state, extra } : { state, message, extra };
}

/** A run record; every field is optional in the spec, but a run without an id cannot be followed. */
export function parseRunRecord(raw: unknown): RunRecordView {
  const o = object(raw, 'run record');
  const run: RunRecordView = { id: need(id(o.id), 'run "id"', o.id), extra: extras(o, RUN_NAMED) };
  if (o.status !== undefined && o.status !== null) {
    const status = enumOf(o.status, RUN_STATUSES);
    if (!status) throw new ShapeError(`run status ${preview(o.status)} is not one of ${RUN_STATUSES.join(', ')}`);
    run.status = status;
  }
  const start = timestamp(o.start_timestamp, 'ns');
  if (start != null) run.start_timestamp = start;
  run.finish_timestamp = nullable(timestamp(o.finish_timestamp, 'ns'));
  run.msg = strOrNull(o.msg ?? o.message);
  run.batch_id = nullable(int(o.batch_id));
  run.input_dir = strOrNull(o.input_dir);
  run.app_id = nullable(id(o.app_id));
  run.deployment_id = nullable(id(o.deployment_id));
  run.tags = Array.isArray(o.tags) ? o.tags.map(str).filter((t): t is string => t !== undefined) : null;
  return run;
}

export function parseRunList(raw: unknown): { runs: RunRecordView[] } {
  const o = object(raw, 'run list');
  return { runs: array(o, 'runs', 'run list').map(parseRunRecord) };
}

export function parseDeleteRun(raw: unknown): DeleteRunResponse {
  const o = isObject(raw) ? raw : {};
  return {
    delete_input_dir_job_id: nullable(id(o.delete_input_dir_job_id)),
    delete_output_dir_job_id: nullable(id(o.delete_output_dir_job_id)),
    delete_log_dir_job_id: nullable(id(o.delete_log_dir_job_id)),
  };
}

/**
 * The 201 of a multipart session start: `{session_id, part_size}`, with a Location header naming
 * the session (`<base>/v2/batches/multipart-upload/sessions/<session_id>`). `location` is that
 * header: the session id is taken from it when the body has none.
 */
export function parseMultipartStart(raw: unknown, location?: string | null): StartMultipartResponse {
  const o = object(raw, 'multipart session');
  const partSize = need(int(o.part_size), 'multipart session "part_size" (integer)', o.part_size);
  if (partSize < 1) throw new ShapeError(`multipart session "part_size" must be positive, got ${partSize}`);
  const sessionId = id(o.session_id) ?? sessionIdFromLocation(location);
  return { session_id: need(sessionId, 'multipart session "session_id"', o.session_id), part_size: partSize };
}

/** The session id at the end of a multipart session's Location (absolute or relative), if it names one. */
export function sessionIdFromLocation(location: string | null | undefined): string | undefined {
  const m = location ? /\/multipart-upload\/sessions\/([^/?#]+)\/?(?:[?#].*)?$/.exec(location) : null;
  if (!m?.[1]) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

export function parsePartUploaded(raw: unknown, expectedPart: number): UploadPartResponse {
  const o = object(raw, 'part upload response');
  const partNum = need(int(o.part_num), 'part upload response "part_num"', o.part_num);
  if (partNum !== expectedPart) throw new ShapeError(`part upload response names part ${partNum}, not part ${expectedPart}`);
  return { part_id: need(id(o.part_id), 'part upload response "part_id"', o.part_id), part_num: partNum };
}

export function parseSecretList(raw: unknown): { secrets: SecretRecordView[] } {
  const o = object(raw, 'secret list');
  return {
    secrets: array(o, 'secrets', 'secret list').map((r) => {
      const s = object(r, 'secret');
      return {
        alias: need(str(s.alias), 'secret "alias"', s.alias),
        description: str(s.description) ?? '',
        allowed_workspaces_type: openEnum(s.allowed_workspaces_type, WORKSPACE_SCOPES) ?? 'NONE',
        allowed_workspaces: list(s.allowed_workspaces).map(str).filter((w): w is string => w !== undefined),
        org: str(s.org) ?? '',
        created_at: timestamp(s.created_at, 'ms') ?? 0,
        created_by: str(s.created_by) ?? '',
        updated_at: timestamp(s.updated_at, 'ms') ?? 0,
        last_updated_by: str(s.last_updated_by) ?? '',
        extra: extras(s, SECRET_NAMED),
      };
    }),
  };
}

/** v1 audit logs: `{status: "OK", data: {results}}`; `{status: "ERROR", msg}` is reported by the caller. */
export function parseAuditLogs(raw: unknown): { results: AuditLogEntry[] } {
  const o = object(raw, 'audit log response');
  const data = object(o.data, 'audit log response "data"');
  return {
    results: array(data, 'results', 'audit log response').map((r) => {
      const e = object(r, 'audit log entry');
      const ts = timestamp(e.timestamp_millis, 'ms');
      return {
        ...e,
        timestamp_millis: ts == null ? '' : String(ts),
        email: str(e.email) ?? '',
        user_ip: str(e.user_ip) ?? '',
        // Known types in either case become the spec's lower-case name; unknown ones are kept as sent.
        log_type: (AUDIT_LOG_TYPES.find((t) => t === str(e.log_type)?.toLowerCase()) ?? str(e.log_type) ?? '') as AuditLogType,
        method: str(e.method) ?? '',
        path: str(e.path) ?? '',
        status: int(e.status) ?? 0,
      };
    }),
  };
}
