/**
 * An upload's reads are of the file that was checked (issue 26): given its device and inode, FileSlice
 * refuses a path that leads to another file by the time it is opened (a file swapped for a link to
 * the owner's files, same size and time), before a byte is read. Real files, a real symlink.
 */
import { mkdtemp, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FileChangedError } from '../../../../electron/engine/service/errors.js';
import { FileSlice } from '../../../../electron/engine/service/file-slice.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'docsync-slice-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('reads the checked file; once the path is swapped for a link to another file of the same size and time, fails with FileChangedError', async () => {
  const file = path.join(dir, 'scan.txt');
  const other = path.join(dir, 'secret.txt');
  await writeFile(file, 'bait');
  await writeFile(other, 'KEY!');
  const when = new Date(1_700_000_000_000);
  await utimes(file, when, when);
  await utimes(other, when, when);
  const st = await stat(file);
  const expect_ = { size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino };
  expect(await text(new FileSlice(file, 0, 4, expect_))).toBe('bait');
  await symlink(other, path.join(dir, '.swap'));
  await rename(path.join(dir, '.swap'), file);
  // Size and time alone cannot tell (the check without dev and ino reads the other file whole).
  expect(await text(new FileSlice(file, 0, 4, { size: st.size, mtimeMs: st.mtimeMs }))).toBe('KEY!');
  const swapped = new FileSlice(file, 0, 4, expect_);
  const got: Buffer[] = [];
  swapped.on('data', (b: Buffer) => got.push(b));
  const err = await new Promise((resolve) => {
    swapped.on('error', resolve);
    swapped.on('end', () => resolve('read to the end'));
  });
  expect(err).toBeInstanceOf(FileChangedError);
  expect(Buffer.concat(got).toString()).toBe('');
});
