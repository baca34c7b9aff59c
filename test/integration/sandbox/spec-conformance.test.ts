/**
 * Independent conformance check of the sandbox, written from the service API spec alone
 * (shared/seed/000_2b3c07474fe509a4.txt), the open shapes of shared/notes/service-shapes.md, the
 * README's sandbox section and the statuses of issue 2. Part 1: batches, multipart, jobs, files,
 * audit logs, authentication, errors, limits, versioning. Runs and secrets: spec-conformance-runs.test.ts.
 * Each test name quotes the rule it checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, sandbox, waitFor, type Answer } from '../../helpers/sandbox.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';

type Call = ReturnType<typeof caller>;
let sb: Awaited<ReturnType<typeof sandbox>>;
let admin: Call, member: Call, service: Call;
let PS = 0; // part_size, learned from a session start
const t0 = Date.now();

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  member = caller(sb.url, 'member-token');
  service = caller(sb.url, 'service-token');
});
afterAll(async () => sb?.close());

const JOB_STATES = ['COMPLETE', 'FAILED', 'CANCELLED', 'RUNNING', 'PENDING'];
const TERMINAL = ['COMPLETE', 'FAILED', 'CANCELLED'];
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');
const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);
const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
let seq = 0;

async function newBatch(c: Call = admin, body: Record<string, unknown> = {}): Promise<number> {
  const r = await c('POST', '/v2/batches', { name: `batch-${++seq}`, ...body });
  expect(r.status).toBe(200);
  return r.body.id;
}
async function putFile(id: number, name: string, data: Uint8Array | string, c: Call = admin) {
  const r = await c('PUT', `/v2/batches/${id}/files/${encodeURIComponent(name)}`, data);
  expect(r.status).toBe(204);
}
async function listAll(id: number, c: Call = admin): Promise<any[]> {
  const r = await c('GET', `/v2/batches/${id}/files?page_size=1000`);
  expect(r.status).toBe(200);
  return r.body.nodes;
}
async function pollJob(id: string, base = '/v2/jobs/', c: Call = admin) {
  const seen: string[] = [];
  const job = await waitFor(async () => {
    const r = await c('GET', base + encodeURIComponent(id));
    expect(r.status).toBe(200);
    seen.push(r.body.state);
    return TERMINAL.includes(r.body.state) && r.body;
  }, `job ${id}`);
  return { job, seen };
}
async function readFile(path: string, c: Call = admin): Promise<Answer> {
  return c('GET', `/v2/files/${enc(path)}?expect-node-type=file`);
}
async function startSession(batch_id: number, filename: string, file_size: number | string) {
  const r = await admin('POST', '/v2/batches/multipart-upload', { batch_id, filename, file_size });
  expect(r.status).toBe(201);
  PS = r.body.part_size;
  return r.body.session_id as string;
}
const partPath = (sid: string, n: number) => `/v2/batches/multipart-upload/sessions/${encodeURIComponent(sid)}/parts/${n}`;
const sessPath = (sid: string) => `/v2/batches/multipart-upload/sessions/${encodeURIComponent(sid)}`;
/** Uploads `data` through a whole multipart session; returns the commit answer. */
async function multipart(batch: number, filename: string, data: Uint8Array): Promise<Answer> {
  const sid = await startSession(batch, filename, data.length);
  const parts: { part_num: number; part_id: string }[] = [];
  for (let n = 1; (n - 1) * PS < data.length; n++) {
    const r = await admin('PUT', partPath(sid, n), data.subarray((n - 1) * PS, n * PS));
    expect(r.status).toBe(201);
    parts.push({ part_num: n, part_id: r.body.part_id });
  }
  return admin('POST', sessPath(sid), { action: 'commit', parts });
}

