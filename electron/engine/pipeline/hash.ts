import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/** Largest read while hashing. */
const CHUNK = 1024 * 1024;

/**
 * sha256 of a file, streamed (never the whole file in memory). The read buffer is sized to the
 * file, not to CHUNK: thousands of small files dropped at once must not each hold 1 MiB
 * (measured: 4 GB of buffers reserved for 4,000 files of 20 KB).
 *
 * `size`: the size the caller already knows (the watcher's look): no stat, and no read past it, so a
 * small file costs an open, one read and a close. A file that has grown since hashes as its first
 * `size` bytes: its new size or mtime differs from the one stored beside the hash, so the check
 * before upload takes it in again (uploader.ts).
 */
export async function sha256File(path: string, size?: number): Promise<string> {
  const h = createHash('sha256');
  const fh = await open(path, 'r');
  try {
    const want = size ?? (await fh.stat()).size;
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, want)));
    for (let total = 0; size === undefined || total < size; ) {
      const { bytesRead } = await fh.read(buf, 0, size === undefined ? buf.length : Math.min(buf.length, size - total), null);
      if (bytesRead === 0) break;
      h.update(buf.subarray(0, bytesRead));
      total += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return h.digest('hex');
}
