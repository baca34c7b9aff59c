// POST /sandbox/jobs/fail: the sandbox stands in for a service that cannot finish a job, so clients'
// handling of a FAILED job (issue 11: a batch-file deletion) can be tested over the wire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, sandbox, waitFor } from '../../helpers/sandbox.js';

let sb: RunningSandbox;
let admin: ReturnType<typeof caller>;
beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
});
afterAll(async () => {
  await sb.close();
});

const job = async (location: string | null): Promise<{ state: string; message: string }> => {
  const id = (location ?? '').split('/').pop() as string;
  return waitFor(async () => {
    const j = (await admin<{ state: string; message: string }>('GET', `/v2/jobs/${id}`)).body;
    return j.state === 'COMPLETE' || j.state === 'FAILED' ? j : undefined;
  }, `job ${id} to end`);
};

describe('/sandbox/jobs/fail', () => {
  it('the next `count` jobs of a kind FAIL with the message and leave their work undone; later ones work again', async () => {
    const { id } = (await admin<{ id: number }>('POST', '/v2/batches', { name: 'faults' })).body;
    for (const n of ['a.txt', 'b.txt']) expect((await admin('PUT', `/v2/batches/${id}/files/${n}`, 'Invoice')).status).toBe(204);
    const asked = await admin('POST', '/sandbox/jobs/fail', { kind: 'delete-batch-file', count: 1, message: 'storage is read-only' });
    expect(asked.status).toBe(200);

    const first = await admin('DELETE', `/v2/batches/${id}/files/a.txt`);
    expect(await job(first.headers.get('location'))).toMatchObject({ state: 'FAILED', message: 'storage is read-only' });
    const second = await admin('DELETE', `/v2/batches/${id}/files/b.txt`);
    expect((await job(second.headers.get('location'))).state).toBe('COMPLETE');
    const names = (await admin<{ nodes: { name: string }[] }>('GET', `/v2/batches/${id}/files`)).body.nodes.map((x) => x.name);
    expect(names).toEqual(['a.txt']);
  });

  it('an unknown kind or a bad count is a 400 that names the kinds', async () => {
    const r = await admin<{ message: string }>('POST', '/sandbox/jobs/fail', { kind: 'nope' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/delete-batch-file/);
    expect((await admin('POST', '/sandbox/jobs/fail', { kind: 'delete-batch', count: -1 })).status).toBe(400);
    expect((await admin('POST', '/sandbox/jobs/fail', {})).status).toBe(400);
  });
});
