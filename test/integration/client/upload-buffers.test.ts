/**
 * Uploads large enough for the file reader's reused 1 MiB buffers (file-slice.ts): a buffer is
 * handed back once the socket has written it, so every byte must still arrive as it is on disk,
 * across parallel parts, one upload after another, and after a cancelled upload. The sandbox
 * answers every request after a delay (a latency fault) so that bodies wait in the client's
 * socket and a buffer reused too early would change what is sent.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../../electron/engine/service/index.js';
import { batchFilePath, clientEnv, failure, type ClientEnv } from './env.js';

const MiB = 1024 * 1024;
// Over what loopback sockets take in at once (about 4 MiB measured), so bodies do wait.
const PART = 12 * MiB;
let env: ClientEnv;
let client: ServiceClient;

beforeAll(async () => {
  env = await clientEnv({ partSize: PART, faults: { p5xx: 0, p429: 0, pReset: 0, latencyMs: 60, retryAfterS: 1, seed: 1 } });
  client = env.client();
});
afterAll(() => env.close());

async function readBack(batchId: number, name: string): Promise<Buffer> {
  const b = await client.getBatch(batchId);
  const dest = join(env.dir, `back-${batchId}-${name}`);
  await client.downloadFile(batchFilePath(b, name), dest);
  return readFile(dest);
}

describe('uploads through reused read buffers', () => {
  it('multipart uploads, one after another, arrive byte for byte (parallel parts, the last one short)', async () => {
    for (const [i, size] of [2 * PART + 12_345, PART + 1].entries()) {
      const { id } = await client.createBatch({ name: `buffers-${i}` });
      const f = await env.file(`large-${i}.bin`, size);
      const r = await client.uploadMultipart(id, 'large.bin', f.path, { concurrency: 4 });
      expect(r.parts).toHaveLength(Math.ceil(size / PART));
      expect((await readBack(id, 'large.bin')).equals(f.data)).toBe(true);
    }
  });

  it('a single PUT of a multi-MiB file arrives byte for byte', async () => {
    const { id } = await client.createBatch({ name: 'buffers-put' });
    const f = await env.file('put.bin', PART + 777);
    await client.putBatchFile(id, 'put.bin', f.path);
    expect((await readBack(id, 'put.bin')).equals(f.data)).toBe(true);
  });

  it('an upload cancelled mid-way leaves no buffer in use twice: the next upload arrives intact', async () => {
    const { id } = await client.createBatch({ name: 'buffers-cancel' });
    const big = await env.file('cancel.bin', 3 * PART);
    const ac = new AbortController();
    const cancelled = failure(() =>
      client.uploadMultipart(id, 'cancel.bin', big.path, { signal: ac.signal, onProgress: (p) => p.sent > PART && ac.abort() }),
    );
    expect(await cancelled).toMatchObject({ kind: 'aborted' });
    const f = await env.file('after.bin', 2 * PART + 1);
    await client.uploadMultipart(id, 'after.bin', f.path, { concurrency: 4 });
    expect((await readBack(id, 'after.bin')).equals(f.data)).toBe(true);
  });
});
