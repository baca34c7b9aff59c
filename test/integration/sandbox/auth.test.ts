/**
 * Authentication and context (spec 4 preamble, 5.1, 5.2), routing errors and the error-body shape,
 * tested from the wire: every endpoint group refuses a missing or unknown bearer token and a context
 * other than the caller's organization, and accepts the organization's own context.
 */
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, locationJob, sandbox, waitFor, type Answer } from '../../helpers/sandbox.js';

let sb: RunningSandbox;
let admin: ReturnType<typeof caller>;
let batchId = 0;
let runId = '';
let jobId = '';

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  const b = await admin<{ id: number }>('POST', '/v2/batches', { name: 'auth-tests', workspace: 'team' });
  expect(b.status).toBe(200);
  batchId = b.body.id;
  expect((await admin('PUT', `/v2/batches/${batchId}/files/note.txt`, 'Invoice Number: A-1\nTotal: $10.00\n')).status).toBe(204);
  expect((await admin('PUT', '/v2/files/svc-drive/auth/seed.txt', 'seed bytes')).status).toBe(204);
  const run = await admin<{ id: string }>('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: batchId });
  expect(run.status).toBe(202);
  runId = run.body.id;
  const del = await admin('DELETE', '/v2/files/svc-drive/auth/nothing-here.txt');
  expect(del.status).toBe(202);
  jobId = locationJob(del);
});

afterAll(async () => {
  await sb?.close();
  if (sb) await rm(sb.dataDir, { recursive: true, force: true });
});

interface Probe {
  group: string;
  method: string;
  path: () => string;
  body?: () => unknown;
  ok: number;
}

/** One representative endpoint of every group, with the success status the spec gives it. */
const PROBES: Probe[] = [
  { group: 'batches', method: 'GET', path: () => '/v2/batches', ok: 200 },
  { group: 'batches (create)', method: 'POST', path: () => '/v2/batches', body: () => ({ name: 'probe', workspace: 'team' }), ok: 200 },
  { group: 'multipart', method: 'POST', path: () => '/v2/batches/multipart-upload', body: () => ({ batch_id: batchId, filename: 'm.bin', file_size: 10 }), ok: 201 },
  { group: 'jobs', method: 'GET', path: () => `/v2/jobs/${jobId}`, ok: 200 },
  { group: 'runs', method: 'GET', path: () => `/v2/apps/runs/${runId}`, ok: 200 },
  { group: 'runs (list)', method: 'GET', path: () => '/v2/apps/runs', ok: 200 },
  { group: 'results', method: 'GET', path: () => `/v2/apps/runs/${runId}/results`, ok: 200 },
  { group: 'secrets', method: 'GET', path: () => '/v2/svc/secrets', ok: 200 },
  { group: 'files GET', method: 'GET', path: () => '/v2/files/svc-drive/auth/seed.txt?expect-node-type=file', ok: 200 },
  { group: 'files PUT', method: 'PUT', path: () => '/v2/files/svc-drive/auth/put.txt', body: () => 'put bytes', ok: 204 },
  { group: 'files HEAD', method: 'HEAD', path: () => '/v2/files/svc-drive/auth/seed.txt', ok: 200 },
  { group: 'files DELETE', method: 'DELETE', path: () => '/v2/files/svc-drive/auth/put-later.txt', ok: 202 },
];

function expectMessage(a: Answer): void {
  expect(a.headers.get('content-type')).toContain('application/json');
  expect(a.body).toEqual({ message: expect.any(String) });
  expect((a.body as { message: string }).message.length).toBeGreaterThan(0);
}

function expect401(a: Answer, method: string): void {
  expect(a.status).toBe(401);
  if (method !== 'HEAD') expectMessage(a);
}

