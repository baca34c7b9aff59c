/**
 * Multipart upload through the client (spec 3.3, 4.2): part counts at the edges, parallel parts,
 * resume after a crash, abort, and a file that changes while it is sent. The sandbox's part size
 * is 64 KiB (test defaults), so real files of a few hundred KiB make many parts.
 */
import { appendFileSync, utimesSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartRef } from '../../../shared/service/index.js';
import type { MultipartProgress, MultipartSession, ServiceClient } from '../../../electron/engine/service/index.js';
import { batchFilePath, clientEnv, failure, type ClientEnv } from './env.js';

const PART = 64 * 1024;
let env: ClientEnv;
let client: ServiceClient;

beforeAll(async () => {
  env = await clientEnv({ partSize: PART });
  client = env.client();
});
afterAll(() => env.close());

/** Reads a batch file back through /v2/files/ to disk and returns its bytes. */
async function readBack(batchId: number, name: string): Promise<Buffer> {
  const b = await client.getBatch(batchId);
  const dest = join(env.dir, `back-${batchId}-${name}`);
  await client.downloadFile(batchFilePath(b, name), dest);
  return readFile(dest);
}

describe('multipart upload: part counts (spec 3.3 step 2, 8)', () => {
  it.each([
    ['a file smaller than part_size: exactly one part', 1000, 1],
    ['a file of exactly part_size: one part', PART, 1],
    ['part_size + 1: two parts, the last of 1 byte', PART + 1, 2],
  ])('%s', async (_what, size, parts) => {
    const { id } = await client.createBatch({ name: `edges-${size}` });
    const f = await env.file(`edge-${size}.bin`, size);
    const r = await client.uploadMultipart(id, 'edge.bin', f.path);
    expect(r.partSize).toBe(PART);
    expect(r.parts.map((p) => p.part_num)).toEqual(Array.from({ length: parts }, (_, i) => i + 1));
    expect(r.size).toBe(size);
    expect((await readBack(id, 'edge.bin')).equals(f.data)).toBe(true);
  });
});

describe('multipart upload: parallel parts', () => {
  it('sends up to `concurrency` parts at once, in order, reports progress in bytes, commits all parts in order', async () => {
    const { id } = await client.createBatch({ name: 'parallel' });
    const size = 20 * PART + 123;
    const f = await env.file('big.bin', size);
    const events: MultipartProgress[] = [];
    const persisted: PartRef[] = [];
    let session: MultipartSession | undefined;
    const r = await client.uploadMultipart(id, 'big.bin', f.path, {
      concurrency: 4,
      onProgress: (p) => events.push(p),
      onPart: (p) => persisted.push(p),
      onSession: (s) => (session = s),
    });
    expect(session).toMatchObject({ sessionId: r.sessionId, partSize: PART, fileSize: size });
    const maxInFlight = Math.max(...events.map((e) => e.inFlight));
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(events.at(-1)).toMatchObject({ sent: size, total: size, partsDone: 21, partsTotal: 21, inFlight: 0 });
    for (let i = 1; i < events.length; i++) expect((events[i] as MultipartProgress).sent).toBeGreaterThanOrEqual((events[i - 1] as MultipartProgress).sent);
    expect(persisted).toHaveLength(21);
    expect(r.parts.map((p) => p.part_num)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect((await readBack(id, 'big.bin')).equals(f.data)).toBe(true);
  });

  it('start session on a missing batch is a 404 (spec 7)', async () => {
    const f = await env.file('nobatch.bin', 10);
    expect(await failure(() => client.uploadMultipart(999_999, 'x.bin', f.path))).toMatchObject({ kind: 'http', status: 404, operation: 'startMultipart' });
  });
});

describe('multipart upload: resume after a crash', () => {
  it('a new client instance continues the same session from the parts persisted, sending only the rest', async () => {
    const { id } = await client.createBatch({ name: 'resume' });
    const size = 12 * PART + 77;
    const f = await env.file('resume.bin', size);
    const persisted: PartRef[] = [];
    let session: MultipartSession | undefined;
    const crash = new AbortController();
    const first = env.client();
    const e = await failure(() =>
      first.uploadMultipart(id, 'resume.bin', f.path, {
        concurrency: 2,
        signal: crash.signal,
        onSession: (s) => (session = s),
        onPart: (p) => {
          persisted.push(p);
          if (persisted.length === 4) crash.abort();
        },
      }),
    );
    expect(e).toMatchObject({ kind: 'aborted', operation: 'uploadMultipart' });
    expect(e.message).toMatch(/kept for resuming/);
    first.close();
    expect(persisted.length).toBeGreaterThanOrEqual(4);
    expect((await client.listBatchFiles(id)).nodes).toEqual([]);

    const s = session as MultipartSession;
    const second = env.client();
    const sent: number[] = [];
    const progress: MultipartProgress[] = [];
    const r = await second.uploadMultipart(id, 'resume.bin', f.path, {
      resume: { sessionId: s.sessionId, partSize: s.partSize, parts: persisted, fileSize: s.fileSize, mtimeMs: s.mtimeMs },
      onPart: (p) => sent.push(p.part_num),
      onProgress: (p) => progress.push(p),
    });
    expect(r.sessionId).toBe(s.sessionId);
    expect(r.resumedParts).toBe(persisted.length);
    expect(sent.sort((a, b) => a - b)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1).filter((n) => !persisted.some((p) => p.part_num === n)));
    expect(progress[0]?.sent).toBeGreaterThanOrEqual(persisted.length * PART - PART);
    expect((await readBack(id, 'resume.bin')).equals(f.data)).toBe(true);
  });

  it('resuming with a file that changed since the session began fails with file-changed and aborts the session', async () => {
    const { id } = await client.createBatch({ name: 'resume-changed' });
    const f = await env.file('rc.bin', 3 * PART);
    const s = await client.startMultipart({ batch_id: id, filename: 'rc.bin', file_size: 3 * PART });
    const e = await failure(() =>
      client.uploadMultipart(id, 'rc.bin', f.path, { resume: { sessionId: s.session_id, partSize: s.part_size, parts: [], fileSize: 3 * PART, mtimeMs: 1 } }),
    );
    expect(e).toMatchObject({ kind: 'file-changed' });
    expect(await failure(() => client.uploadPart(s.session_id, 1, Buffer.alloc(PART)))).toMatchObject({ status: 404 });
  });
});

