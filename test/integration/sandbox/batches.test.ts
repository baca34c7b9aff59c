import { request } from 'node:http';
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, sandbox, waitFor } from '../../helpers/sandbox.js';

type Call = ReturnType<typeof caller>;

let sb: RunningSandbox;
let admin: Call;
let member: Call;
let service: Call;

beforeAll(async () => {
  // A job delay long enough to see PENDING/RUNNING from the wire, short enough to keep the file fast.
  sb = await sandbox({ jobDelayMs: 80 });
  admin = caller(sb.url, 'admin-token');
  member = caller(sb.url, 'member-token');
  service = caller(sb.url, 'service-token');
});
afterAll(async () => {
  await sb.close();
  await rm(sb.dataDir, { recursive: true, force: true });
});

async function newBatch(call: Call, body: Record<string, unknown> = {}): Promise<number> {
  const r = await call<{ id: number }>('POST', '/v2/batches', { name: `b-${randomBytes(4).toString('hex')}`, ...body });
  expect(r.status).toBe(200);
  return r.body.id;
}

async function readBack(fullPath: string): Promise<Buffer> {
  const res = await fetch(`${sb.url}/v2/files/${fullPath}?expect-node-type=file`, { headers: { Authorization: 'Bearer admin-token' } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Raw HTTP, for paths fetch would normalise (a ".." segment). */
function rawPut(path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(sb.url);
    const req = request({ host: u.hostname, port: u.port, method: 'PUT', path, headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/octet-stream' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls a job until it is terminal; returns every state seen, in order, without repeats. */
async function jobStates(call: Call, path: string): Promise<{ states: string[]; last: { state: string; message: string } }> {
  const states: string[] = [];
  const last = await waitFor(async () => {
    const r = await call<{ state: string; message: string }>('GET', path);
    expect(r.status).toBe(200);
    if (states[states.length - 1] !== r.body.state) states.push(r.body.state);
    return ['COMPLETE', 'FAILED', 'CANCELLED'].includes(r.body.state) ? r.body : undefined;
  }, `job ${path}`);
  return { states, last };
}

describe('POST /v2/batches (spec 4.1, 5.3, 8)', () => {
  it('answers 200 with only {id: integer}', async () => {
    const r = await admin('POST', '/v2/batches', { name: 'invoices' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['id']);
    expect(Number.isInteger(r.body.id)).toBe(true);
  });

  it('requires name', async () => {
    expect((await admin('POST', '/v2/batches', {})).status).toBe(400);
    expect((await admin('POST', '/v2/batches', { name: 42 })).status).toBe(400);
    const r = await admin('POST', '/v2/batches', { workspace: 'team' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/name/);
  });

  it('takes a name of 255 characters and refuses 256 (spec 8)', async () => {
    const ok = await admin('POST', '/v2/batches', { name: 'n'.repeat(255) });
    expect(ok.status).toBe(200);
    expect((await admin('GET', `/v2/batches/${ok.body.id}`)).body.name).toBe('n'.repeat(255));
    expect((await admin('POST', '/v2/batches', { name: 'n'.repeat(256) })).status).toBe(400);
  });

  it('defaults to the personal workspace; a service account must name one (spec 5.3)', async () => {
    const id = await newBatch(member);
    expect((await member('GET', `/v2/batches/${id}`)).body.workspace).toBe('personal-member');
    const bare = await service('POST', '/v2/batches', { name: 'svc' });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toMatch(/workspace/);
    const teamId = await newBatch(service, { workspace: 'team' });
    expect((await service('GET', `/v2/batches/${teamId}`)).body.workspace).toBe('team');
  });

  it('refuses a workspace the caller is not a member of with 403', async () => {
    expect((await member('POST', '/v2/batches', { name: 'x', workspace: 'personal-admin' })).status).toBe(403);
    expect((await service('POST', '/v2/batches', { name: 'x', workspace: 'personal-member' })).status).toBe(403);
    expect((await admin('POST', '/v2/batches', { name: 'x', workspace: 'no-such-workspace' })).status).toBe(403);
  });
});

describe('GET /v2/batches and /v2/batches/{id} (spec 2.1, 4.1, 5.5)', () => {
  let adminOwn: number;
  let memberOwn: number;
  const team: number[] = [];
  beforeAll(async () => {
    adminOwn = await newBatch(admin);
    memberOwn = await newBatch(member);
    for (let i = 0; i < 3; i++) team.push(await newBatch(i === 0 ? member : service, { workspace: 'team' }));
  });

  it('returns batchInfo with every field of 2.1', async () => {
    const before = Date.now();
    const id = await newBatch(member, { workspace: 'team', name: 'fields' });
    const r = await member('GET', `/v2/batches/${id}`);
    expect(r.status).toBe(200);
    const b = r.body;
    expect(b).toMatchObject({ id, name: 'fields', workspace: 'team', mount_point: 'svc-drive', batch_owner: 'member', path_suffix: `workspaces/team/batches/${id}` });
    expect(typeof b.repo_owner).toBe('string');
    expect(b.created_at_ms).toBeGreaterThanOrEqual(before - 1000);
    expect(b.created_at_ms).toBeLessThanOrEqual(Date.now());
    expect(b.updated_at_ms).toBeGreaterThanOrEqual(b.created_at_ms);
  });

  it('answers 404 for an unknown or malformed batch id', async () => {
    expect((await admin('GET', '/v2/batches/999999')).status).toBe(404);
    expect((await admin('GET', '/v2/batches/not-a-number')).status).toBe(404);
  });

  it("answers 404, not 403, for a batch in another user's personal workspace (spec 5.5)", async () => {
    const r = await member('GET', `/v2/batches/${adminOwn}`);
    expect(r.status).toBe(404);
    expect((await service('GET', `/v2/batches/${memberOwn}`)).status).toBe(404);
    expect((await member('GET', `/v2/batches/${memberOwn}`)).status).toBe(200);
  });

  it('lists only the batches the caller can see', async () => {
    const ids = ((await member('GET', '/v2/batches')).body.batches as { id: number }[]).map((b) => b.id);
    expect(ids).toContain(memberOwn);
    for (const t of team) expect(ids).toContain(t);
    expect(ids).not.toContain(adminOwn);
    const svcIds = ((await service('GET', '/v2/batches')).body.batches as { id: number; workspace: string }[]);
    expect(svcIds.length).toBeGreaterThanOrEqual(3);
    expect(svcIds.every((b) => b.workspace === 'team')).toBe(true);
  });

  it('filters by workspace and username, pages with limit and offset', async () => {
    const inTeam = (await member('GET', '/v2/batches?workspace=team')).body.batches as { id: number; workspace: string; batch_owner: string }[];
    expect(inTeam.length).toBeGreaterThanOrEqual(3);
    expect(inTeam.every((b) => b.workspace === 'team')).toBe(true);
    const bySvc = (await member('GET', '/v2/batches?workspace=team&username=service')).body.batches as { id: number; batch_owner: string }[];
    expect(bySvc.map((b) => b.id)).toEqual(expect.arrayContaining(team.slice(1)));
    expect(bySvc.every((b) => b.batch_owner === 'service')).toBe(true);
    const all = inTeam.map((b) => b.id);
    const p1 = (await member('GET', '/v2/batches?workspace=team&limit=2')).body.batches as { id: number }[];
    const p2 = (await member('GET', '/v2/batches?workspace=team&limit=2&offset=2')).body.batches as { id: number }[];
    expect(p1.map((b) => b.id)).toEqual(all.slice(0, 2));
    expect(p2.map((b) => b.id)).toEqual(all.slice(2, 4));
  });

  it('refuses to list a workspace the caller is not a member of (403)', async () => {
    expect((await member('GET', '/v2/batches?workspace=personal-admin')).status).toBe(403);
  });
});

describe('PUT and GET /v2/batches/{id}/files (spec 2.2, 2.3, 4.1)', () => {
  it('uploads with 204; a PUT to an existing name replaces it (rule 1)', async () => {
    const id = await newBatch(admin, { workspace: 'team' });
    const before = (await admin('GET', `/v2/batches/${id}`)).body.updated_at_ms as number;
    const first = randomBytes(1000);
    const put = await admin('PUT', `/v2/batches/${id}/files/a.pdf`, first);
    expect(put.status).toBe(204);
    expect(put.text).toBe('');
    const second = randomBytes(300);
    expect((await admin('PUT', `/v2/batches/${id}/files/a.pdf`, second)).status).toBe(204);
    const list = await admin('GET', `/v2/batches/${id}/files`);
    expect(list.status).toBe(200);
    expect(list.body.nodes).toHaveLength(1);
    const node = list.body.nodes[0];
    expect(node.metadata.size).toBe(300);
    expect((await readBack(node.full_path)).equals(second)).toBe(true);
    expect((await admin('GET', `/v2/batches/${id}`)).body.updated_at_ms).toBeGreaterThanOrEqual(before);
  });

  it('answers 404 for an unknown batch or one the caller cannot see', async () => {
    expect((await admin('PUT', '/v2/batches/999999/files/a.txt', 'x')).status).toBe(404);
    const own = await newBatch(admin);
    expect((await member('PUT', `/v2/batches/${own}/files/a.txt`, 'x')).status).toBe(404);
  });

  it('refuses filenames that are not one plain name of at most 255 characters', async () => {
    const id = await newBatch(admin);
    expect((await admin('PUT', `/v2/batches/${id}/files/a%2Fb.txt`, 'x')).status).toBe(400);
    expect((await admin('PUT', `/v2/batches/${id}/files/${'f'.repeat(256)}`, 'x')).status).toBe(400);
    expect((await admin('PUT', `/v2/batches/${id}/files/${'f'.repeat(251)}.txt`, 'x')).status).toBe(204);
    const names = ((await admin('GET', `/v2/batches/${id}/files`)).body.nodes as { name: string }[]).map((n) => n.name);
    expect(names).toEqual([`${'f'.repeat(251)}.txt`]);
  });

  it('refuses a ".." or "." filename with 400 instead of resolving the dot segment away', async () => {
    const id = await newBatch(admin);
    for (const name of ['..', '%2E%2E', '.']) expect(await rawPut(`/v2/batches/${id}/files/${name}`, 'x'), name).toBe(400);
    expect((await admin('GET', `/v2/batches/${id}/files`)).body.nodes).toEqual([]);
  });

  it('lists nodes with full_path, name, metadata and perms', async () => {
    const id = await newBatch(member, { workspace: 'team' });
    const bytes = randomBytes(777);
    await member('PUT', `/v2/batches/${id}/files/scan%201.pdf`, bytes);
    const r = await member('GET', `/v2/batches/${id}/files`);
    expect(r.status).toBe(200);
    expect(r.body.has_more).toBe(false);
    const [node] = r.body.nodes;
    expect(node.name).toBe('scan 1.pdf');
    expect(node.full_path).toBe(`svc-drive/workspaces/team/batches/${id}/scan 1.pdf`);
    expect(node.metadata.node_type).toBe('file');
    expect(node.metadata.size).toBe(777);
    expect(Math.abs(node.metadata.modified_timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(node.perms).toEqual({ can_read: true, can_write: true, can_delete: true });
    expect((await readBack(encodeURI(node.full_path))).equals(bytes)).toBe(true);
  });

  it('pages with page_size and start_token until has_more is false', async () => {
    const id = await newBatch(admin);
    const names = ['e.txt', 'a.txt', 'd.txt', 'b.txt', 'c.txt'];
    for (const n of names) expect((await admin('PUT', `/v2/batches/${id}/files/${n}`, n)).status).toBe(204);
    const pages: string[][] = [];
    let token: string | undefined;
    for (;;) {
      const r = await admin('GET', `/v2/batches/${id}/files?page_size=2${token ? `&start_token=${encodeURIComponent(token)}` : ''}`);
      expect(r.status).toBe(200);
      pages.push((r.body.nodes as { name: string }[]).map((n) => n.name));
      if (!r.body.has_more) break;
      expect(typeof r.body.next_page_token).toBe('string');
      token = r.body.next_page_token;
      expect(pages.length).toBeLessThan(5);
    }
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat().sort()).toEqual([...names].sort());
  });

  it('answers 404 for an unknown batch and for a denied one (spec 5.5)', async () => {
    expect((await admin('GET', '/v2/batches/999999/files')).status).toBe(404);
    const own = await newBatch(admin);
    expect((await member('GET', `/v2/batches/${own}/files`)).status).toBe(404);
  });
});

describe('DELETE /v2/batches/{id}/files/{name} (spec 2.4, 3.4)', () => {
  it('answers 202 with an empty body and a Location of a job that removes the file', async () => {
    const id = await newBatch(admin);
    await admin('PUT', `/v2/batches/${id}/files/keep.txt`, 'keep');
    await admin('PUT', `/v2/batches/${id}/files/gone.txt`, 'gone');
    const r = await admin('DELETE', `/v2/batches/${id}/files/gone.txt`);
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
    const loc = r.headers.get('location');
    expect(loc).toMatch(/^\/v2\/jobs\/[^/]+$/);
    const { states, last } = await jobStates(admin, loc as string);
    expect(['PENDING', 'RUNNING']).toContain(states[0]);
    expect(last.state).toBe('COMPLETE');
    const names = ((await admin('GET', `/v2/batches/${id}/files`)).body.nodes as { name: string }[]).map((n) => n.name);
    expect(names).toEqual(['keep.txt']);
  });

  it('a missing file: 202, then the job FAILS', async () => {
    const id = await newBatch(admin);
    const r = await admin('DELETE', `/v2/batches/${id}/files/never.txt`);
    expect(r.status).toBe(202);
    const { last } = await jobStates(admin, r.headers.get('location') as string);
    expect(last.state).toBe('FAILED');
    expect(last.message).toMatch(/never\.txt/);
  });

  it('answers 404 for an unknown batch', async () => {
    expect((await admin('DELETE', '/v2/batches/999999/files/a.txt')).status).toBe(404);
  });
});

describe('DELETE /v2/batches/{id} and job polling (spec 3.2, 3.4, 4.3, 9.2)', () => {
  it('answers 202 {job_id}; the job moves through PENDING/RUNNING to COMPLETE; both job paths agree', async () => {
    const id = await newBatch(admin);
    await admin('PUT', `/v2/batches/${id}/files/a.txt`, 'a');
    const r = await admin('DELETE', `/v2/batches/${id}`);
    expect(r.status).toBe(202);
    expect(typeof r.body.job_id).toBe('string');
    const jobId = r.body.job_id as string;
    const early = await admin('GET', `/v2/batches/jobs/${jobId}`);
    expect(early.status).toBe(200);
    expect(['PENDING', 'RUNNING']).toContain(early.body.state);
    const { states, last } = await jobStates(admin, `/v2/jobs/${jobId}`);
    expect(states.some((s) => s === 'PENDING' || s === 'RUNNING')).toBe(true);
    expect(last.state).toBe('COMPLETE');
    const generic = await admin('GET', `/v2/jobs/${jobId}`);
    const legacy = await admin('GET', `/v2/batches/jobs/${jobId}`);
    expect(legacy.status).toBe(200);
    expect(legacy.body).toEqual(generic.body);
    expect(Object.keys(generic.body).sort()).toEqual(['message', 'state']);
    expect((await admin('GET', `/v2/batches/${id}`)).status).toBe(404);
    expect((await admin('GET', `/v2/batches/${id}/files`)).status).toBe(404);
  });

  it('answers 404 for an unknown batch and for an unknown job on both paths', async () => {
    expect((await admin('DELETE', '/v2/batches/999999')).status).toBe(404);
    expect((await admin('GET', '/v2/jobs/job_nope')).status).toBe(404);
    expect((await admin('GET', '/v2/batches/jobs/job_nope')).status).toBe(404);
  });
});

describe('spec 4.1 rule 3: batches and the default drive', () => {
  let sb2: RunningSandbox;
  let call: Call;
  beforeAll(async () => {
    sb2 = await sandbox();
    call = caller(sb2.url, 'admin-token');
  });
  afterAll(async () => {
    await sb2.close();
    await rm(sb2.dataDir, { recursive: true, force: true });
  });

  const run = (batchId: number) => call('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: batchId });

  it('after the default drive changes an old batch takes no new files but is still run input; once its drive is disconnected it is not', async () => {
    const old = (await call('POST', '/v2/batches', { name: 'old', workspace: 'team' })).body.id as number;
    expect((await call('PUT', `/v2/batches/${old}/files/a.txt`, 'Invoice Number: INV-1\nTotal: $10.00\n')).status).toBe(204);

    expect((await call('POST', '/sandbox/drives', { default: 'object-drive' })).status).toBe(200);
    const put = await call('PUT', `/v2/batches/${old}/files/b.txt`, 'more');
    expect(put.status).toBe(400);
    expect(put.body.message).toMatch(/default/);
    expect((await call('POST', '/v2/batches/multipart-upload', { batch_id: old, filename: 'c.bin', file_size: 10 })).status).toBe(400);
    const ok = await run(old);
    expect(ok.status).toBe(202);
    expect(ok.body.batch_id).toBe(old);

    const fresh = (await call('POST', '/v2/batches', { name: 'new', workspace: 'team' })).body.id as number;
    expect((await call('GET', `/v2/batches/${fresh}`)).body.mount_point).toBe('object-drive');
    expect((await call('PUT', `/v2/batches/${fresh}/files/a.txt`, 'x')).status).toBe(204);

    expect((await call('POST', '/sandbox/drives', { disconnect: ['svc-drive'] })).status).toBe(200);
    const refused = await run(old);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/disconnected/);
    expect((await run(fresh)).status).toBe(202);
  });
});
