/** Contract of the batch and job endpoints (spec 4.1, 4.3, 7) through the client, against the sandbox. */
import { stat, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptRefused } from '../../../electron/engine/service/errors.js';
import { ServiceError, type ServiceClient } from '../../../electron/engine/service/index.js';
import { batchFilePath, clientEnv, failure, type ClientEnv } from './env.js';

let env: ClientEnv;
let admin: ServiceClient;
let member: ServiceClient;

beforeAll(async () => {
  env = await clientEnv();
  admin = env.client('admin-token', { username: 'admin' });
  member = env.client('member-token');
});
afterAll(() => env.close());

const wait = { initialDelayMs: 10, maxDelayMs: 50, timeoutMs: 10_000 };

describe('batches (spec 4.1)', () => {
  it('create answers {id}; get answers batchInfo with the fields of 2.1', async () => {
    const before = Date.now();
    const { id, recovered } = await admin.createBatch({ name: 'invoices-march' });
    expect(Number.isInteger(id)).toBe(true);
    expect(recovered).toBe(false);
    const b = await admin.getBatch(id);
    expect(b).toMatchObject({ id, name: 'invoices-march', workspace: 'personal-admin', batch_owner: 'admin', mount_point: 'svc-drive' });
    expect(b.created_at_ms).toBeGreaterThanOrEqual(before - 1000);
    expect(b.path_suffix).toBe(`workspaces/personal-admin/batches/${id}`);
  });

  it('create in a shared workspace; list filters by workspace, username, limit and offset', async () => {
    const a = await member.createBatch({ name: 'team-1', workspace: 'team' });
    const b = await member.createBatch({ name: 'team-2', workspace: 'team' });
    const team = await member.listBatches({ workspace: 'team', username: 'member' });
    expect(team.batches.map((x) => x.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(team.batches.every((x) => x.workspace === 'team' && x.batch_owner === 'member')).toBe(true);
    const page = await member.listBatches({ workspace: 'team', limit: 1, offset: 1 });
    expect(page.batches).toHaveLength(1);
  });

  it('a service account must name the workspace: 400 with the service message', async () => {
    const svc = env.client('service-token');
    const e = await failure(() => svc.createBatch({ name: 'no-workspace' }));
    expect(e).toBeInstanceOf(ServiceError);
    expect(e).toMatchObject({ kind: 'http', status: 400, operation: 'createBatch', retryable: false });
    expect(e.message).toMatch(/service account has no personal workspace/);
    expect((await svc.createBatch({ name: 'ok', workspace: 'team' })).id).toBeGreaterThan(0);
  });

  it('a name over 255 characters is a 400 (spec 8)', async () => {
    const e = await failure(() => admin.createBatch({ name: 'n'.repeat(256) }));
    expect(e).toMatchObject({ kind: 'http', status: 400 });
  });

  it('404 for get, delete, upload, delete-file and list-files of a missing batch (spec 7)', async () => {
    const f = await env.file('x.txt', Buffer.from('hello'));
    const calls: [string, () => Promise<unknown>][] = [
      ['getBatch', () => admin.getBatch(999_999)],
      ['deleteBatch', () => admin.deleteBatch(999_999)],
      ['putBatchFile', () => admin.putBatchFile(999_999, 'x.txt', f.path)],
      ['deleteBatchFile', () => admin.deleteBatchFile(999_999, 'x.txt')],
      ['listBatchFiles', () => admin.listBatchFiles(999_999)],
    ];
    for (const [op, call] of calls) {
      const e = await failure(call);
      expect(e, op).toMatchObject({ kind: 'http', status: 404, operation: op, retryable: false });
      expect(e.message, op).toMatch(/batch 999999 not found/);
    }
  });

  it('404 when access is denied: get batch and list files of another user\'s personal batch (spec 5.5)', async () => {
    const { id } = await admin.createBatch({ name: 'private' });
    expect((await failure(() => member.getBatch(id))).status).toBe(404);
    expect((await failure(() => member.listBatchFiles(id))).status).toBe(404);
  });

  it('403 when listing a workspace the caller is not a member of', async () => {
    const e = await failure(() => member.listBatches({ workspace: 'personal-admin' }));
    expect(e).toMatchObject({ kind: 'http', status: 403, operation: 'listBatches' });
  });

  it('401 for a bad token and for a context other than the organization', async () => {
    const bad = env.client('no-such-token');
    expect(await failure(() => bad.listBatches())).toMatchObject({ kind: 'http', status: 401, retryable: false });
    const wrongCtx = env.client('admin-token', { context: 'other-org' });
    const e = await failure(() => wrongCtx.listBatches());
    expect(e).toMatchObject({ status: 401 });
    expect(e.message).toMatch(/context "other-org" is not valid/);
    const rightCtx = env.client('admin-token', { context: 'sandbox-org' });
    expect(Array.isArray((await rightCtx.listBatches()).batches)).toBe(true);
  });

  it('the context header name is configurable (sandbox started with another name)', async () => {
    const other = await clientEnv({ contextHeader: 'X-Org' });
    try {
      const wrong = other.client('admin-token', { context: 'elsewhere', contextHeader: 'X-Org' });
      expect((await failure(() => wrong.listBatches())).status).toBe(401);
      // Under the default header name the same value is not seen by this service at all.
      const ignored = other.client('admin-token', { context: 'elsewhere' });
      expect((await ignored.listBatches()).batches).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe('batch files (spec 4.1)', () => {
  it('PUT streams a file (204), PUT again replaces it (rule 1), list shows nodes with metadata', async () => {
    const { id } = await admin.createBatch({ name: 'files' });
    const one = await env.file('one.pdf', 5000);
    const two = await env.file('two.pdf', 1234);
    let progress = 0;
    expect(await admin.putBatchFile(id, 'doc.pdf', one.path, { onProgress: (sent) => (progress = sent) })).toEqual({ size: 5000 });
    expect(progress).toBe(5000);
    await admin.putBatchFile(id, 'doc.pdf', two.path);
    const b = await admin.getBatch(id);
    const read = await admin.readFile(batchFilePath(b, 'doc.pdf'));
    expect(read.data.equals(two.data)).toBe(true);
    const list = await admin.listBatchFiles(id);
    expect(list.has_more).toBe(false);
    expect(list.nodes).toHaveLength(1);
    expect(list.nodes[0]).toMatchObject({ name: 'doc.pdf', full_path: batchFilePath(b, 'doc.pdf'), metadata: { node_type: 'file', size: 1234 }, perms: { can_read: true } });
  });

  it('a caller\'s guard (onAttempt) stops the upload before it is sent, or cuts its body short before the last bytes: no file, the guard\'s error, not retried', async () => {
    const { id } = await admin.createBatch({ name: 'guarded' });
    const f = await env.file('g.pdf', 3 * 1024 * 1024 + 7);
    class Refused extends AttemptRefused {}
    // Refused before the attempt: nothing sent.
    let calls = 0;
    const never = (): void => {
      calls++;
      throw new Refused('not now');
    };
    await expect(admin.putBatchFile(id, 'before.pdf', f.path, { onAttempt: never })).rejects.toBeInstanceOf(Refused);
    expect(calls).toBe(1);
    // Passed before the attempt, refused before the last chunk (a process frozen mid-body): the body is cut short.
    calls = 0;
    const second = (): void => {
      if (++calls > 1) throw new Refused('not any more');
    };
    await expect(admin.putBatchFile(id, 'cut.pdf', f.path, { onAttempt: second })).rejects.toBeInstanceOf(Refused);
    expect(calls).toBe(2);
    expect((await admin.listBatchFiles(id)).nodes.map((n) => n.name)).toEqual([]);
    // A guard that passes lets it through.
    await admin.putBatchFile(id, 'ok.pdf', f.path, { onAttempt: () => undefined });
    expect((await admin.listBatchFiles(id)).nodes.map((n) => n.name)).toEqual(['ok.pdf']);
  });

  it('bytes read by the caller (a snapshot matching `seen`) are sent as they are; the guard runs before them; bytes not of the size seen are refused', async () => {
    const { id } = await admin.createBatch({ name: 'snapshot' });
    const f = await env.file('snap.pdf', 20_000);
    const st = await stat(f.path);
    const seen = { size: st.size, mtimeMs: st.mtimeMs };
    // The file on disk changes afterwards: what goes up is the snapshot, not a read of the file now.
    await writeFile(f.path, Buffer.alloc(20_000, 7));
    await admin.putBatchFile(id, 'snap.pdf', f.path, { seen, bytes: f.data });
    const read = await admin.readFile(batchFilePath(await admin.getBatch(id), 'snap.pdf'));
    expect(read.data.equals(f.data)).toBe(true);
    class Refused extends AttemptRefused {}
    let calls = 0;
    const second = (): void => {
      if (++calls > 1) throw new Refused('not any more');
    };
    await expect(admin.putBatchFile(id, 'cut.pdf', f.path, { seen, bytes: f.data, onAttempt: second })).rejects.toBeInstanceOf(Refused);
    expect(calls).toBe(2);
    await expect(admin.putBatchFile(id, 'short.pdf', f.path, { seen, bytes: f.data.subarray(1) })).rejects.toThrow(/not the 20000 bytes seen/);
    expect((await admin.listBatchFiles(id)).nodes.map((n) => n.name)).toEqual(['snap.pdf']);
  });

  it('an empty file uploads as an empty file', async () => {
    const { id } = await admin.createBatch({ name: 'empty' });
    const f = await env.file('empty.txt', Buffer.alloc(0));
    await admin.putBatchFile(id, 'empty.txt', f.path);
    expect((await admin.listBatchFiles(id)).nodes[0]?.metadata?.size).toBe(0);
  });

  it('list pages with page_size and next_page_token; iterateBatchFiles follows every page', async () => {
    const { id } = await admin.createBatch({ name: 'paged' });
    const f = await env.file('p.txt', 10);
    for (const n of ['a', 'b', 'c', 'd', 'e']) await admin.putBatchFile(id, `${n}.txt`, f.path);
    const first = await admin.listBatchFiles(id, { page_size: 2 });
    expect(first.nodes.map((x) => x.name)).toEqual(['a.txt', 'b.txt']);
    expect(first.has_more).toBe(true);
    const second = await admin.listBatchFiles(id, { page_size: 2, start_token: first.next_page_token as string });
    expect(second.nodes.map((x) => x.name)).toEqual(['c.txt', 'd.txt']);
    const all: string[] = [];
    for await (const node of admin.iterateBatchFiles(id, 2)) all.push(node.name as string);
    expect(all).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']);
  });

  it('delete file: 202 with the job named by Location; the job completes and the file is gone', async () => {
    const { id } = await admin.createBatch({ name: 'del-file' });
    const f = await env.file('d.txt', 10);
    await admin.putBatchFile(id, 'd.txt', f.path);
    const { jobId } = await admin.deleteBatchFile(id, 'd.txt');
    expect(jobId).toMatch(/^job_/);
    const states: string[] = [];
    const done = await admin.waitForJob(jobId as string, { ...wait, onPoll: (j) => states.push(j.state) });
    expect(done.state).toBe('COMPLETE');
    expect(states.at(-1)).toBe('COMPLETE');
    expect((await admin.listBatchFiles(id)).nodes).toEqual([]);
  });

  it('deleting a file that is not there: the job FAILS (a terminal state, returned, not thrown)', async () => {
    const { id } = await admin.createBatch({ name: 'del-missing' });
    const { jobId } = await admin.deleteBatchFile(id, 'ghost.txt');
    const job = await admin.waitForJob(jobId as string, wait);
    expect(job.state).toBe('FAILED');
    expect(job.message).toMatch(/ghost\.txt/);
  });

  it('a batch file name with a slash is refused before any call', async () => {
    await expect(admin.deleteBatchFile(1, 'a/b')).rejects.toThrow(RangeError);
  });
});

describe('delete batch and jobs (spec 3.4, 4.3, 9.2)', () => {
  it('DELETE answers {job_id}; both job paths report it; the batch is then 404', async () => {
    const { id } = await admin.createBatch({ name: 'to-delete' });
    const { job_id } = await admin.deleteBatch(id);
    expect(['PENDING', 'RUNNING', 'COMPLETE']).toContain((await admin.getJob(job_id)).state);
    const viaBatchPath = await admin.waitForJob(job_id, { ...wait, batchPath: true });
    expect(viaBatchPath.state).toBe('COMPLETE');
    expect(await admin.getJob(job_id)).toEqual(await admin.getBatchJob(job_id));
    expect((await failure(() => admin.getBatch(id))).status).toBe(404);
  });

  it('an unknown job is a 404', async () => {
    expect(await failure(() => admin.getJob('job_nope'))).toMatchObject({ kind: 'http', status: 404, operation: 'getJob' });
  });

  it('waitForJob gives up at its timeout (kind timeout) and stops at once when cancelled', async () => {
    const slow = await clientEnv({ jobDelayMs: 5_000 });
    try {
      const c = slow.client();
      const b = await c.createBatch({ name: 'slow' });
      const { job_id } = await c.deleteBatch(b.id);
      const t0 = Date.now();
      const e = await failure(() => c.waitForJob(job_id, { initialDelayMs: 20, maxDelayMs: 40, timeoutMs: 300 }));
      expect(e).toMatchObject({ kind: 'timeout', operation: 'waitForJob' });
      expect(e.message).toMatch(/still PENDING/);
      expect(Date.now() - t0).toBeLessThan(2_000);
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 50);
      expect(await failure(() => c.waitForJob(job_id, { initialDelayMs: 1000, signal: ctl.signal }))).toMatchObject({ kind: 'aborted' });
    } finally {
      await slow.close();
    }
  });
});
