/** Lenient readers of the other response records (shared/service/parse-records.ts). */
import { describe, expect, it } from 'vitest';
import {
  ShapeError, parseAuditLogs, parseBatchId, parseBatchInfo, parseBatchList, parseDeleteRun, parseFileList, parseJobStatus,
  parseMultipartStart, parsePartUploaded, parseRunList, parseRunRecord, parseSecretList, sessionIdFromLocation,
} from '../../../shared/service/index.js';

const NOW_MS = Date.UTC(2026, 2, 1);

describe('batches', () => {
  it('ids as numbers or strings; ms timestamps from any form; unknown fields kept in extra', () => {
    expect(parseBatchId({ id: '17' })).toEqual({ id: 17 });
    expect(parseBatchInfo({ id: 3, name: 7, created_at_ms: new Date(NOW_MS).toISOString(), updated_at_ms: 0, extra: true, quota: { files: 10 } }))
      .toEqual({ id: 3, name: '7', created_at_ms: NOW_MS, extra: { extra: true, quota: { files: 10 } } });
    expect(parseBatchList({ batches: [{ id: '1', name: 'a' }] }).batches[0]?.id).toBe(1);
  });

  it('a batch without an integer id, or a list without batches, is a ShapeError', () => {
    expect(() => parseBatchId({ id: 'abc' })).toThrow(ShapeError);
    expect(() => parseBatchId({ id: 1.5 })).toThrow(/"id" \(integer\) is missing or not valid/);
    expect(() => parseBatchList({ items: [] })).toThrow(/"batches" must be an array/);
  });

  it('file list: node type lower-cased, size from a string; has_more without a token is an error', () => {
    const l = parseFileList({ nodes: [{ name: 'a', metadata: { node_type: 'FILE', size: '12', modified_timestamp: NOW_MS }, perms: { can_read: 'true' } }], has_more: false });
    expect(l.nodes[0]).toEqual({ name: 'a', metadata: { node_type: 'file', size: 12, modified_timestamp: NOW_MS / 1000 }, perms: { can_read: true } });
    expect(() => parseFileList({ nodes: [], has_more: true })).toThrow(/no next_page_token/);
  });
});

describe('jobs, multipart, runs', () => {
  it('job state in any case; unknown states are errors (the waiter could not tell the end)', () => {
    expect(parseJobStatus({ state: 'running', msg: 'm' })).toEqual({ state: 'RUNNING', message: 'm', extra: {} });
    expect(parseJobStatus({ state: 'COMPLETE', progress: 1, result: { deleted: 3 } })).toEqual({ state: 'COMPLETE', extra: { progress: 1, result: { deleted: 3 } } });
    expect(() => parseJobStatus({ state: 'DONE' })).toThrow(/not one of PENDING/);
  });

  it('multipart session and part responses', () => {
    expect(parseMultipartStart({ session_id: 99, part_size: '10485760' })).toEqual({ session_id: '99', part_size: 10485760 });
    // 201 with Location naming the session: the id comes from there when the body has none.
    const loc = 'https://svc.example/api/v2/batches/multipart-upload/sessions/ab%2Fc';
    expect(parseMultipartStart({ part_size: 10485760 }, loc)).toEqual({ session_id: 'ab/c', part_size: 10485760 });
    expect(parseMultipartStart({ session_id: 's1', part_size: 5 }, loc).session_id).toBe('s1');
    expect(sessionIdFromLocation('/v2/batches/multipart-upload/sessions/xyz/')).toBe('xyz');
    expect(sessionIdFromLocation('/v2/jobs/xyz')).toBeUndefined();
    expect(() => parseMultipartStart({ part_size: 5 }, null)).toThrow(/"session_id"/);
    expect(() => parseMultipartStart({ session_id: 's', part_size: 0 })).toThrow(/must be positive/);
    expect(parsePartUploaded({ part_id: 5, part_num: '2' }, 2)).toEqual({ part_id: '5', part_num: 2 });
    expect(() => parsePartUploaded({ part_id: 'x', part_num: 3 }, 2)).toThrow(/names part 3, not part 2/);
  });

  it('run record: status in any case, 0 finish is null, ids normalised, tags kept', () => {
    const r = parseRunRecord({ id: 5, status: 'stopped_at_checkpoint', start_timestamp: NOW_MS, finish_timestamp: 0, batch_id: '8', app_id: 3, tags: ['a', 1] });
    expect(r).toEqual({ id: '5', status: 'STOPPED_AT_CHECKPOINT', start_timestamp: NOW_MS * 1e6, finish_timestamp: null, msg: null, batch_id: 8, input_dir: null, app_id: '3', deployment_id: null, tags: ['a', '1'], extra: {} });
    expect(() => parseRunRecord({ status: 'RUNNING' })).toThrow(/run "id"/);
    expect(() => parseRunRecord({ id: 'r', status: 'LOST' })).toThrow(/run status "LOST"/);
  });

  it('delete run: missing job ids are null, an empty body reads as all null', () => {
    expect(parseDeleteRun({ delete_input_dir_job_id: 'j1' })).toEqual({ delete_input_dir_job_id: 'j1', delete_output_dir_job_id: null, delete_log_dir_job_id: null });
    expect(parseDeleteRun('')).toEqual({ delete_input_dir_job_id: null, delete_output_dir_job_id: null, delete_log_dir_job_id: null });
  });
});

