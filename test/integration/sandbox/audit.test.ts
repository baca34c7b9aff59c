/**
 * Audit logs, POST /v1/auditlogs (spec 4.9; shapes from service-shapes.md "Audit logs"):
 * permission, the v1 envelope, a fitting log_type for every kind of call, and the filters.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, sandbox, waitFor } from '../../helpers/sandbox.js';

const LOG_TYPES = [
  'account_v2', 'api_v2', 'app_deployment_run_v2', 'app_deployment_v2', 'app_v2', 'datasource_v2', 'login_v2',
  'oauth2_v2', 'org_v2', 'org_secrets_v2', 'perms_v2', 'projects_v2', 'review_v2', 'workspace_v2',
];
const MEMBER = 'member@sandbox.test';

interface Entry {
  timestamp_millis: string;
  email: string;
  user_ip: string;
  log_type: string;
}
interface AuditAnswer {
  status: string;
  msg?: string;
  data?: { results: Entry[] };
}

let sb: RunningSandbox;
let admin: ReturnType<typeof caller>;
let member: ReturnType<typeof caller>;

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  member = caller(sb.url, 'member-token');
});

afterAll(async () => {
  await sb?.close();
  if (sb) await rm(sb.dataDir, { recursive: true, force: true });
});

async function audit(body: Record<string, unknown>): Promise<Entry[]> {
  const a = await admin<AuditAnswer>('POST', '/v1/auditlogs', body);
  expect(a.status).toBe(200);
  expect(a.body.status).toBe('OK');
  return a.body.data!.results;
}

/** Entries are written when a call ends; wait until `n` match the query. */
function atLeast(body: Record<string, unknown>, n = 1): Promise<Entry[]> {
  return waitFor(async () => {
    const r = await audit(body);
    return r.length >= n ? r : null;
  }, `${n} audit entries for ${JSON.stringify(body)}`, 5000);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('permission (spec 4.9: only callers with audit-log access)', () => {
  it.each(['member-token', 'service-token'])('%s: 403 with the v1 error envelope {status: "ERROR", msg}', async (token) => {
    const a = await caller(sb.url, token)<AuditAnswer>('POST', '/v1/auditlogs', {});
    expect(a.status).toBe(403);
    expect(a.body).toMatchObject({ status: 'ERROR', msg: expect.any(String) });
    expect(a.body.data).toBeUndefined();
  });

  it('admin: 200 {status: "OK", data: {results: [...]}}, entries with timestamp_millis strings, email, user_ip, log_type', async () => {
    await member('GET', '/v2/batches');
    const results = await atLeast({ email: MEMBER });
    for (const e of results) {
      expect(e.timestamp_millis).toMatch(/^\d{13}$/);
      expect(Math.abs(Number(e.timestamp_millis) - Date.now())).toBeLessThan(60_000);
      expect(e.email).toBe(MEMBER);
      expect(e.user_ip).toMatch(/127\.0\.0\.1$/);
      expect(LOG_TYPES).toContain(e.log_type);
    }
  });

  it('an empty body (every field optional) answers 200 too', async () => {
    const a = await admin<AuditAnswer>('POST', '/v1/auditlogs');
    expect(a.status).toBe(200);
    expect(a.body.status).toBe('OK');
    expect(Array.isArray(a.body.data?.results)).toBe(true);
  });
});

describe('every call is recorded with a fitting log_type (issue 2)', () => {
  it('a batch call: api_v2', async () => {
    const t0 = Date.now();
    expect((await member('POST', '/v2/batches', { name: 'audited', workspace: 'team' })).status).toBe(200);
    const r = await atLeast({ log_type: 'api_v2', email: MEMBER, start_time: String(t0) });
    expect(r.every((e) => e.log_type === 'api_v2' && e.email === MEMBER)).toBe(true);
  });

  it('a secrets call: org_secrets_v2', async () => {
    const t0 = Date.now();
    expect((await admin('GET', '/v2/svc/secrets')).status).toBe(200);
    const r = await atLeast({ log_type: 'org_secrets_v2', start_time: String(t0) });
    expect(r[0]).toMatchObject({ email: 'admin@sandbox.test', log_type: 'org_secrets_v2' });
  });

  it('a deployment run: app_deployment_run_v2', async () => {
    const b = await admin<{ id: number }>('POST', '/v2/batches', { name: 'run-input', workspace: 'team' });
    expect((await admin('PUT', `/v2/batches/${b.body.id}/files/inv.txt`, 'Invoice Number: X-1\nTotal: $5.00\n')).status).toBe(204);
    const t0 = Date.now();
    expect((await admin('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: b.body.id })).status).toBe(202);
    const r = await atLeast({ log_type: 'app_deployment_run_v2', start_time: String(t0) });
    expect(r).toHaveLength(1);
    expect(r[0]?.email).toBe('admin@sandbox.test');
  });

  it('a file call: datasource_v2', async () => {
    const t0 = Date.now();
    expect((await member('PUT', '/v2/files/svc-drive/workspaces/team/audit.txt', 'x')).status).toBe(204);
    expect((await member('HEAD', '/v2/files/svc-drive/workspaces/team/audit.txt')).status).toBe(200);
    const r = await atLeast({ log_type: 'datasource_v2', email: MEMBER, start_time: String(t0) }, 2);
    expect(r).toHaveLength(2);
  });

  it('a call with a bad or missing token: login_v2', async () => {
    const t0 = Date.now();
    expect((await caller(sb.url, 'stolen-token')('GET', '/v2/batches')).status).toBe(401);
    expect((await caller(sb.url, null)('GET', '/v2/svc/secrets')).status).toBe(401);
    const r = await atLeast({ log_type: 'login_v2', start_time: String(t0) }, 2);
    expect(r).toHaveLength(2);
    // Nobody was authenticated, so no user's email is attached.
    expect(r.every((e) => e.email === '')).toBe(true);
    // The refused calls were not also filed under the endpoint's own type.
    expect(await audit({ log_type: 'api_v2', start_time: String(t0) })).toEqual([]);
  });
});

describe('filters (spec 4.9: log_type, email, start_time/end_time epoch-ms strings, start/size)', () => {
  /** Five member calls inside a closed window [t0, t1]; one more after it. */
  let t0 = 0;
  let t1 = 0;
  beforeAll(async () => {
    await sleep(5);
    t0 = Date.now();
    for (let i = 0; i < 5; i++) expect((await member('GET', `/v2/batches?limit=${i + 1}`)).status).toBe(200);
    await atLeast({ email: MEMBER, start_time: String(t0) }, 5);
    t1 = Date.now();
    await sleep(5);
    expect((await member('GET', '/v2/svc/secrets?workspace=team')).status).toBe(200);
    await atLeast({ email: MEMBER, start_time: String(t0) }, 6);
  });

  it('log_type keeps only that type', async () => {
    const r = await audit({ log_type: 'org_secrets_v2' });
    expect(r.length).toBeGreaterThan(0);
    expect(r.every((e) => e.log_type === 'org_secrets_v2')).toBe(true);
    expect(await audit({ log_type: 'perms_v2' })).toEqual([]);
  });

  it('email keeps only that user', async () => {
    const r = await audit({ email: MEMBER });
    expect(r.length).toBeGreaterThanOrEqual(6);
    expect(r.every((e) => e.email === MEMBER)).toBe(true);
    expect(await audit({ email: 'nobody@sandbox.test' })).toEqual([]);
  });

  it('start_time and end_time bound the window, inclusive', async () => {
    const inside = await audit({ email: MEMBER, start_time: String(t0), end_time: String(t1) });
    expect(inside).toHaveLength(5);
    expect(inside.every((e) => Number(e.timestamp_millis) >= t0 && Number(e.timestamp_millis) <= t1)).toBe(true);
    expect(await audit({ email: MEMBER, start_time: String(t0) })).toHaveLength(6);
    const before = await audit({ email: MEMBER, end_time: String(t0 - 1) });
    expect(before.every((e) => Number(e.timestamp_millis) < t0)).toBe(true);
    const exact = Number(inside[0]?.timestamp_millis);
    const one = await audit({ email: MEMBER, start_time: String(exact), end_time: String(exact) });
    expect(one.length).toBeGreaterThanOrEqual(1);
    expect(one.every((e) => Number(e.timestamp_millis) === exact)).toBe(true);
  });

  it('start skips and size limits: pages of the window join up to the whole window', async () => {
    const window = { email: MEMBER, start_time: String(t0), end_time: String(t1) };
    const whole = await audit(window);
    const pages = [await audit({ ...window, start: 0, size: 2 }), await audit({ ...window, start: 2, size: 2 }), await audit({ ...window, start: 4, size: 2 })];
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(whole);
    expect(await audit({ ...window, start: 5, size: 2 })).toEqual([]);
    expect(await audit({ ...window, size: 0 })).toEqual([]);
  });

  it('null fields are the same as absent ones (every field is nullable)', async () => {
    const window = { email: MEMBER, start_time: String(t0), end_time: String(t1) };
    expect(await audit({ ...window, log_type: null, start: null, size: null })).toEqual(await audit(window));
  });

  it('a log_type outside the allowed list: 400 with {status: "ERROR"}', async () => {
    for (const log_type of ['files', 'API_V2', 42]) {
      const a = await admin<AuditAnswer>('POST', '/v1/auditlogs', { log_type });
      expect(a.status, String(log_type)).toBe(400);
      expect(a.body).toMatchObject({ status: 'ERROR', msg: expect.any(String) });
    }
  });

  it('start_time that is not epoch milliseconds, or a negative size: 400', async () => {
    expect((await admin('POST', '/v1/auditlogs', { start_time: 'yesterday' })).status).toBe(400);
    expect((await admin('POST', '/v1/auditlogs', { size: -1 })).status).toBe(400);
  });
});
