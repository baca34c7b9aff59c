/** The files API through the client (spec 4.8, 7): write, conditional write, metadata, ranged and retried reads, delete, drives. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../../electron/engine/service/index.js';
import { clientEnv, failure, type ClientEnv } from './env.js';

let env: ClientEnv;
let admin: ServiceClient;
let member: ServiceClient;

beforeAll(async () => {
  env = await clientEnv();
  admin = env.client();
  member = env.client('member-token');
});
afterAll(() => env.close());

const wait = { initialDelayMs: 10, maxDelayMs: 50, timeoutMs: 10_000 };

describe('write (PUT /v2/files)', () => {
  it('streams a local file; overwrites without If-None-Match (204); creates missing parent folders', async () => {
    const a = await env.file('a.bin', 70_000);
    const b = await env.file('b.bin', 1_000);
    const w1 = await admin.writeFile('svc-drive/deep/er/file.bin', a.path);
    expect(w1).toMatchObject({ created: false, status: 204 });
    await admin.writeFile('svc-drive/deep/er/file.bin', b.path);
    expect((await admin.readFile('svc-drive/deep/er/file.bin')).data.equals(b.data)).toBe(true);
    expect(await admin.statPath('svc-drive/deep/er')).toEqual({ nodeType: 'folder' });
  });

  it('If-None-Match: 201 with Location for a new file, then 412 because it exists (spec 7)', async () => {
    const w = await admin.writeFile('svc-drive/cond/new.txt', Buffer.from('first'), { ifNoneMatch: true });
    expect(w).toMatchObject({ created: true, status: 201, location: '/v2/files/svc-drive/cond/new.txt' });
    const e = await failure(() => admin.writeFile('svc-drive/cond/new.txt', Buffer.from('second'), { ifNoneMatch: true }));
    expect(e).toMatchObject({ kind: 'http', status: 412, operation: 'writeFile', retryable: false });
    expect((await admin.readFile('svc-drive/cond/new.txt')).data.toString()).toBe('first');
  });

  it('an empty file is a 400; a cloud document drive refuses writes and deletes (400)', async () => {
    expect(await failure(() => admin.writeFile('svc-drive/empty.txt', Buffer.alloc(0)))).toMatchObject({ status: 400 });
    expect(await failure(() => admin.writeFile('docs-drive/x.txt', Buffer.from('x')))).toMatchObject({ status: 400 });
    expect(await failure(() => admin.deletePath('docs-drive/x.txt'))).toMatchObject({ status: 400 });
  });

  it('other cloud drives take writes', async () => {
    await admin.writeFile('object-drive/o/one.txt', Buffer.from('object'));
    expect((await admin.readFile('object-drive/o/one.txt')).data.toString()).toBe('object');
  });

  it('403 for a workspace path of a workspace the caller is not a member of', async () => {
    const e = await failure(() => member.writeFile('svc-drive/workspaces/personal-admin/x.txt', Buffer.from('x')));
    expect(e).toMatchObject({ kind: 'http', status: 403, operation: 'writeFile' });
    await member.writeFile('svc-drive/workspaces/team/ok.txt', Buffer.from('ok'));
  });
});

describe('metadata (HEAD /v2/files)', () => {
  it('a file: size and last modification time; a folder: folder; nothing: null (the 404 of spec 7)', async () => {
    const before = Date.now();
    await admin.writeFile('svc-drive/meta/m.txt', Buffer.from('12345'));
    const meta = await admin.statPath('svc-drive/meta/m.txt');
    expect(meta).toMatchObject({ nodeType: 'file', size: 5 });
    expect(meta?.lastModified?.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(await admin.statPath('svc-drive/meta')).toEqual({ nodeType: 'folder' });
    expect(await admin.statPath('svc-drive/meta/none.txt')).toBeNull();
  });

  it('with the retry config the service waits for a file that appears a little later', async () => {
    setTimeout(() => void admin.writeFile('svc-drive/later/l.txt', Buffer.from('late')), 150);
    const meta = await admin.statPath('svc-drive/later/l.txt', { retry: { retries: 20, backoffSeconds: 0.05 } });
    expect(meta).toMatchObject({ nodeType: 'file', size: 4 });
    setTimeout(() => void admin.writeFile('svc-drive/later/r.txt', Buffer.from('read me')), 150);
    expect((await admin.readFile('svc-drive/later/r.txt', { retry: { retries: 20, backoffSeconds: 0.05 } })).data.toString()).toBe('read me');
  });
});

describe('read (GET /v2/files)', () => {
  it('a single Range answers 206 with the bytes and the whole size', async () => {
    const f = await env.file('range.bin', 1000);
    await admin.writeFile('svc-drive/r/range.bin', f.path);
    const part = await admin.readFile('svc-drive/r/range.bin', { range: { start: 10, end: 19 } });
    expect(part.status).toBe(206);
    expect(part.size).toBe(1000);
    expect(part.data.equals(f.data.subarray(10, 20))).toBe(true);
    const tail = await admin.readFile('svc-drive/r/range.bin', { range: { start: 990 } });
    expect(tail.data.equals(f.data.subarray(990))).toBe(true);
    const whole = await admin.readFile('svc-drive/r/range.bin');
    expect(whole).toMatchObject({ status: 200, size: 1000 });
    expect(whole.lastModified).toBeInstanceOf(Date);
  });

  it('a range past the end is a 416; a folder read as a file is a 400; nothing there is a 404', async () => {
    await admin.writeFile('svc-drive/r/small.txt', Buffer.from('abc'));
    expect(await failure(() => admin.readFile('svc-drive/r/small.txt', { range: { start: 10 } }))).toMatchObject({ status: 416 });
    expect(await failure(() => admin.readFile('svc-drive/r'))).toMatchObject({ status: 400 });
    expect(await failure(() => admin.readFile('svc-drive/r/none.txt'))).toMatchObject({ status: 404 });
  });

  it('a folder lists its entries', async () => {
    await admin.writeFile('svc-drive/list/one.txt', Buffer.from('1'));
    await admin.writeFile('svc-drive/list/two.txt', Buffer.from('22'));
    const { nodes } = await admin.listFolder('svc-drive/list');
    expect(nodes.map((n) => [n.name, n.metadata?.size])).toEqual([['one.txt', 1], ['two.txt', 2]]);
  });

  it('names with spaces and unicode travel encoded, segment by segment', async () => {
    await admin.writeFile('svc-drive/odd names/Ünïcode file #1.txt', Buffer.from('odd'));
    expect((await admin.readFile('svc-drive/odd names/Ünïcode file #1.txt')).data.toString()).toBe('odd');
  });
});

describe('delete (DELETE /v2/files)', () => {
  it('202 with a job that deletes the file; 202 also when nothing is there (spec 7 rule 2)', async () => {
    await admin.writeFile('svc-drive/del/d.txt', Buffer.from('bye'));
    const { jobId } = await admin.deletePath('svc-drive/del/d.txt');
    expect(jobId).toMatch(/^job_/);
    expect((await admin.waitForJob(jobId as string, wait)).state).toBe('COMPLETE');
    expect(await admin.statPath('svc-drive/del/d.txt')).toBeNull();
    const again = await admin.deletePath('svc-drive/del/d.txt');
    expect((await admin.waitForJob(again.jobId as string, wait)).state).toBe('COMPLETE');
  });
});