describe('2. Resources and their fields', () => {
  it('2.1 "The create operation returns only `{id: integer}`"', async () => {
    const r = await admin('POST', '/v2/batches', { name: 'only-id' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['id']);
    expect(isInt(r.body.id)).toBe(true);
  });

  it('2.1 batchInfo: "id integer yes; name string yes; workspace, mount_point, repo_owner, batch_owner (Username of the creator), path_suffix string; created_at_ms, updated_at_ms integer (int64) Unix milliseconds"', async () => {
    const before = Date.now();
    const id = await newBatch(member, { name: 'shape', workspace: 'team' });
    const b = (await member('GET', `/v2/batches/${id}`)).body;
    expect(b.id).toBe(id);
    expect(b.name).toBe('shape');
    for (const k of ['workspace', 'mount_point', 'repo_owner', 'batch_owner', 'path_suffix']) if (b[k] !== undefined) expect(typeof b[k]).toBe('string');
    if (b.workspace !== undefined) expect(b.workspace).toBe('team');
    if (b.batch_owner !== undefined) expect(b.batch_owner).toBe('member');
    for (const k of ['created_at_ms', 'updated_at_ms']) {
      if (b[k] === undefined) continue;
      expect(isInt(b[k])).toBe(true);
      expect(b[k]).toBeGreaterThanOrEqual(before - 2000);
      expect(b[k]).toBeLessThanOrEqual(Date.now() + 2000);
    }
  });

  it('2.2 file node: "full_path, name, metadata.node_type, metadata.size (bytes), metadata.modified_timestamp (Unix seconds), perms.can_read/can_write/can_delete boolean"', async () => {
    const id = await newBatch();
    await putFile(id, 'node.txt', 'hello');
    const [n] = (await listAll(id)).filter((x) => x.name === 'node.txt');
    expect(n).toBeDefined();
    const b = (await admin('GET', `/v2/batches/${id}`)).body; // "mount_point: Connected drive"; "path_suffix: Batch path suffix from the mount point"
    if (b.mount_point !== undefined && b.path_suffix !== undefined) expect(n.full_path).toBe(`${b.mount_point}/${b.path_suffix}/node.txt`);
    if (b.repo_owner !== undefined) expect(b.repo_owner).toBe('admin'); // "Owner of the workspace" (personal-admin)
    if (n.full_path !== undefined) expect(n.full_path).toMatch(/node\.txt$/);
    if (n.metadata?.node_type !== undefined) expect(typeof n.metadata.node_type).toBe('string');
    if (n.metadata?.size !== undefined) expect(n.metadata.size).toBe(5);
    if (n.metadata?.modified_timestamp !== undefined) {
      expect(isInt(n.metadata.modified_timestamp)).toBe(true);
      expect(Math.abs(n.metadata.modified_timestamp - Date.now() / 1000)).toBeLessThan(120);
    }
    for (const p of ['can_read', 'can_write', 'can_delete']) if (n.perms?.[p] !== undefined) expect(typeof n.perms[p]).toBe('boolean');
  });

  it('2.3 file list: "nodes; next_page_token: Token to pass as `start_token` for the next page; has_more: Whether more files remain"', async () => {
    const id = await newBatch();
    for (let i = 0; i < 5; i++) await putFile(id, `p${i}.txt`, `x${i}`);
    const names: string[] = [];
    let token: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const r = await admin('GET', `/v2/batches/${id}/files?page_size=2${token ? `&start_token=${encodeURIComponent(token)}` : ''}`);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.body.nodes)).toBe(true);
      expect(r.body.nodes.length).toBeLessThanOrEqual(2);
      expect(typeof r.body.has_more).toBe('boolean');
      names.push(...r.body.nodes.map((n: any) => n.name));
      if (!r.body.has_more) break;
      expect(typeof r.body.next_page_token).toBe('string');
      token = r.body.next_page_token;
    }
    expect(names.sort()).toEqual(['p0.txt', 'p1.txt', 'p2.txt', 'p3.txt', 'p4.txt']);
  });

  it('2.4 job: "state enum COMPLETE, FAILED, CANCELLED, RUNNING, PENDING; message string"; "A job-creating operation returns `{job_id: string}`"', async () => {
    const r = await admin('DELETE', `/v2/batches/${await newBatch()}`);
    expect(r.status).toBe(202);
    expect(typeof r.body.job_id).toBe('string');
    const j = await admin('GET', `/v2/jobs/${encodeURIComponent(r.body.job_id)}`);
    expect(j.status).toBe(200);
    expect(JOB_STATES).toContain(j.body.state);
    expect(typeof j.body.message).toBe('string');
  });

  it('2.4 "Deleting a file from a batch returns an empty body (202)"', async () => {
    const id = await newBatch();
    await putFile(id, 'gone.txt', 'x');
    const r = await admin('DELETE', `/v2/batches/${id}/files/gone.txt`);
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('2.5 "session_id (string, required), part_size (integer, required)"; "part_id (string), part_num (integer; equal to the part number in the URL)"; "Commit/abort success (201): empty body"', async () => {
    const id = await newBatch();
    const s = await admin('POST', '/v2/batches/multipart-upload', { batch_id: id, filename: 'a.bin', file_size: 10 });
    expect(s.status).toBe(201);
    expect(typeof s.body.session_id).toBe('string');
    expect(isInt(s.body.part_size) && s.body.part_size > 0).toBe(true);
    const p = await admin('PUT', partPath(s.body.session_id, 1), bytes(10));
    expect(p.status).toBe(201);
    expect(typeof p.body.part_id).toBe('string');
    expect(p.body.part_num).toBe(1);
    const c = await admin('POST', sessPath(s.body.session_id), { action: 'commit', parts: [{ part_num: 1, part_id: p.body.part_id }] });
    expect(c.status).toBe(201);
    expect(c.text).toBe('');
    const sid2 = await startSession(id, 'b.bin', 10);
    const a = await admin('POST', sessPath(sid2), { action: 'abort' });
    expect(a.status).toBe(201);
    expect(a.text).toBe('');
  });
});

describe('3. States and transitions', () => {
  it('3.2 job states "PENDING, RUNNING, COMPLETE, FAILED, CANCELLED": every polled state is one of them and a batch deletion ends COMPLETE', async () => {
    const r = await admin('DELETE', `/v2/batches/${await newBatch()}`);
    const { job, seen } = await pollJob(r.body.job_id);
    for (const s of seen) expect(JOB_STATES).toContain(s);
    expect(job.state).toBe('COMPLETE');
  });

  it('3.3 step 1 "Start session | Batch exists | Returns `session_id` and `part_size`"', async () => {
    const sid = await startSession(await newBatch(), 'one.bin', 3);
    expect(typeof sid).toBe('string');
    expect(isInt(PS)).toBe(true);
  });

  it('3.3 step 2 "Part numbers consecutive from 1; each part of size `part_size` except the last, which may be smaller | Returns `part_id` and `part_num`"', async () => {
    const id = await newBatch();
    const sid = await startSession(id, 'three.bin', 1); // learn part_size first
    await admin('POST', sessPath(sid), { action: 'abort' });
    const data = bytes(2 * PS + Math.floor(PS / 2));
    const sid2 = await startSession(id, 'three.bin', data.length);
    for (const n of [1, 2, 3]) {
      const r = await admin('PUT', partPath(sid2, n), data.subarray((n - 1) * PS, n * PS));
      expect(r.status).toBe(201);
      expect(r.body.part_num).toBe(n);
      expect(typeof r.body.part_id).toBe('string');
    }
  });

  it('3.3 step 3a "Commit | All parts listed in order with `part_num` and `part_id` | Upload finalized into the batch under the given filename"', async () => {
    const id = await newBatch();
    await startSession(id, 'probe.bin', 1);
    const data = bytes(PS * 2 + 7, 5);
    expect((await multipart(id, 'big file.bin', data)).status).toBe(201);
    const node = (await listAll(id)).find((n) => n.name === 'big file.bin');
    expect(node).toBeDefined();
    if (node.metadata?.size !== undefined) expect(node.metadata.size).toBe(data.length);
    const raw = new Uint8Array(await (await fetch(`${sb.url}/v2/files/${enc(node.full_path)}?expect-node-type=file`, { headers: { Authorization: 'Bearer admin-token' } })).arrayBuffer());
    expect(Buffer.compare(Buffer.from(raw), Buffer.from(data))).toBe(0);
  });

  it('3.3 step 2: a file of exactly 2 × `part_size` is two full parts, the last one not smaller', async () => {
    const id = await newBatch();
    await startSession(id, 'probe.bin', 1);
    expect((await multipart(id, 'exact.bin', bytes(2 * PS))).status).toBe(201);
    expect((await multipart(id, 'one.bin', bytes(PS))).status).toBe(201);
    expect((await listAll(id)).map((n) => n.name).sort()).toEqual(['exact.bin', 'one.bin']);
  });

  it('3.3 step 3b "Abort | none | Session and all uploaded parts are discarded"', async () => {
    const id = await newBatch();
    await startSession(id, 'probe.bin', 1);
    const sid = await startSession(id, 'aborted.bin', PS + 1);
    expect((await admin('PUT', partPath(sid, 1), bytes(PS))).status).toBe(201);
    expect((await admin('POST', sessPath(sid), { action: 'abort' })).status).toBe(201);
    expect((await admin('PUT', partPath(sid, 2), bytes(1))).status).toBe(404);
    expect((await admin('POST', sessPath(sid), { action: 'commit', parts: [] })).status).toBe(404);
    expect((await listAll(id)).map((n) => n.name)).not.toContain('aborted.bin');
  });

  it('3.4 "Delete batch | 202 with `job_id`; batch and all its files are deleted | Poll the job until `state` is terminal"', async () => {
    const id = await newBatch();
    await putFile(id, 'f.txt', 'abc');
    const [node] = await listAll(id);
    const r = await admin('DELETE', `/v2/batches/${id}`);
    expect(r.status).toBe(202);
    expect((await pollJob(r.body.job_id)).job.state).toBe('COMPLETE');
    expect((await admin('GET', `/v2/batches/${id}`)).status).toBe(404);
    expect((await admin('GET', `/v2/batches/${id}/files`)).status).toBe(404);
    expect((await admin('HEAD', `/v2/files/${enc(node.full_path)}`)).status).toBe(404);
  });

  it('3.4 "Delete file from batch | 202, empty body | Poll the deletion job": the file then leaves the batch', async () => {
    const id = await newBatch();
    await putFile(id, 'keep.txt', 'k');
    await putFile(id, 'drop.txt', 'd');
    const r = await admin('DELETE', `/v2/batches/${id}/files/drop.txt`);
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
    await waitFor(async () => !(await listAll(id)).some((n) => n.name === 'drop.txt'), 'file deleted');
    expect((await listAll(id)).map((n) => n.name)).toEqual(['keep.txt']);
  });

  it('3.4 "Delete file or folder | 202, returned whether or not the target exists"', async () => {
    const p = 'svc-drive/workspaces/team/del/x.txt';
    expect((await admin('PUT', `/v2/files/${enc(p)}`, 'data')).status).toBeLessThan(300);
    expect((await admin('DELETE', `/v2/files/${enc(p)}`)).status).toBe(202);
    await waitFor(async () => (await admin('HEAD', `/v2/files/${enc(p)}`)).status === 404, 'file gone');
    expect((await admin('DELETE', `/v2/files/${enc('svc-drive/workspaces/team/never/there.txt')}`)).status).toBe(202);
  });
});