describe('unknown members are kept (issue 11): run records, batches, jobs, secrets, audit entries', () => {
  // Each record as the service might send it tomorrow: the named members plus ones no view names.
  it.each<[string, () => { extra: unknown }, Record<string, unknown>]>([
    ['run record', () => parseRunRecord({ id: 'r1', status: 'RUNNING', batch_id: 12, owner: 'admin', priority: 3, settings: { tags: [] } }), { owner: 'admin', priority: 3, settings: { tags: [] } }],
    ['run list entry', () => parseRunList({ runs: [{ id: 'r2', output_workspace: 'team' }] }).runs[0]!, { output_workspace: 'team' }],
    ['batch', () => parseBatchInfo({ id: 1, name: 'b', file_count: 4 }), { file_count: 4 }],
    ['batch list entry', () => parseBatchList({ batches: [{ id: 1, name: 'b', size_bytes: 99 }] }).batches[0]!, { size_bytes: 99 }],
    ['job', () => parseJobStatus({ state: 'FAILED', message: 'm', error_code: 'E42' }), { error_code: 'E42' }],
    ['secret', () => parseSecretList({ secrets: [{ alias: 'a', allowed_workspaces_type: 'ALL', rotation_days: 30 }] }).secrets[0]!, { rotation_days: 30 }],
  ])('%s', (_what, read, extra) => {
    const v = read();
    expect(v.extra).toEqual(extra);
    // The named members are not repeated in extra.
    for (const k of Object.keys(v)) if (k !== 'extra') expect(extra).not.toHaveProperty(k);
  });

  it('audit entries keep theirs beside the named ones', () => {
    const a = parseAuditLogs({ status: 'OK', data: { results: [{ timestamp_millis: String(NOW_MS), email: 'e', user_ip: '1.2.3.4', log_type: 'api_v2', org: 'o', request_id: 'q1', details: { k: 1 } }] } });
    expect(a.results[0]).toMatchObject({ org: 'o', request_id: 'q1', details: { k: 1 } });
  });

  it('a run record with no unknown members has an empty extra', () => {
    expect(parseRunRecord({ id: 'r' }).extra).toEqual({});
  });
});

describe('secrets and audit logs', () => {
  it('secret records: scope in any case, timestamps in ms from any form', () => {
    const s = parseSecretList({ secrets: [{ alias: 'a', allowed_workspaces_type: 'some', allowed_workspaces: ['t'], created_at: new Date(NOW_MS).toISOString(), updated_at: NOW_MS / 1000 }] });
    expect(s.secrets[0]).toMatchObject({ alias: 'a', allowed_workspaces_type: 'SOME', allowed_workspaces: ['t'], created_at: NOW_MS, updated_at: NOW_MS, description: '' });
  });

  it('a secret scope this client does not know is kept as sent (an open string), an absent one is NONE', () => {
    const s = parseSecretList({ secrets: [{ alias: 'a', allowed_workspaces_type: 'ORG_UNITS' }, { alias: 'b' }] });
    expect(s.secrets.map((x) => x.allowed_workspaces_type)).toEqual(['ORG_UNITS', 'NONE']);
  });

  it('audit entries: timestamp_millis as a string of ms whatever it came as; log types lower-cased; extra fields kept', () => {
    const a = parseAuditLogs({ status: 'OK', data: { results: [{ timestamp_millis: NOW_MS, email: 'e', log_type: 'API_V2', org: 'o' }, { timestamp_millis: String(NOW_MS), log_type: 'new_kind_v3' }] } });
    expect(a.results[0]).toMatchObject({ timestamp_millis: String(NOW_MS), email: 'e', log_type: 'api_v2', org: 'o' });
    expect(a.results[1]).toMatchObject({ timestamp_millis: String(NOW_MS), log_type: 'new_kind_v3' });
    expect(() => parseAuditLogs({ status: 'OK' })).toThrow(/"data" must be a JSON object/);
  });
});
