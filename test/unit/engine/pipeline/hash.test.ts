// sha256 of a file as the engine takes it in: equal to hashing the whole file at once, for empty
// files, files smaller than one read, exactly one read, and several reads.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256File } from '../../../../electron/engine/pipeline/hash.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docsync-hash-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MiB = 1024 * 1024;

describe('sha256File', () => {
  it.each([0, 1, 20_000, MiB - 1, MiB, MiB + 1, 3 * MiB + 7])('a file of %i bytes hashes like its whole content', async (size) => {
    const bytes = randomBytes(size);
    const path = join(dir, `f-${size}`);
    await writeFile(path, bytes);
    expect(await sha256File(path)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it.each([0, 1, 20_000, MiB, 3 * MiB + 7])('with its size given (%i bytes), the same hash', async (size) => {
    const bytes = randomBytes(size);
    const path = join(dir, `g-${size}`);
    await writeFile(path, bytes);
    expect(await sha256File(path, size)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('a file that grew past the size given hashes as its first bytes; one that shrank, as what is left', async () => {
    const bytes = randomBytes(30_000);
    const path = join(dir, 'changed');
    await writeFile(path, bytes);
    expect(await sha256File(path, 20_000)).toBe(createHash('sha256').update(bytes.subarray(0, 20_000)).digest('hex'));
    expect(await sha256File(path, 40_000)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('a missing file is an error naming it (the caller leaves it to the next scan)', async () => {
    await expect(sha256File(join(dir, 'gone.pdf'))).rejects.toThrow(/gone\.pdf/);
  });
});
