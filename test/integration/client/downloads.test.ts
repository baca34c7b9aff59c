/**
 * Downloads to disk: streamed into `dest.part`, resumed with Range from the .part's size, renamed
 * into place only when complete, never a partial file under the final name.
 */
import { existsSync } from 'node:fs';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../../electron/engine/service/index.js';
import { clientEnv, failure, type ClientEnv } from './env.js';

let env: ClientEnv;
let client: ServiceClient;
let remote: Buffer;
const REMOTE = 'svc-drive/downloads/big.bin';

beforeAll(async () => {
  env = await clientEnv();
  client = env.client();
  const f = await env.file('source.bin', 3 * 1024 * 1024 + 17);
  remote = f.data;
  await client.writeFile(REMOTE, f.path);
});
afterAll(() => env.close());

describe('downloadFile', () => {
  it('a fresh download streams the whole file and leaves no .part', async () => {
    const dest = join(env.dir, 'fresh.bin');
    const seen: number[] = [];
    const r = await client.downloadFile(REMOTE, dest, { onProgress: (n, total) => (seen.push(n), expect(total).toBe(remote.length)) });
    expect(r).toEqual({ size: remote.length, resumedFrom: 0 });
    expect((await readFile(dest)).equals(remote)).toBe(true);
    expect(existsSync(`${dest}.part`)).toBe(false);
    expect(seen.at(-1)).toBe(remote.length);
  });

  it('resumes from a partial .part: only the rest is requested, with Range, and appended', async () => {
    const dest = join(env.dir, 'resume.bin');
    const have = 1_000_000;
    await writeFile(`${dest}.part`, remote.subarray(0, have));
    const seen: number[] = [];
    const r = await client.downloadFile(REMOTE, dest, { onProgress: (n) => seen.push(n) });
    expect(r).toEqual({ size: remote.length, resumedFrom: have });
    // The first report is the .part's size: the download continued from it instead of starting over.
    expect(seen[0]).toBe(have);
    expect((await readFile(dest)).equals(remote)).toBe(true);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });

  it('a .part longer than the file (416) is discarded and the file downloaded whole', async () => {
    const dest = join(env.dir, 'long.bin');
    await writeFile(`${dest}.part`, Buffer.alloc(remote.length + 10, 1));
    await client.downloadFile(REMOTE, dest);
    expect((await readFile(dest)).equals(remote)).toBe(true);
  });

  it('a .part that already holds the whole file (a crash before the rename) is simply put in place', async () => {
    const dest = join(env.dir, 'whole.bin');
    await writeFile(`${dest}.part`, remote);
    const r = await client.downloadFile(REMOTE, dest);
    expect(r.resumedFrom).toBe(remote.length);
    expect((await readFile(dest)).equals(remote)).toBe(true);
  });

  it('a .part older than the service\'s copy (Last-Modified) belongs to another version: it is not resumed', async () => {
    const dest = join(env.dir, 'stale.bin');
    await writeFile(`${dest}.part`, Buffer.alloc(1000, 0xee));
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(`${dest}.part`, hourAgo, hourAgo);
    await client.downloadFile(REMOTE, dest);
    expect((await readFile(dest)).equals(remote)).toBe(true);
  });

  it('cancelled midway: nothing under the final name, the .part kept; the next call resumes from it', async () => {
    const dest = join(env.dir, 'cancel.bin');
    const ctl = new AbortController();
    const e = await failure(() =>
      client.downloadFile(REMOTE, dest, {
        signal: ctl.signal,
        onProgress: (n) => {
          if (n > 0) ctl.abort();
        },
      }),
    );
    expect(e).toMatchObject({ kind: 'aborted', operation: 'downloadFile' });
    expect(existsSync(dest)).toBe(false);
    const partial = (await stat(`${dest}.part`)).size;
    expect(partial).toBeLessThan(remote.length);
    const r = await client.downloadFile(REMOTE, dest);
    expect(r.resumedFrom).toBe(partial);
    expect((await readFile(dest)).equals(remote)).toBe(true);
  });

  it('a missing file is a 404 and leaves nothing on disk', async () => {
    const dest = join(env.dir, 'missing.bin');
    expect(await failure(() => client.downloadFile('svc-drive/downloads/none.bin', dest))).toMatchObject({ kind: 'http', status: 404, operation: 'downloadFile' });
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });
});
