import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, FAST, sandbox } from '../../helpers/sandbox.js';

type Call = ReturnType<typeof caller>;
interface Part { part_num: number; part_id: string }

const P = FAST.partSize as number;
const GRACE = FAST.partOrderGraceMs as number;

let sb: RunningSandbox;
let call: Call;
let batch: number;

beforeAll(async () => {
  sb = await sandbox();
  call = caller(sb.url, 'admin-token');
  batch = (await call('POST', '/v2/batches', { name: 'multipart', workspace: 'team' })).body.id;
});
afterAll(async () => {
  await sb.close();
  await rm(sb.dataDir, { recursive: true, force: true });
});

/** Upload helpers bound to one sandbox, so the resume test can use them on a second one. */
function client(c: Call, url: string) {
  return {
    async start(batchId: number, filename: string, fileSize: number | string): Promise<{ session_id: string; part_size: number }> {
      const r = await c('POST', '/v2/batches/multipart-upload', { batch_id: batchId, filename, file_size: fileSize });
      expect(r.status, r.text).toBe(201);
      return r.body;
    },
    put: (session: string, n: number | string, bytes: Uint8Array) => c<Part & { message?: string }>('PUT', `/v2/batches/multipart-upload/sessions/${session}/parts/${n}`, bytes),
    async part(session: string, n: number, bytes: Uint8Array): Promise<Part> {
      const r = await c<Part>('PUT', `/v2/batches/multipart-upload/sessions/${session}/parts/${n}`, bytes);
      expect(r.status, r.text).toBe(201);
      return r.body;
    },
    commit: (session: string, parts: unknown) => c('POST', `/v2/batches/multipart-upload/sessions/${session}`, { action: 'commit', parts }),
    /** The committed file's bytes, found through the batch file list and read via /v2/files. */
    async read(batchId: number, filename: string): Promise<Buffer> {
      const nodes = (await c('GET', `/v2/batches/${batchId}/files`)).body.nodes as { name: string; full_path: string }[];
      const node = nodes.find((n) => n.name === filename);
      if (!node) throw new Error(`${filename} is not in batch ${batchId}`);
      const res = await fetch(`${url}/v2/files/${node.full_path}?expect-node-type=file`, { headers: { Authorization: 'Bearer admin-token' } });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer());
    },
  };
}

let mp: ReturnType<typeof client>;
beforeAll(() => {
  mp = client(call, sb.url);
});

const slice = (data: Buffer, n: number): Buffer => data.subarray((n - 1) * P, n * P);
const names = (): Promise<string[]> => call('GET', `/v2/batches/${batch}/files`).then((r) => (r.body.nodes as { name: string }[]).map((n) => n.name));

/** A session with all its parts uploaded, ready to commit. */
async function uploaded(filename: string, size: number): Promise<{ session: string; data: Buffer; parts: Part[] }> {
  const data = randomBytes(size);
  const { session_id } = await mp.start(batch, filename, size);
  const parts: Part[] = [];
  for (let n = 1; n <= Math.ceil(size / P); n++) parts.push(await mp.part(session_id, n, slice(data, n)));
  return { session: session_id, data, parts };
}

