/** Lenient readers of the other response records (shared/service/parse-records.ts). */
import { describe, expect, it } from 'vitest';
import {
  ShapeError, parseAuditLogs, parseBatchId, parseBatchInfo, parseBatchList, parseDeleteRun, parseFileList, parseJobStatus,
  parseMultipartStart, parsePartUploaded, parseRunRecord, parseSecretList,
} from '../../../shared/service/index.js';

const NOW_MS = Date.UTC(2026, 2, 1);

describe('batches', () => {
  it('ids as numbers or strings; ms timestamps from any form; unknown fields ignored', () => {
    expect(parseBatchId({ id: '17' })).toEqual({ id: 17 });
    expect(parseBatchInfo({ id: 3, name: 7, created_at_ms: new Date(NOW_MS).toISOString(), updated_at_ms: 0, extra: true })).toEqual({ id: 3, name: '7', created_at_ms: NOW_MS });
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
    expect(parseJobStatus({ state: 'running', msg: 'm' })).toEqual({ state: 'RUNNING', message: 'm' });
    expect(() => parseJobStatus({ state: 'DONE' })).toThrow(/not one of PENDING/);
  });

  it('multipart session and part responses', () => {
    expect(parseMultipartStart({ session_id: 99, part_size: '10485760' })).toEqual({ session_id: '99', part_size: 10485760 });
    expect(() => parseMultipartStart({ session_id: 's', part_size: 0 })).toThrow(/must be positive/);
    expect(parsePartUploaded({ part_id: 5, part_num: '2' }, 2)).toEqual({ part_id: '5', part_num: 2 });
    expect(() => parsePartUploaded({ part_id: 'x', part_num: 3 }, 2)).toThrow(/names part 3, not part 2/);
  });

  it('run record: status in any case, 0 finish is null, ids normalised, tags kept', () => {
    const r = parseRunRecord({ id: 5, status: 'stopped_at_checkpoint', start_timestamp: NOW_MS, finish_timestamp: 0, batch_id: '8', app_id: 3, tags: ['a', 1] });
    expect(r).toEqual({ id: '5', status: 'STOPPED_AT_CHECKPOINT', start_timestamp: NOW_MS * 1e6, finish_timestamp: null, msg: null, batch_id: 8, input_dir: null, app_id: '3', deployment_id: null, tags: ['a', '1'] });
    expect(() => parseRunRecord({ status: 'RUNNING' })).toThrow(/run "id"/);
    expect(() => parseRunRecord({ id: 'r', status: 'LOST' })).toThrow(/run status "LOST"/);
  });

  it('delete run: missing job ids are null, an empty body reads as all null', () => {
    expect(parseDeleteRun({ delete_input_dir_job_id: 'j1' })).toEqual({ delete_input_dir_job_id: 'j1', delete_output_dir_job_id: null, delete_log_dir_job_id: null });
    expect(parseDeleteRun('')).toEqual({ delete_input_dir_job_id: null, delete_output_dir_job_id: null, delete_log_dir_job_id: null });
  });
});

describe('secrets and audit logs', () => {
  it('secret records: scope in any case, timestamps in ms from any form', () => {
    const s = parseSecretList({ secrets: [{ alias: 'a', allowed_workspaces_type: 'some', allowed_workspaces: ['t'], created_at: new Date(NOW_MS).toISOString(), updated_at: NOW_MS / 1000 }] });
    expect(s.secrets[0]).toMatchObject({ alias: 'a', allowed_workspaces_type: 'SOME', allowed_workspaces: ['t'], created_at: NOW_MS, updated_at: NOW_MS, description: '' });
  });

  it('audit entries: timestamp_millis as a string of ms whatever it came as; log types lower-cased; extra fields kept', () => {
    const a = parseAuditLogs({ status: 'OK', data: { results: [{ timestamp_millis: NOW_MS, email: 'e', log_type: 'API_V2', org: 'o' }, { timestamp_millis: String(NOW_MS), log_type: 'new_kind_v3' }] } });
    expect(a.results[0]).toMatchObject({ timestamp_millis: String(NOW_MS), email: 'e', log_type: 'api_v2', org: 'o' });
    expect(a.results[1]).toMatchObject({ timestamp_millis: String(NOW_MS), log_type: 'new_kind_v3' });
    expect(() => parseAuditLogs({ status: 'OK' })).toThrow(/"data" must be a JSON object/);
  });
});