describe.each(PROBES)('$group: $method (spec 5.1 Authorization required everywhere, 5.2 Svc-Context)', (p) => {
  it('answers 401 {message} without an Authorization header', async () => {
    const a = await caller(sb.url, null)(p.method, p.path(), p.body?.());
    expect401(a, p.method);
    expect(a.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers 401 {message} for an unknown bearer token', async () => {
    expect401(await caller(sb.url, 'no-such-token')(p.method, p.path(), p.body?.()), p.method);
  });

  it('answers 401 {message} for a valid token with "Svc-Context: other-org"', async () => {
    expect401(await caller(sb.url, 'admin-token', { 'Svc-Context': 'other-org' })(p.method, p.path(), p.body?.()), p.method);
  });

  it('answers the success status with "Svc-Context: sandbox-org" (the caller\'s own organization)', async () => {
    const a = await caller(sb.url, 'admin-token', { 'Svc-Context': 'sandbox-org' })(p.method, p.path(), p.body?.());
    expect(a.status).toBe(p.ok);
  });

  it('answers the success status with no Svc-Context (context defaults to the caller\'s organization)', async () => {
    const a = await admin(p.method, p.path(), p.body?.());
    expect(a.status).toBe(p.ok);
  });
});

describe('a refused call has no effect', () => {
  it('a file PUT refused for its token or context writes nothing', async () => {
    const path = '/v2/files/svc-drive/auth/refused.txt';
    expect((await caller(sb.url, null)('PUT', path, 'x')).status).toBe(401);
    expect((await caller(sb.url, 'bad')('PUT', path, 'x')).status).toBe(401);
    expect((await caller(sb.url, 'admin-token', { 'Svc-Context': 'other-org' })('PUT', path, 'x')).status).toBe(401);
    expect((await admin('HEAD', path)).status).toBe(404);
  });

  it('a batch creation refused for its context creates no batch', async () => {
    const before = (await admin<{ batches: unknown[] }>('GET', '/v2/batches')).body.batches.length;
    expect((await caller(sb.url, 'admin-token', { 'Svc-Context': 'other-org' })('POST', '/v2/batches', { name: 'no' })).status).toBe(401);
    expect((await admin<{ batches: unknown[] }>('GET', '/v2/batches')).body.batches.length).toBe(before);
  });

  it('the other users\' tokens are accepted too, and a context check applies to them as well', async () => {
    expect((await caller(sb.url, 'member-token')('GET', '/v2/batches')).status).toBe(200);
    expect((await caller(sb.url, 'service-token')('GET', '/v2/batches')).status).toBe(200);
    expect((await caller(sb.url, 'member-token', { 'Svc-Context': 'sandbox-org-2' })('GET', '/v2/batches')).status).toBe(401);
  });
});

describe('audit-log endpoint (spec 4.9: header Authorization only)', () => {
  it('ignores Svc-Context: a foreign context still gets 200 {status: "OK"}', async () => {
    const a = await caller(sb.url, 'admin-token', { 'Svc-Context': 'other-org' })('POST', '/v1/auditlogs', { size: 1 });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ status: 'OK', data: { results: expect.any(Array) } });
  });

  it('still requires Authorization: 401 without it or with an unknown token', async () => {
    expect((await caller(sb.url, null)('POST', '/v1/auditlogs', {})).status).toBe(401);
    expect((await caller(sb.url, 'nope')('POST', '/v1/auditlogs', {})).status).toBe(401);
  });
});

describe('routing errors', () => {
  it('an unknown endpoint answers 404 {message}', async () => {
    for (const path of ['/v2/nothing-here', '/v3/batches', '/v2/batches/1/nope/deeper', '/']) {
      const a = await admin('GET', path);
      expect(a.status, path).toBe(404);
      expectMessage(a);
    }
  });

  it('a known path with a method it does not take answers 405 {message} with Allow', async () => {
    const a = await admin('PATCH', '/v2/batches', {});
    expect(a.status).toBe(405);
    expectMessage(a);
    expect(a.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
    const b = await admin('GET', '/v1/auditlogs');
    expect(b.status).toBe(405);
    expect(b.headers.get('allow')).toBe('POST');
    expect((await admin('POST', `/v2/jobs/${jobId}`, {})).status).toBe(405);
  });
});

describe('error bodies are {message} JSON (issue 2, section 2)', () => {
  it('400 invalid input, 403 no membership, 404 unknown batch all carry {message}', async () => {
    const bad = await admin('POST', '/v2/batches', {});
    expect(bad.status).toBe(400);
    expectMessage(bad);
    const forbidden = await caller(sb.url, 'member-token')('GET', '/v2/files/svc-drive/workspaces/personal-admin/x?expect-node-type=file');
    expect(forbidden.status).toBe(403);
    expectMessage(forbidden);
    const missing = await admin('GET', '/v2/batches/999999');
    expect(missing.status).toBe(404);
    expectMessage(missing);
    const badJson = await admin('POST', '/v2/batches', '{not json', { 'Content-Type': 'application/json' });
    expect(badJson.status).toBe(400);
    expectMessage(badJson);
  });
});

describe('network exposure (issue 2: binds 127.0.0.1 only)', () => {
  const reachable = (host: string, port: number): Promise<boolean> =>
    new Promise((resolve) => {
      const s = connect({ host, port });
      s.setTimeout(1000);
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
      s.once('timeout', () => (s.destroy(), resolve(false)));
    });

  it('its url names 127.0.0.1 and the port it answers on', async () => {
    const u = new URL(sb.url);
    expect(u.hostname).toBe('127.0.0.1');
    expect(Number(u.port)).toBe(sb.port);
    expect(await reachable('127.0.0.1', sb.port)).toBe(true);
    expect((await caller(sb.url, null)('GET', '/sandbox/health')).status).toBe(200);
  });

  it('is not reachable on any other address of this machine (IPv6 loopback, external interfaces)', async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && !i.address.startsWith('127.') && !i.address.startsWith('fe80:'))
      .map((i) => i!.address.split('%')[0] as string);
    for (const host of new Set(['::1', ...others])) {
      expect(await reachable(host, sb.port), host).toBe(false);
    }
  });
});

describe('the run probed above is real', () => {
  it('completes, so the runs/results probes hit an existing run', async () => {
    const done = await waitFor(async () => {
      const r = await admin<{ status: string }>('GET', `/v2/apps/runs/${runId}`);
      return r.body.status === 'COMPLETE' ? r : null;
    }, 'run to complete');
    expect(done.body.status).toBe('COMPLETE');
  });
});
