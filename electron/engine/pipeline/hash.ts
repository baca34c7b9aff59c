import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/** Largest read while hashing. */
const CHUNK = 1024 * 1024;

/**
 * sha256 of a file, streamed (never the whole file in memory). The read buffer is sized to the
 * file, not to CHUNK: thousands of small files dropped at once must not each hold 1 MiB
 * (measured: 4 GB of buffers reserved for 4,000 files of 20 KB).
 */
export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, size)));
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      h.update(buf.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
  return h.digest('hex');
}
