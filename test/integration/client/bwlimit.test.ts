/**
 * The bandwidth limit on real transfers (issue 27, section 3), over HTTP to a real sandbox on
 * 127.0.0.1: a multipart upload with parallel parts and a download, each through the engine's
 * buckets, arrive whole and take at least as long as the limit allows. Only a lower bound on time
 * is checked (a slow machine can only make it longer); the exact rate is the benchmark's
 * (bench/bwlimit.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../../electron/engine/service/index.js';
import { engineBandwidth } from '../../../electron/engine/service/bandwidth.js';
import { parseBwLimit } from '../../../shared/bwlimit.js';
import { batchFilePath, clientEnv, type ClientEnv } from './env.js';

const K = 1024;
const PART = 64 * K;
let env: ClientEnv;
let client: ServiceClient;

beforeAll(async () => {
  env = await clientEnv({ partSize: PART });
  client = env.client();
});
afterEach(() => engineBandwidth.set(null));
afterAll(async () => {
  engineBandwidth.close();
  await env.close();
});

describe('a bandwidth limit on real transfers', () => {
  it('a multipart upload of 4 parallel parts at 256K: intact, and no faster than 256 KiB/s', async () => {
    const size = 10 * PART + 321;
    const f = await env.file('limited.bin', size);
    const { id } = await client.createBatch({ name: 'bwlimit' });
    engineBandwidth.set(parseBwLimit('256K:off'), 'flag');
    const granted = engineBandwidth.up.granted;
    const started = performance.now();
    await client.uploadMultipart(id, 'limited.bin', f.path, { concurrency: 4 });
    const secs = (performance.now() - started) / 1000;
    // Every byte went through the upload bucket, shared by the parts.
    expect(engineBandwidth.up.granted - granted).toBe(size);
    // 641 KiB at 256 KiB/s, less the bucket's burst of 25.6 KiB: at least 2.4 s.
    expect(secs).toBeGreaterThan((size - 0.1 * 256 * K) / (256 * K) - 0.05);
    engineBandwidth.set(null);
    const b = await client.getBatch(id);
    const dest = join(env.dir, 'back.bin');
    await client.downloadFile(batchFilePath(b, 'limited.bin'), dest);
    expect((await readFile(dest)).equals(f.data)).toBe(true);
  });

  it('a download at 512K: intact, and no faster than 512 KiB/s', async () => {
    const f = await env.file('down.bin', 1536 * K);
    await client.writeFile('svc-drive/bw/down.bin', f.path);
    engineBandwidth.set(parseBwLimit('off:512K'), 'env');
    const granted = engineBandwidth.down.granted;
    const started = performance.now();
    const dest = join(env.dir, 'down-back.bin');
    await client.downloadFile('svc-drive/bw/down.bin', dest);
    const secs = (performance.now() - started) / 1000;
    expect(engineBandwidth.down.granted - granted).toBe(f.data.length);
    expect(secs).toBeGreaterThan((1536 - 51.2) / 512 - 0.05);
    expect((await readFile(dest)).equals(f.data)).toBe(true);
  });

  it('a limit lifted during an upload lets it finish at full speed', async () => {
    const f = await env.file('lifted.bin', 8 * PART);
    const { id } = await client.createBatch({ name: 'lifted' });
    engineBandwidth.set(parseBwLimit('16K'), 'saved');
    const started = performance.now();
    setTimeout(() => engineBandwidth.set(null), 300);
    await client.uploadMultipart(id, 'lifted.bin', f.path, { concurrency: 2 });
    // At 16 KiB/s the 512 KiB would take 30 s.
    expect(performance.now() - started).toBeLessThan(10_000);
    const dest = join(env.dir, 'lifted-back.bin');
    await client.downloadFile(batchFilePath(await client.getBatch(id), 'lifted.bin'), dest);
    expect((await readFile(dest)).equals(f.data)).toBe(true);
  });
});