describe('starting a session (spec 2.5, 4.2)', () => {
  it('answers 201 {session_id, part_size}', async () => {
    const r = await call('POST', '/v2/batches/multipart-upload', { batch_id: batch, filename: 'a.bin', file_size: 10 });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['part_size', 'session_id']);
    expect(typeof r.body.session_id).toBe('string');
    expect(r.body.part_size).toBe(P);
  });

  it('takes file_size as an integer or as a string of digits', async () => {
    const s = await mp.start(batch, 'digits.bin', String(P + 5));
    // The size given as a string shapes the session: two parts, the last of 5 bytes.
    expect((await mp.put(s.session_id, 3, randomBytes(5))).status).toBe(400);
    expect((await mp.put(s.session_id, 2, randomBytes(6))).status).toBe(400);
    const parts = [await mp.part(s.session_id, 1, randomBytes(P)), await mp.part(s.session_id, 2, randomBytes(5))];
    expect((await mp.commit(s.session_id, parts)).status).toBe(201);
    for (const bad of ['12a', '', '-3', 0, 1.5, null]) {
      expect((await call('POST', '/v2/batches/multipart-upload', { batch_id: batch, filename: 'x.bin', file_size: bad })).status, String(bad)).toBe(400);
    }
  });

  it('requires batch_id, filename and file_size (400)', async () => {
    const full = { batch_id: batch, filename: 'x.bin', file_size: 10 };
    for (const key of ['batch_id', 'filename', 'file_size'] as const) {
      const body: Record<string, unknown> = { ...full };
      delete body[key];
      const r = await call('POST', '/v2/batches/multipart-upload', body);
      expect(r.status, key).toBe(400);
      expect(r.body.message).toMatch(key);
    }
  });

  it('takes a filename of 255 characters and refuses 256 (spec 8)', async () => {
    await mp.start(batch, `${'n'.repeat(251)}.bin`, 10);
    expect((await call('POST', '/v2/batches/multipart-upload', { batch_id: batch, filename: `${'n'.repeat(252)}.bin`, file_size: 10 })).status).toBe(400);
  });

  it('answers 404 for an unknown batch and for one the caller cannot see', async () => {
    expect((await call('POST', '/v2/batches/multipart-upload', { batch_id: 999999, filename: 'x.bin', file_size: 10 })).status).toBe(404);
    const own = (await call('POST', '/v2/batches', { name: 'admin-only' })).body.id;
    const member = caller(sb.url, 'member-token');
    expect((await member('POST', '/v2/batches/multipart-upload', { batch_id: own, filename: 'x.bin', file_size: 10 })).status).toBe(404);
  });
});