describe('multipart upload: abort (spec 3.3 step 3b)', () => {
  it('abort discards the session and its parts: commit is then a 404 and the batch stays empty', async () => {
    const { id } = await client.createBatch({ name: 'abort' });
    const data = Buffer.alloc(PART + 10, 1);
    const s = await client.startMultipart({ batch_id: id, filename: 'a.bin', file_size: data.length });
    const p1 = await client.uploadPart(s.session_id, 1, data.subarray(0, PART));
    expect(p1.part_num).toBe(1);
    await client.abortMultipart(s.session_id);
    const e = await failure(() => client.commitMultipart(s.session_id, [p1]));
    expect(e).toMatchObject({ kind: 'http', status: 404, operation: 'commitMultipart' });
    expect((await client.listBatchFiles(id)).nodes).toEqual([]);
  });

  it('low-level calls: parts from memory, commit all in order (201), file in the batch', async () => {
    const { id } = await client.createBatch({ name: 'manual' });
    const data = Buffer.alloc(2 * PART + 5, 9);
    const s = await client.startMultipart({ batch_id: id, filename: 'm.bin', file_size: String(data.length) });
    const parts: PartRef[] = [];
    for (let n = 1; n <= 3; n++) parts.push(await client.uploadPart(s.session_id, n, data.subarray((n - 1) * PART, n * PART)));
    await client.commitMultipart(s.session_id, parts);
    expect((await readBack(id, 'm.bin')).equals(data)).toBe(true);
  });

  it('a wrong part size is the service\'s 400, with its message', async () => {
    const { id } = await client.createBatch({ name: 'badpart' });
    const s = await client.startMultipart({ batch_id: id, filename: 'b.bin', file_size: 2 * PART });
    const e = await failure(() => client.uploadPart(s.session_id, 1, Buffer.alloc(10)));
    expect(e).toMatchObject({ kind: 'http', status: 400, operation: 'uploadPart' });
    expect(e.message).toMatch(/must be 65536 bytes/);
  });
});

describe('multipart upload: a file that changes during the upload', () => {
  const noFile = async (id: number): Promise<void> => expect((await client.listBatchFiles(id)).nodes).toEqual([]);

  it('growing file: fails with file-changed, aborts the session, commits nothing', async () => {
    const { id } = await client.createBatch({ name: 'grows' });
    const f = await env.file('grows.bin', 8 * PART);
    let session = '';
    const e = await failure(() =>
      client.uploadMultipart(id, 'grows.bin', f.path, {
        concurrency: 2,
        onSession: (s) => (session = s.sessionId),
        onPart: (p) => {
          if (p.part_num === 1) appendFileSync(f.path, 'more bytes');
        },
      }),
    );
    expect(e).toMatchObject({ kind: 'file-changed', operation: 'uploadMultipart', retryable: false });
    expect(e.message).toMatch(/size went from 524288 to 524298 bytes.*session was aborted/);
    expect(await failure(() => client.uploadPart(session, 1, Buffer.alloc(PART)))).toMatchObject({ status: 404 });
    await noFile(id);
  });

  it('same size, new mtime (rewritten in place): fails with file-changed', async () => {
    const { id } = await client.createBatch({ name: 'touched' });
    const f = await env.file('touched.bin', 6 * PART);
    const e = await failure(() =>
      client.uploadMultipart(id, 'touched.bin', f.path, {
        onPart: (p) => {
          if (p.part_num === 1) utimesSync(f.path, new Date(), new Date(Date.now() + 60_000));
        },
      }),
    );
    expect(e).toMatchObject({ kind: 'file-changed' });
    expect(e.message).toMatch(/modified at/);
    await noFile(id);
  });

  it('single PUT of a file that changes while it is read is cut short: file-changed, nothing stored', async () => {
    const { id } = await client.createBatch({ name: 'put-changed' });
    const f = await env.file('put.bin', 3 * 1024 * 1024);
    let changed = false;
    const e = await failure(() =>
      client.putBatchFile(id, 'put.bin', f.path, {
        onProgress: (sent) => {
          if (!changed && sent > 0) (changed = true), appendFileSync(f.path, 'x');
        },
      }),
    );
    expect(e).toMatchObject({ kind: 'file-changed', operation: 'putBatchFile' });
    await noFile(id);
  });
});
