// The pipeline's looks at files in the worker thread (file-worker.ts): the same answers as node's
// async fs (hash.ts, fs.stat), the same errors with their codes, and answers kept apart when many
// looks of both kinds are asked for at once (they travel in groups).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileWorkerRunning, hashSeenFile, SMALL_MAX, snapshotSeen, statSeen } from '../../../../electron/engine/pipeline/file-worker.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docsync-file-worker-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('hashSeenFile', () => {
  it.each([0, 1, 20_000, SMALL_MAX, SMALL_MAX + 1, 3 * SMALL_MAX + 7])('a file of %i bytes hashes like its whole content', async (size) => {
    const bytes = randomBytes(size);
    const path = join(dir, `f-${size}`);
    await writeFile(path, bytes);
    expect(await hashSeenFile(path, size)).toBe(sha(bytes));
  });

  it('reads no further than the size the watcher saw; a file that shrank hashes as what is left', async () => {
    const bytes = randomBytes(30_000);
    const path = join(dir, 'changed');
    await writeFile(path, bytes);
    expect(await hashSeenFile(path, 20_000)).toBe(sha(bytes.subarray(0, 20_000)));
    expect(await hashSeenFile(path, 40_000)).toBe(sha(bytes));
  });

  it('a missing file rejects with ENOENT, a folder with EISDIR, as fs does', async () => {
    await expect(hashSeenFile(join(dir, 'nothing-here'), 10)).rejects.toMatchObject({ code: 'ENOENT' });
    await mkdir(join(dir, 'a-folder'));
    await expect(hashSeenFile(join(dir, 'a-folder'), 10)).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('300 hashes and stats asked at once each get their own answer, failures among them', async () => {
    const files = await Promise.all(
      Array.from({ length: 150 }, async (_, i) => {
        const bytes = randomBytes(100 + i * 37);
        const path = join(dir, `many-${i}`);
        await writeFile(path, bytes);
        return { path, bytes };
      }),
    );
    const hashes = files.map((f, i) => (i % 10 === 3 ? hashSeenFile(`${f.path}-gone`, f.bytes.length) : hashSeenFile(f.path, f.bytes.length)));
    const stats = files.map((f) => statSeen(f.path));
    const got = await Promise.allSettled(hashes);
    got.forEach((r, i) => {
      if (i % 10 === 3) expect(r).toMatchObject({ status: 'rejected', reason: { code: 'ENOENT' } });
      else expect(r).toEqual({ status: 'fulfilled', value: sha((files[i] as { bytes: Buffer }).bytes) });
    });
    expect((await Promise.all(stats)).map((s) => s.size)).toEqual(files.map((f) => f.bytes.length));
    // Answered by the worker thread, not by the async fs fallback.
    expect(fileWorkerRunning()).toBe(true);
  });
});

describe('statSeen', () => {
  it("gives fs.stat's size, mtime (fractional, as fs gives it) and whether it is a file or a folder", async () => {
    const path = join(dir, 'seen');
    await writeFile(path, 'twelve bytes');
    const st = await stat(path);
    expect(await statSeen(path)).toEqual({ isFile: true, isDirectory: false, size: 12, mtimeMs: st.mtimeMs });
    expect(await statSeen(dir)).toMatchObject({ isFile: false, isDirectory: true });
  });

  it('a missing file rejects with ENOENT', async () => {
    await expect(statSeen(join(dir, 'never'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('snapshotSeen (the look before an upload)', () => {
  it('a small file comes with its bytes and its stat; a larger one, a folder and a missing file with the stat (or its error) only', async () => {
    const small = randomBytes(20_000);
    await writeFile(join(dir, 'snap-small'), small);
    const st = await stat(join(dir, 'snap-small'));
    const s = await snapshotSeen(join(dir, 'snap-small'));
    expect(s).toMatchObject({ isFile: true, size: 20_000, mtimeMs: st.mtimeMs });
    expect(Buffer.from(s.bytes ?? []).equals(small)).toBe(true);
    await writeFile(join(dir, 'snap-large'), randomBytes(SMALL_MAX + 1));
    expect((await snapshotSeen(join(dir, 'snap-large'))).bytes).toBeUndefined();
    await mkdir(join(dir, 'snap-folder'));
    expect(await snapshotSeen(join(dir, 'snap-folder'))).toMatchObject({ isFile: false, isDirectory: true });
    await expect(snapshotSeen(join(dir, 'snap-none'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(fileWorkerRunning()).toBe(true);
  });
});