describe('uploading and committing (spec 3.3, 8)', () => {
  it('a file of exactly one part_size is one part', async () => {
    const data = randomBytes(P);
    const { session_id } = await mp.start(batch, 'one.bin', P);
    const part = await mp.part(session_id, 1, data);
    expect(part.part_num).toBe(1);
    expect(typeof part.part_id).toBe('string');
    expect((await mp.put(session_id, 2, randomBytes(1))).status).toBe(400);
    const r = await mp.commit(session_id, [part]);
    expect(r.status).toBe(201);
    expect(r.text).toBe('');
    expect((await mp.read(batch, 'one.bin')).equals(data)).toBe(true);
  });

  it('a file of part_size + 1 is two parts, the last of 1 byte', async () => {
    const data = randomBytes(P + 1);
    const { session_id } = await mp.start(batch, 'two.bin', P + 1);
    const p1 = await mp.part(session_id, 1, slice(data, 1));
    const p2 = await mp.part(session_id, 2, slice(data, 2));
    expect(p2).toMatchObject({ part_num: 2 });
    expect(slice(data, 2).length).toBe(1);
    expect((await mp.commit(session_id, [p1, p2])).status).toBe(201);
    expect((await mp.read(batch, 'two.bin')).equals(data)).toBe(true);
  });

  it('takes 12 parts sent all at once, in parallel, and commits them into the batch', async () => {
    const size = 11 * P + 1234;
    const data = randomBytes(size);
    const { session_id } = await mp.start(batch, 'parallel.bin', size);
    const nums = Array.from({ length: 12 }, (_, i) => 12 - i); // started last-first, so most must wait for their predecessor
    const answers = await Promise.all(nums.map((n) => mp.put(session_id, n, slice(data, n))));
    for (const a of answers) expect(a.status, a.text).toBe(201);
    const parts = answers.map((a) => a.body).sort((a, b) => a.part_num - b.part_num);
    expect(parts.map((p) => p.part_num)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect((await mp.commit(session_id, parts)).status).toBe(201);
    expect((await mp.read(batch, 'parallel.bin')).equals(data)).toBe(true);
    const node = ((await call('GET', `/v2/batches/${batch}/files`)).body.nodes as { name: string; metadata: { size: number } }[]).find((n) => n.name === 'parallel.bin');
    expect(node?.metadata.size).toBe(size);
  });
});

describe('parts that break the rules are refused with 400 (spec 3.3, 8)', () => {
  it('a part of the wrong size, last or not', async () => {
    const { session_id } = await mp.start(batch, 'sizes.bin', 2 * P + 10);
    expect((await mp.put(session_id, 1, randomBytes(P - 1))).status).toBe(400);
    expect((await mp.put(session_id, 1, randomBytes(P + 1))).status).toBe(400);
    await mp.part(session_id, 1, randomBytes(P));
    await mp.part(session_id, 2, randomBytes(P));
    expect((await mp.put(session_id, 3, randomBytes(9))).status).toBe(400);
    expect((await mp.put(session_id, 3, randomBytes(11))).status).toBe(400);
    expect((await mp.put(session_id, 3, randomBytes(P))).status).toBe(400);
    await mp.part(session_id, 3, randomBytes(10));
  });

  it('a streamed (chunked) part that turns out short', async () => {
    const { session_id } = await mp.start(batch, 'chunked.bin', 2 * P);
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(randomBytes(100));
        c.close();
      },
    });
    const res = await fetch(`${sb.url}/v2/batches/multipart-upload/sessions/${session_id}/parts/1`, {
      method: 'PUT', body, duplex: 'half', headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/octet-stream' },
    } as RequestInit);
    expect(res.status).toBe(400);
  });

  it('a part number past the last part, or not a positive integer', async () => {
    const { session_id } = await mp.start(batch, 'past.bin', P + 1);
    expect((await mp.put(session_id, 3, randomBytes(1))).status).toBe(400);
    expect((await mp.put(session_id, 0, randomBytes(P))).status).toBe(400);
    expect((await mp.put(session_id, 'x', randomBytes(P))).status).toBe(400);
  });

  it('part 3 without part 2, once the grace period has passed', async () => {
    const { session_id } = await mp.start(batch, 'gap.bin', 3 * P);
    await mp.part(session_id, 1, randomBytes(P));
    const t0 = Date.now();
    const r = await mp.put(session_id, 3, randomBytes(P));
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/part 2/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(GRACE - 50);
  });

  it('re-uploading a part replaces it: a new part_id, and the old one no longer commits', async () => {
    const data = randomBytes(P + 100);
    const { session_id } = await mp.start(batch, 'replace.bin', P + 100);
    const old = await mp.part(session_id, 1, randomBytes(P));
    const fresh = await mp.part(session_id, 1, slice(data, 1));
    expect(fresh.part_id).not.toBe(old.part_id);
    const last = await mp.part(session_id, 2, slice(data, 2));
    expect((await mp.commit(session_id, [old, last])).status).toBe(400);
    expect((await mp.commit(session_id, [fresh, last])).status).toBe(201);
    expect((await mp.read(batch, 'replace.bin')).equals(data)).toBe(true);
  });
});