describe('4.1 Batches', () => {
  it('POST /v2/batches "200 `{id}`; name (required); workspace optional, default is the caller\'s personal workspace; must be given when the caller is a service account"', async () => {
    const a = await newBatch(admin, { name: 'default-ws' });
    expect((await admin('GET', `/v2/batches/${a}`)).body.workspace).toBe('personal-admin');
    const m = await newBatch(member, { name: 'm' });
    expect((await member('GET', `/v2/batches/${m}`)).body.workspace).toBe('personal-member');
    expect((await admin('POST', '/v2/batches', {})).status).toBe(400);
    expect((await admin('POST', '/v2/batches', { workspace: 'team' })).status).toBe(400);
    expect((await admin('POST', '/v2/batches', { name: 123 })).status).toBe(400);
    expect((await service('POST', '/v2/batches', { name: 'svc' })).status).toBe(400);
    expect((await service('POST', '/v2/batches', { name: 'svc', workspace: 'team' })).status).toBe(200);
    expect((await member('POST', '/v2/batches', { name: 'x', workspace: 'personal-admin' })).status).toBe(403);
  });

  it('GET /v2/batches "200 `{batches: [batchInfo]}`; query workspace, username (creator user ID), limit, offset"', async () => {
    const a1 = await newBatch(admin, { workspace: 'team' });
    const m1 = await newBatch(member, { workspace: 'team' });
    const all = await admin('GET', '/v2/batches');
    expect(all.status).toBe(200);
    for (const b of all.body.batches) expect(isInt(b.id) && typeof b.name === 'string').toBe(true);
    const ws = (await admin('GET', '/v2/batches?workspace=team')).body.batches;
    expect(ws.map((b: any) => b.id)).toEqual(expect.arrayContaining([a1, m1]));
    for (const b of ws) expect(b.workspace).toBe('team');
    const byUser = (await admin('GET', '/v2/batches?username=member')).body.batches;
    expect(byUser.map((b: any) => b.id)).toContain(m1);
    expect(byUser.map((b: any) => b.id)).not.toContain(a1);
    for (const b of byUser) expect(b.batch_owner).toBe('member');
    const two = (await admin('GET', '/v2/batches?limit=2&offset=0')).body.batches;
    expect(two).toHaveLength(2);
    const second = (await admin('GET', '/v2/batches?limit=1&offset=1')).body.batches;
    expect(second).toHaveLength(1);
    expect(second[0].id).toBe(two[1].id);
  });

  it('GET /v2/batches/{batch_id} "200 batchInfo"', async () => {
    const id = await newBatch(admin, { name: 'get-me' });
    const r = await admin('GET', `/v2/batches/${id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, name: 'get-me' });
  });

  it('DELETE /v2/batches/{batch_id} "202 `{job_id}`"', async () => {
    const r = await admin('DELETE', `/v2/batches/${await newBatch()}`);
    expect(r.status).toBe(202);
    expect(typeof r.body.job_id).toBe('string');
  });

  it('PUT /v2/batches/{batch_id}/files/{filename} "Body application/octet-stream; filename is a user-defined name including the extension | 204 (success)"', async () => {
    const id = await newBatch();
    const r = await admin('PUT', `/v2/batches/${id}/files/${encodeURIComponent('my invoice.v2.pdf')}`, bytes(100));
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await listAll(id)).map((n) => n.name)).toEqual(['my invoice.v2.pdf']);
  });

  it('DELETE /v2/batches/{batch_id}/files/{filename} "202 empty body"', async () => {
    const id = await newBatch();
    await putFile(id, 'a.txt', 'a');
    const r = await admin('DELETE', `/v2/batches/${id}/files/a.txt`);
    expect([r.status, r.text]).toEqual([202, '']);
    expect((await admin('DELETE', `/v2/batches/${id}/files/never-uploaded.txt`)).status).toBe(202); // 404 only "if the batch does not exist"
  });

  it('GET /v2/batches/{batch_id}/files "Query: page_size, start_token; optional | 200 file list response"', async () => {
    const id = await newBatch();
    await putFile(id, 'one.txt', '1');
    const r = await admin('GET', `/v2/batches/${id}/files`);
    expect(r.status).toBe(200);
    expect(r.body.nodes.map((n: any) => n.name)).toEqual(['one.txt']);
    expect(r.body.has_more).toBe(false);
  });

  it('GET /v2/batches/jobs/{job_id} "`job_id` string, from a batch deletion | 200 job"', async () => {
    const d = await admin('DELETE', `/v2/batches/${await newBatch()}`);
    const r = await admin('GET', `/v2/batches/jobs/${encodeURIComponent(d.body.job_id)}`);
    expect(r.status).toBe(200);
    expect(JOB_STATES).toContain(r.body.state);
  });

  it('4.1 rule 1 "A PUT to an existing filename replaces its contents"', async () => {
    const id = await newBatch();
    await putFile(id, 'same.txt', 'first version, long');
    await putFile(id, 'same.txt', 'second');
    const nodes = await listAll(id);
    expect(nodes).toHaveLength(1);
    if (nodes[0].metadata?.size !== undefined) expect(nodes[0].metadata.size).toBe(6);
    expect((await readFile(nodes[0].full_path)).text).toBe('second');
  });

  it('4.1 rule 2 "Files are uploaded one at a time. The suggested maximum per file is 10 MB; larger files use multipart upload"', async () => {
    const id = await newBatch();
    const big = bytes(10 * 1024 * 1024 + 1, 9);
    expect((await multipart(id, 'over-10mb.bin', big)).status).toBe(201);
    const node = (await listAll(id)).find((n) => n.name === 'over-10mb.bin');
    expect(node?.metadata?.size ?? big.length).toBe(big.length);
  });

  it('4.1 rule 3 "If the organization\'s default drive changes but remains connected, a batch can still be used as run input but no more files can be uploaded to it. If the default drive is disconnected, batches stored on it cannot be run input"', async () => {
    const own = await sandbox();
    try {
      const c = caller(own.url, 'admin-token');
      const drives = (body: unknown) => c('POST', '/sandbox/drives', body);
      expect((await drives({ default: 'object-drive' })).status).toBeLessThan(300);
      const r = await c('POST', '/v2/batches', { name: 'on-object', workspace: 'team' });
      const id = r.body.id;
      const info = (await c('GET', `/v2/batches/${id}`)).body;
      if (info.mount_point !== undefined) expect(info.mount_point).toBe('object-drive');
      expect((await c('PUT', `/v2/batches/${id}/files/inv.txt`, invoiceText({ invoiceNumber: 'D-1', invoiceDate: '2026-01-01', dueDate: '2026-01-31', total: '$10.00', vendor: 'Acme' }))).status).toBe(204);
      expect((await drives({ default: 'svc-drive' })).status).toBeLessThan(300);
      const up = await c('PUT', `/v2/batches/${id}/files/more.txt`, 'more');
      expect(up.status).toBeGreaterThanOrEqual(400);
      expect(up.status).toBeLessThan(500);
      expect((await c('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: id })).status).toBe(202);
      expect((await drives({ disconnect: ['object-drive'] })).status).toBeLessThan(300);
      const run = await c('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: id });
      expect(run.status).toBeGreaterThanOrEqual(400);
      expect(run.status).toBeLessThan(500);
    } finally {
      await own.close();
    }
  });
});

describe('4.2 Multipart upload and 4.3 Jobs', () => {
  it('POST /v2/batches/multipart-upload "batch_id (required), filename (required), file_size (required; may be given as an integer or a string) | 201 `{session_id, part_size}`"', async () => {
    const id = await newBatch();
    const ok = (body: unknown) => admin('POST', '/v2/batches/multipart-upload', body);
    expect((await ok({ batch_id: id, filename: 'n.bin', file_size: 5 })).status).toBe(201);
    const s = await ok({ batch_id: id, filename: 's.bin', file_size: '5' });
    expect(s.status).toBe(201);
    expect(typeof s.body.session_id).toBe('string');
    expect((await ok({ filename: 'x.bin', file_size: 5 })).status).toBe(400);
    expect((await ok({ batch_id: id, file_size: 5 })).status).toBe(400);
    expect((await ok({ batch_id: id, filename: 'x.bin' })).status).toBe(400);
    expect((await ok({ batch_id: id, filename: 'x.bin', file_size: 'five' })).status).toBe(400);
  });

  it('PUT .../sessions/{session_id}/parts/{part_num} "`part_num` integer starting at 1 | 201 `{part_id, part_num}`"', async () => {
    const sid = await startSession(await newBatch(), 'p.bin', 4);
    expect((await admin('PUT', partPath(sid, 0), bytes(4))).status).toBe(400);
    expect((await admin('PUT', partPath('no-such-session', 1), bytes(4))).status).toBe(404);
    expect((await admin('POST', sessPath('no-such-session'), { action: 'abort' })).status).toBe(404);
    const r = await admin('PUT', partPath(sid, 1), bytes(4));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ part_num: 1, part_id: expect.any(String) });
  });

  it('POST .../sessions/{session_id} "`action` (enum commit or abort, required), `parts` (required when action is commit; all uploaded parts in order) | 201 empty body"', async () => {
    const id = await newBatch();
    await startSession(id, 'probe.bin', 1);
    const sid = await startSession(id, 'c.bin', PS + 3);
    const p1 = (await admin('PUT', partPath(sid, 1), bytes(PS))).body.part_id;
    const p2 = (await admin('PUT', partPath(sid, 2), bytes(3))).body.part_id;
    const post = (body: unknown) => admin('POST', sessPath(sid), body);
    expect((await post({ parts: [] })).status).toBe(400);
    expect((await post({ action: 'finish' })).status).toBe(400);
    expect((await post({ action: 'commit' })).status).toBe(400);
    expect((await post({ action: 'commit', parts: [{ part_num: 1, part_id: p1 }] })).status).toBe(400);
    expect((await post({ action: 'commit', parts: [{ part_num: 2, part_id: p2 }, { part_num: 1, part_id: p1 }] })).status).toBe(400);
    expect((await post({ action: 'commit', parts: [{ part_num: 1, part_id: p1 }, { part_num: 2, part_id: 'not-a-part-id' }] })).status).toBe(400);
    const ok = await post({ action: 'commit', parts: [{ part_num: 1, part_id: p1 }, { part_num: 2, part_id: p2 }] });
    expect([ok.status, ok.text]).toEqual([201, '']);
    expect((await listAll(id)).map((n) => n.name)).toContain('c.bin');
  });

  it('GET /v2/jobs/{job_id} "200 job (`state`, `message`)"; unknown job 404 (issue 2)', async () => {
    const d = await admin('DELETE', `/v2/batches/${await newBatch()}`);
    const r = await admin('GET', `/v2/jobs/${encodeURIComponent(d.body.job_id)}`);
    expect(r.status).toBe(200);
    expect(JOB_STATES).toContain(r.body.state);
    expect(typeof r.body.message).toBe('string');
    expect((await admin('GET', '/v2/jobs/no-such-job')).status).toBe(404);
  });
});

describe('4.8 Files', () => {
  const W = 'svc-drive/workspaces/team/conf';
  it('GET "Query `expect-node-type` (required) | 200 application/octet-stream file contents"', async () => {
    await admin('PUT', `/v2/files/${enc(`${W}/read.txt`)}`, 'read me');
    const r = await readFile(`${W}/read.txt`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/octet-stream/);
    expect(r.text).toBe('read me');
    expect((await admin('GET', `/v2/files/${enc(`${W}/read.txt`)}`)).status).toBe(400);
    expect((await admin('GET', `/v2/files/${enc(`${W}/read.txt`)}?expect-node-type=blob`)).status).toBe(400); // file | folder (service-shapes)
  });

  it('GET "Header `Range` (a single HTTP byte range, inclusive bounds, non-negative start)": the inclusive slice, 206 with Content-Range (service-shapes)', async () => {
    await admin('PUT', `/v2/files/${enc(`${W}/range.txt`)}`, '0123456789');
    const r = await admin('GET', `/v2/files/${enc(`${W}/range.txt`)}?expect-node-type=file`, undefined, { Range: 'bytes=2-5' });
    expect(r.text).toBe('2345');
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe('bytes 2-5/10');
    const open = await admin('GET', `/v2/files/${enc(`${W}/range.txt`)}?expect-node-type=file`, undefined, { Range: 'bytes=7-' });
    expect([open.status, open.text]).toEqual([206, '789']);
    const past = await admin('GET', `/v2/files/${enc(`${W}/range.txt`)}?expect-node-type=file`, undefined, { Range: 'bytes=20-30' });
    expect(past.status).toBe(416);
  });

  it('GET "Header `Svc-Retry-Config` (retry if no file is found, constant backoff, with `retries` and `backoff-seconds`; no retry when absent)"', async () => {
    const p = `${W}/late-${Date.now()}.txt`;
    expect((await readFile(p)).status).toBe(404);
    const pending = admin('GET', `/v2/files/${enc(p)}?expect-node-type=file`, undefined, { 'Svc-Retry-Config': JSON.stringify({ retries: 5, 'backoff-seconds': 1 }) });
    await new Promise((r) => setTimeout(r, 300));
    await admin('PUT', `/v2/files/${enc(p)}`, 'arrived');
    const r = await pending;
    expect([r.status, r.text]).toEqual([200, 'arrived']);
    const t = Date.now();
    const never = await admin('GET', `/v2/files/${enc(`${p}.never`)}?expect-node-type=file`, undefined, { 'Svc-Retry-Config': JSON.stringify({ retries: 1, 'backoff-seconds': 1 }) });
    expect(never.status).toBe(404);
    expect(Date.now() - t).toBeGreaterThanOrEqual(900);
  });

  it('PUT "A missing parent folder is created first"; "201 only when the request carried `If-None-Match: *` and a new file was created; 412 when a file already exists and `If-None-Match` is present"; "a non-empty file"', async () => {
    const p = `${W}/deep/er/new.txt`;
    const c = await admin('PUT', `/v2/files/${enc(p)}`, 'v1', { 'If-None-Match': '*' });
    expect(c.status).toBe(201);
    const folder = await admin('HEAD', `/v2/files/${enc(`${W}/deep/er`)}`);
    expect(folder.status).toBe(200);
    expect(folder.headers.get('content-type')).toMatch(/application\/json/);
    expect((await admin('PUT', `/v2/files/${enc(p)}`, 'v2', { 'If-None-Match': '*' })).status).toBe(412);
    expect((await readFile(p)).text).toBe('v1');
    expect((await admin('PUT', `/v2/files/${enc(p)}`, 'v3')).status).toBe(204);
    expect((await admin('PUT', `/v2/files/${enc(`${W}/plain-new.txt`)}`, 'n')).status).toBe(204);
    expect((await admin('PUT', `/v2/files/${enc(p)}`, 'v4', { 'If-None-Match': '"some-etag"' })).status).toBe(412); // "and `If-None-Match` is present"
    expect((await admin('PUT', `/v2/files/${enc(`${W}/etag-new.txt`)}`, 'n', { 'If-None-Match': '"some-etag"' })).status).not.toBe(201); // "201 only when ... `If-None-Match: *`"
    expect((await readFile(p)).text).toBe('v3');
    expect((await admin('PUT', `/v2/files/${enc(`${W}/empty.txt`)}`, new Uint8Array(0))).status).toBe(400);
  });

  it('HEAD "200 metadata (file or folder; size and last modification time for a file)"; retry config "retry if nothing is found"', async () => {
    await admin('PUT', `/v2/files/${enc(`${W}/meta.bin`)}`, bytes(1234));
    const f = await admin('HEAD', `/v2/files/${enc(`${W}/meta.bin`)}`);
    expect(f.status).toBe(200);
    expect(f.headers.get('content-type')).toMatch(/application\/octet-stream/);
    expect(f.headers.get('content-length')).toBe('1234');
    expect(Math.abs(Date.parse(f.headers.get('last-modified') ?? '') - Date.now())).toBeLessThan(120_000);
    const d = await admin('HEAD', `/v2/files/${enc(W)}`);
    expect([d.status, d.headers.get('content-type')?.includes('application/json')]).toEqual([200, true]);
    const p = `${W}/head-late.txt`;
    const pending = admin('HEAD', `/v2/files/${enc(p)}`, undefined, { 'Svc-Retry-Config': JSON.stringify({ retries: 5, 'backoff-seconds': 1 }) });
    await new Promise((r) => setTimeout(r, 300));
    await admin('PUT', `/v2/files/${enc(p)}`, 'x');
    expect((await pending).status).toBe(200);
  });

  it('DELETE "none | 202" on a folder: the folder and its contents go', async () => {
    await admin('PUT', `/v2/files/${enc(`${W}/tree/a/b.txt`)}`, 'b');
    expect((await admin('DELETE', `/v2/files/${enc(`${W}/tree`)}`)).status).toBe(202);
    await waitFor(async () => (await admin('HEAD', `/v2/files/${enc(`${W}/tree`)}`)).status === 404, 'folder gone');
    expect((await admin('HEAD', `/v2/files/${enc(`${W}/tree/a/b.txt`)}`)).status).toBe(404);
  });

  it('"Filesystem support for PUT and DELETE": own drive yes, cloud object storage yes, "Cloud document drive | no"', async () => {
    for (const drive of ['svc-drive', 'object-drive']) {
      const p = `${drive}/workspaces/team/fs-${drive}.txt`;
      expect((await admin('PUT', `/v2/files/${enc(p)}`, 'ok')).status).toBeLessThan(300);
      expect((await admin('DELETE', `/v2/files/${enc(p)}`)).status).toBe(202);
    }
    const p = 'docs-drive/workspaces/team/no.txt';
    for (const r of [await admin('PUT', `/v2/files/${enc(p)}`, 'no'), await admin('DELETE', `/v2/files/${enc(p)}`)]) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
  });

  it('"The path must be accessible within the context of `Svc-Context`": a workspace the caller is not a member of is 403 (issue 2)', async () => {
    const p = 'svc-drive/workspaces/personal-admin/private.txt';
    await admin('PUT', `/v2/files/${enc(p)}`, 'mine');
    expect((await member('GET', `/v2/files/${enc(p)}?expect-node-type=file`)).status).toBe(403);
    expect((await member('PUT', `/v2/files/${enc(p)}`, 'theirs')).status).toBe(403);
    expect((await readFile(p)).text).toBe('mine');
  });
});

describe('4.9 Audit logs', () => {
  const audit = (body: unknown, c: Call = admin) => c('POST', '/v1/auditlogs', body);
  it('POST /v1/auditlogs "Response 200, a paginated list"; "every field optional and nullable"', async () => {
    for (const body of [{}, { start: null, size: null, log_type: null, email: null, start_time: null, end_time: null }]) {
      const r = await audit(body);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('OK');
      expect(Array.isArray(r.body.data.results)).toBe(true);
      expect(r.body.data.results.length).toBeGreaterThan(0);
    }
  });

  it('"start: Number of results to skip; size: Maximum number of results"', async () => {
    const end_time = String(Date.now()); // freezes the set: later calls are logged too
    await new Promise((r) => setTimeout(r, 5));
    const two = (await audit({ start: 0, size: 2, end_time })).body.data.results;
    expect(two).toHaveLength(2);
    const skip = (await audit({ start: 1, size: 1, end_time })).body.data.results;
    expect(skip).toEqual([two[1]]);
  });

  it('"Allowed `log_type` values: account_v2, api_v2, ... workspace_v2"; log_type filters', async () => {
    const allowed = ['account_v2', 'api_v2', 'app_deployment_run_v2', 'app_deployment_v2', 'app_v2', 'datasource_v2', 'login_v2', 'oauth2_v2', 'org_v2', 'org_secrets_v2', 'perms_v2', 'projects_v2', 'review_v2', 'workspace_v2'];
    for (const log_type of allowed) {
      const r = await audit({ log_type });
      expect(r.status).toBe(200);
      for (const e of r.body.data.results) expect(e.log_type).toBe(log_type);
    }
    await admin('POST', '/v2/svc/secrets', { alias: 'audit-probe', value: 'v', allowed_workspaces_type: 'ALL' });
    expect((await audit({ log_type: 'org_secrets_v2' })).body.data.results.length).toBeGreaterThan(0);
    expect((await audit({ log_type: 'not_a_type' })).status).toBe(400);
  });

  it('"email: Filter by user email"; "start_time / end_time: epoch milliseconds" (strings)', async () => {
    await member('GET', '/v2/batches');
    const all = (await audit({ size: 1000 })).body.data.results;
    const email = all.find((e: any) => typeof e.email === 'string' && e.email)?.email;
    expect(typeof email).toBe('string');
    const byMail = (await audit({ email, size: 1000 })).body.data.results;
    expect(byMail.length).toBeGreaterThan(0);
    for (const e of byMail) expect(e.email).toBe(email);
    const now = Date.now();
    const win = (await audit({ start_time: String(t0 - 1000), end_time: String(now + 1000), size: 1000 })).body.data.results;
    expect(win.length).toBeGreaterThan(0);
    for (const e of win) expect(Number(e.timestamp_millis)).toBeGreaterThanOrEqual(t0 - 1000);
    expect((await audit({ end_time: String(t0 - 3_600_000) })).body.data.results).toEqual([]);
    expect((await audit({ start_time: String(now + 3_600_000) })).body.data.results).toEqual([]);
  });
});

describe('5. Authentication', () => {
  it('5.1 "Every endpoint requires the header `Authorization` carrying a bearer credential": missing, unknown or non-Bearer credentials are 401 (issue 2)', async () => {
    const id = await newBatch();
    await putFile(id, 'x.txt', 'x');
    const sid = await startSession(id, 'y.bin', 3);
    const jid = (await admin('DELETE', `/v2/batches/${await newBatch()}`)).body.job_id;
    const run = (await admin('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: id })).body.id;
    const calls: [string, string, unknown?][] = [
      ['POST', '/v2/batches', { name: 'n' }], ['GET', '/v2/batches'], ['GET', `/v2/batches/${id}`], ['DELETE', `/v2/batches/${id}`],
      ['PUT', `/v2/batches/${id}/files/z.txt`, 'z'], ['DELETE', `/v2/batches/${id}/files/x.txt`], ['GET', `/v2/batches/${id}/files`],
      ['GET', `/v2/batches/jobs/${jid}`], ['POST', '/v2/batches/multipart-upload', { batch_id: id, filename: 'q', file_size: 1 }],
      ['PUT', partPath(sid, 1), 'abc'], ['POST', sessPath(sid), { action: 'abort' }], ['GET', `/v2/jobs/${jid}`],
      ['POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: id }], ['POST', '/v2/apps/runs', { app_id: 'app-invoice-extractor', batch_id: id }],
      ['GET', '/v2/apps/runs'], ['GET', `/v2/apps/runs/${run}`], ['DELETE', `/v2/apps/runs/${run}`], ['GET', `/v2/apps/runs/${run}/results`],
      ['POST', '/v2/svc/secrets', { alias: 'a', value: 'v', allowed_workspaces_type: 'ALL' }], ['GET', '/v2/svc/secrets'],
      ['PATCH', '/v2/svc/secrets', { alias: 'a' }], ['DELETE', '/v2/svc/secrets', { alias: 'a' }],
      ['GET', '/v2/files/svc-drive/workspaces/team/conf/read.txt?expect-node-type=file'], ['PUT', '/v2/files/svc-drive/workspaces/team/u.txt', 'u'],
      ['HEAD', '/v2/files/svc-drive/workspaces/team'], ['DELETE', '/v2/files/svc-drive/workspaces/team/u.txt'], ['POST', '/v1/auditlogs', {}],
    ];
    for (const c of [caller(sb.url, null), caller(sb.url, 'no-such-token'), caller(sb.url, null, { Authorization: 'admin-token' }), caller(sb.url, null, { Authorization: 'Basic admin-token' })]) {
      for (const [m, p, b] of calls) expect(`${m} ${p} -> ${(await c(m, p, b)).status}`).toBe(`${m} ${p} -> 401`);
    }
    expect((await admin('GET', `/v2/batches/${id}/files`)).body.nodes.map((n: any) => n.name)).toEqual(['x.txt']);
  });

  it('5.2 "Header `Svc-Context` (string, optional): typically the organization ID": absent or the org is accepted; any other value is 401 (issue 2)', async () => {
    const ok = caller(sb.url, 'admin-token', { 'Svc-Context': 'sandbox-org' });
    const bad = caller(sb.url, 'admin-token', { 'Svc-Context': 'other-org' });
    expect((await ok('POST', '/v2/batches', { name: 'ctx' })).status).toBe(200);
    expect((await ok('GET', '/v2/batches')).status).toBe(200);
    expect((await ok('PUT', '/v2/files/svc-drive/workspaces/team/ctx.txt', 'c')).status).toBeLessThan(300);
    expect((await bad('POST', '/v2/batches', { name: 'ctx' })).status).toBe(401);
    expect((await bad('GET', '/v2/batches')).status).toBe(401);
    expect((await bad('PUT', '/v2/files/svc-drive/workspaces/team/ctx2.txt', 'c')).status).toBe(401);
    expect((await bad('POST', '/v2/apps/deployments/sandbox-invoices/runs', { input_dir: 'svc-drive/workspaces/team/conf' })).status).toBe(401);
  });

  it('5.3 "Service accounts have no personal workspace: batch creation needs `workspace`"', async () => {
    expect((await service('POST', '/v2/batches', { name: 's' })).status).toBe(400);
    expect((await service('POST', '/v2/batches', { name: 's', workspace: 'team' })).status).toBe(200);
  });

  it('5.4 "Some operations are restricted to organization admins (secrets management) or need a special permission (audit logs)": 403 (issue 2)', async () => {
    expect((await member('POST', '/v2/svc/secrets', { alias: 'm', value: 'v', allowed_workspaces_type: 'ALL' })).status).toBe(403);
    expect((await member('POST', '/v1/auditlogs', {})).status).toBe(403);
    expect((await admin('POST', '/v1/auditlogs', {})).status).toBe(200);
  });

  it('5.5 "for get batch and list files the 404 response covers both a missing batch and denied access"', async () => {
    const mine = await newBatch(admin, { name: 'private' });
    expect((await member('GET', `/v2/batches/${mine}`)).status).toBe(404);
    expect((await member('GET', `/v2/batches/${mine}/files`)).status).toBe(404);
    expect((await member('GET', '/v2/batches/987654')).status).toBe(404);
    expect((await admin('GET', `/v2/batches/${mine}`)).status).toBe(200);
    // issue 2: "404 for ... batches the caller may not see (spec 5.5)" on the other batch operations too
    await putFile(mine, 'keep.txt', 'k');
    expect((await member('PUT', `/v2/batches/${mine}/files/evil.txt`, 'e')).status).toBe(404);
    expect((await member('DELETE', `/v2/batches/${mine}/files/keep.txt`)).status).toBe(404);
    expect((await member('POST', '/v2/batches/multipart-upload', { batch_id: mine, filename: 'e.bin', file_size: 1 })).status).toBe(404);
    expect((await member('DELETE', `/v2/batches/${mine}`)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 150));
    expect((await listAll(mine)).map((n) => n.name)).toEqual(['keep.txt']);
  });
});

describe('7. Errors', () => {
  const MISSING = 987_654_321;
  const rows: [string, () => Promise<number>][] = [
    ['404 | Get batch | Batch does not exist, or access denied', async () => {
      const denied = (await member('GET', `/v2/batches/${await newBatch()}`)).status;
      return denied === 404 ? (await admin('GET', `/v2/batches/${MISSING}`)).status : denied;
    }],
    ['404 | Delete batch | Batch does not exist', async () => (await admin('DELETE', `/v2/batches/${MISSING}`)).status],
    ['404 | Upload file to batch | Batch does not exist', async () => (await admin('PUT', `/v2/batches/${MISSING}/files/a.txt`, 'a')).status],
    ['404 | Delete file from batch | Batch does not exist', async () => (await admin('DELETE', `/v2/batches/${MISSING}/files/a.txt`)).status],
    ['404 | List files in a batch | Batch does not exist, or access denied', async () => {
      const denied = (await member('GET', `/v2/batches/${await newBatch()}/files`)).status;
      return denied === 404 ? (await admin('GET', `/v2/batches/${MISSING}/files`)).status : denied;
    }],
    ['404 | Start multipart session | Batch does not exist', async () => (await admin('POST', '/v2/batches/multipart-upload', { batch_id: MISSING, filename: 'a.bin', file_size: 1 })).status],
    ['404 | Read file metadata (HEAD) | No file or folder at the path', async () => (await admin('HEAD', '/v2/files/svc-drive/workspaces/team/nothing/here')).status],
  ];
  it.each(rows)('7 table "%s"', async (_name, fn) => expect(await fn()).toBe(404));

  it('7 table "412 | Create or overwrite file | A file already exists at the target and the `If-None-Match` header is present"', async () => {
    const p = '/v2/files/svc-drive/workspaces/team/exists.txt';
    await admin('PUT', p, 'one');
    expect((await admin('PUT', p, 'two', { 'If-None-Match': '*' })).status).toBe(412);
  });

  it('7 rule 1 "Success statuses: 200, 201, 202, 204 as listed per endpoint in section 4"', async () => {
    const created = await admin('POST', '/v2/batches', { name: 'statuses' });
    const id = created.body.id;
    const got: number[] = [created.status, (await admin('GET', '/v2/batches')).status, (await admin('GET', `/v2/batches/${id}`)).status];
    got.push((await admin('PUT', `/v2/batches/${id}/files/a.txt`, 'a')).status, (await admin('GET', `/v2/batches/${id}/files`)).status);
    const s = await admin('POST', '/v2/batches/multipart-upload', { batch_id: id, filename: 'm.bin', file_size: 1 });
    const p = await admin('PUT', partPath(s.body.session_id, 1), 'm');
    const c = await admin('POST', sessPath(s.body.session_id), { action: 'commit', parts: [{ part_num: 1, part_id: p.body.part_id }] });
    got.push(s.status, p.status, c.status, (await admin('DELETE', `/v2/batches/${id}/files/a.txt`)).status);
    const d = await admin('DELETE', `/v2/batches/${id}`);
    got.push(d.status, (await admin('GET', `/v2/jobs/${d.body.job_id}`)).status, (await admin('GET', `/v2/batches/jobs/${d.body.job_id}`)).status);
    expect(got).toEqual([200, 200, 200, 204, 200, 201, 201, 201, 202, 202, 200, 200]);
  });

  it('7 rule 2 "Delete file or folder returns 202 even when the target is missing"', async () => {
    expect((await admin('DELETE', '/v2/files/svc-drive/workspaces/team/missing-entirely')).status).toBe(202);
  });

  it('7 rules 4-5 ("not shown"): v2 errors are `{message}` JSON (service-shapes; issue 2) with 400 / 401 / 403 / 404', async () => {
    const answers = [
      [400, await admin('POST', '/v2/batches', {})],
      [401, await caller(sb.url, null)('GET', '/v2/batches')],
      [403, await member('POST', '/v2/svc/secrets', { alias: 'z', value: 'v', allowed_workspaces_type: 'ALL' })],
      [404, await admin('GET', `/v2/batches/${MISSING}`)],
    ] as const;
    for (const [status, r] of answers) {
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      expect(typeof (r.body as any).message).toBe('string');
    }
  });
});

describe('8. Limits', () => {
  it('"Batch name length | max 255 characters | Create batch"', async () => {
    expect((await admin('POST', '/v2/batches', { name: 'n'.repeat(255) })).status).toBe(200);
    expect((await admin('POST', '/v2/batches', { name: 'n'.repeat(256) })).status).toBe(400);
    expect((await admin('POST', '/v2/batches', { name: 'é'.repeat(255) })).status).toBe(200); // characters, not bytes
    expect((await admin('POST', '/v2/batches', { name: 'é'.repeat(256) })).status).toBe(400);
  });

  it('"Multipart filename length | max 255 characters | Start multipart session"', async () => {
    const id = await newBatch();
    const start = (filename: string) => admin('POST', '/v2/batches/multipart-upload', { batch_id: id, filename, file_size: 1 });
    expect((await start(`${'f'.repeat(251)}.bin`)).status).toBe(201);
    expect((await start(`${'f'.repeat(252)}.bin`)).status).toBe(400);
    expect((await start(`${'é'.repeat(251)}.bin`)).status).toBe(201); // characters, not bytes
    expect((await start(`${'é'.repeat(252)}.bin`)).status).toBe(400);
  });

  it('"Suggested maximum file size for single upload | 10 MB | Upload file to batch": a 10 MB single upload is accepted whole', async () => {
    const id = await newBatch();
    const data = bytes(10 * 1024 * 1024, 3);
    await putFile(id, 'ten.bin', data);
    const [n] = await listAll(id);
    expect(n.metadata?.size ?? data.length).toBe(data.length);
  });

  it('"Multipart part size | the `part_size` returned at session start; every part except the last must equal it; the last may be smaller"', async () => {
    const id = await newBatch();
    await startSession(id, 'probe.bin', 1);
    const sid = await startSession(id, 'sz.bin', 2 * PS + 10);
    expect((await admin('PUT', partPath(sid, 1), bytes(PS - 1))).status).toBe(400);
    expect((await admin('PUT', partPath(sid, 1), bytes(PS + 1))).status).toBe(400);
    expect((await admin('PUT', partPath(sid, 1), bytes(PS))).status).toBe(201);
    expect((await admin('PUT', partPath(sid, 2), bytes(PS))).status).toBe(201);
    expect((await admin('PUT', partPath(sid, 3), bytes(PS))).status).toBe(400);
    expect((await admin('PUT', partPath(sid, 3), bytes(10))).status).toBe(201);
  });

  it('"Part numbering | consecutive, starting at 1 | Upload part"', async () => {
    const id = await newBatch();
    await startSession(id, 'probe.bin', 1);
    const sid = await startSession(id, 'num.bin', 4 * PS);
    expect((await admin('PUT', partPath(sid, 2), bytes(PS))).status).toBe(400);
    expect((await admin('PUT', partPath(sid, 1), bytes(PS))).status).toBe(201);
    expect((await admin('PUT', partPath(sid, 3), bytes(PS))).status).toBe(400);
    expect((await admin('PUT', partPath(sid, 5), bytes(PS))).status).toBe(400);
    expect((await admin('PUT', partPath(sid, 2), bytes(PS))).status).toBe(201);
  });
});

describe('9. Versioning', () => {
  it('9.1 "Paths carry a version prefix: `/v2/...` for batches, runs, jobs, secrets and files; `/v1/auditlogs` for audit logs"', async () => {
    for (const p of ['/v2/batches', '/v2/apps/runs', '/v2/svc/secrets']) expect((await admin('GET', p)).status).toBe(200);
    expect((await admin('HEAD', '/v2/files/svc-drive/workspaces/team')).status).toBe(200);
    expect((await admin('POST', '/v1/auditlogs', {})).status).toBe(200);
  });

  it('9.2 "the generic job path under `/v2/jobs/{job_id}` is preferred and behaves the same" as /v2/batches/jobs/{job_id}', async () => {
    const id = await newBatch();
    await putFile(id, 'a.txt', 'a');
    const jid = (await admin('DELETE', `/v2/batches/${id}`)).body.job_id;
    const { job } = await pollJob(jid, '/v2/batches/jobs/');
    const g = await admin('GET', `/v2/jobs/${encodeURIComponent(jid)}`);
    expect(g.status).toBe(200);
    expect(g.body).toEqual(job);
    expect((await admin('GET', '/v2/batches/jobs/no-such-job')).status).toBe((await admin('GET', '/v2/jobs/no-such-job')).status);
  });
});