describe('commit checks its part list (spec 3.3 step 3a)', () => {
  it('refuses a missing part, parts out of order, a wrong part_id, parts that do not add up; then commits the right list', async () => {
    const { session, data, parts } = await uploaded('checked.bin', 2 * P + 7);
    const [p1, p2, p3] = parts as [Part, Part, Part];
    const bad: [string, unknown][] = [
      ['missing part', [p1, p3]],
      ['out of order', [p2, p1, p3]],
      ['duplicated', [p1, p1, p3]],
      ['wrong part_id', [p1, { part_num: 2, part_id: 'not-the-id' }, p3]],
      ['part_id of another part', [p1, { part_num: 2, part_id: p3.part_id }, p3]],
      ['do not add up', [p1, p2]],
      ['too many', [p1, p2, p3, { part_num: 4, part_id: p3.part_id }]],
      ['no parts', []],
      ['parts not a list', 'p1'],
      ['item without part_id', [p1, { part_num: 2 }, p3]],
    ];
    for (const [what, list] of bad) {
      const r = await mp.commit(session, list);
      expect(r.status, what).toBe(400);
      expect(typeof r.body.message, what).toBe('string');
    }
    expect(await names()).not.toContain('checked.bin');
    expect((await call('POST', `/v2/batches/multipart-upload/sessions/${session}`, { parts })).status).toBe(400);
    expect((await call('POST', `/v2/batches/multipart-upload/sessions/${session}`, { action: 'finish', parts })).status).toBe(400);
    expect((await mp.commit(session, parts)).status).toBe(201);
    expect((await mp.read(batch, 'checked.bin')).equals(data)).toBe(true);
  });

  it('refuses a part that was never uploaded', async () => {
    const { session_id } = await mp.start(batch, 'half.bin', P + 1);
    const p1 = await mp.part(session_id, 1, randomBytes(P));
    expect((await mp.commit(session_id, [p1, { part_num: 2, part_id: p1.part_id }])).status).toBe(400);
  });

  it('a committed session is gone (404)', async () => {
    const { session, parts } = await uploaded('once.bin', 10);
    expect((await mp.commit(session, parts)).status).toBe(201);
    expect((await mp.commit(session, parts)).status).toBe(404);
  });
});

describe('unknown sessions and abort (spec 3.3 step 3b)', () => {
  it('answers 404 for an unknown session on part PUT, commit and abort', async () => {
    expect((await mp.put('no-such-session', 1, randomBytes(10))).status).toBe(404);
    expect((await mp.commit('no-such-session', [{ part_num: 1, part_id: 'x' }])).status).toBe(404);
    expect((await call('POST', '/v2/batches/multipart-upload/sessions/no-such-session', { action: 'abort' })).status).toBe(404);
  });

  it('abort answers 201 with an empty body; the session is then 404 and nothing lands in the batch', async () => {
    const { session, parts } = await uploaded('aborted.bin', P + 3);
    const r = await call('POST', `/v2/batches/multipart-upload/sessions/${session}`, { action: 'abort' });
    expect(r.status).toBe(201);
    expect(r.text).toBe('');
    expect((await mp.put(session, 1, randomBytes(P))).status).toBe(404);
    expect((await mp.commit(session, parts)).status).toBe(404);
    expect(await names()).not.toContain('aborted.bin');
  });
});

describe('a session survives a sandbox restart with the same --data (issue 2, section 2)', () => {
  let dataDir: string;
  let current: RunningSandbox | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'docsync-mp-resume-'));
  });
  afterAll(async () => {
    await current?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('uploads some parts, restarts, uploads the rest to the same session and commits byte-equal', async () => {
    const size = 3 * P + 321;
    const data = randomBytes(size);
    current = await sandbox({ dataDir, partOrderGraceMs: 2000 });
    let c = client(caller(current.url, 'admin-token'), current.url);
    const id = (await caller(current.url, 'admin-token')('POST', '/v2/batches', { name: 'resume', workspace: 'team' })).body.id as number;
    const { session_id } = await c.start(id, 'resumed.bin', size);
    const p1 = await c.part(session_id, 1, slice(data, 1));
    const p2 = await c.part(session_id, 2, slice(data, 2));
    const firstUrl = current.url;
    await current.close();
    current = undefined;
    expect((await fetch(`${firstUrl}/sandbox/health`).catch(() => null))?.status).not.toBe(200);

    current = await sandbox({ dataDir, partOrderGraceMs: 2000 });
    c = client(caller(current.url, 'admin-token'), current.url);
    const t0 = Date.now();
    const p3 = await c.part(session_id, 3, slice(data, 3));
    // Part 2 arrived before the restart, so part 3 is taken at once, not after the grace period.
    expect(Date.now() - t0).toBeLessThan(1000);
    const p4 = await c.part(session_id, 4, slice(data, 4));
    expect((await c.commit(session_id, [p1, p2, p3, p4])).status).toBe(201);
    expect((await c.read(id, 'resumed.bin')).equals(data)).toBe(true);
  });
});
