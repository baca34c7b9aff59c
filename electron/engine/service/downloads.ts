/**
 * Downloads from the service's filesystem (files, post-processed PDFs) to disk: streamed into
 * `dest + '.part'`, resumed with Range from the .part's size (across retries and across runs),
 * and renamed to `dest` only when the size matches what the service announced. A partial file
 * never sits under the final name.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { abortedError, fullJitter, sleep } from './backoff.js';
import { engineBandwidth } from './bandwidth.js';
import { ServiceError } from './errors.js';
import { filePath, parseContentRange } from './files.js';
import type { Transport } from './http.js';
import type { CallOptions } from './jobs.js';

export interface DownloadOptions extends CallOptions {
  /** Bytes in the .part so far, and the file's size when known. */
  onProgress?: (received: number, total: number | undefined) => void;
}

export interface DownloadResult {
  size: number;
  /** Bytes that were already in the .part when this call began (0 for a fresh download). */
  resumedFrom: number;
}

const partSize = async (p: string): Promise<{ size: number; mtimeMs: number } | null> => {
  const st = await stat(p).catch(() => null);
  return st ? { size: st.size, mtimeMs: st.mtimeMs } : null;
};

/**
 * Under a download limit a file is asked for in pieces of half a second of the rate (at least
 * 256 KiB), each once the one before is on disk. The limiter reads the socket slowly, but what the
 * OS holds on the way (the receive window, buffers between) arrives at the line's speed: measured
 * on loopback, a whole-file GET let about 3.5 MiB per download through at once (bench/README.md,
 * "Bandwidth limit"). A piece caps that at its size. The cost is a round trip per piece, which
 * other downloads in parallel fill: a single download on a 150 ms link gets about 3/4 of the limit.
 */
function limitedPiece(): number | null {
  const rate = engineBandwidth.down.rate;
  return rate === null ? null : Math.max(256 * 1024, Math.round(rate / 2));
}

export async function downloadFile(t: Transport, servicePath: string, dest: string, o: DownloadOptions = {}): Promise<DownloadResult> {
  const op = 'downloadFile';
  const part = `${dest}.part`;
  const { signal, onProgress } = o;
  const resumedFrom = (await partSize(part))?.size ?? 0;
  let failures = 0;
  for (;;) {
    if (signal?.aborted) throw abortedError(op);
    const have = await partSize(part);
    const from = have?.size ?? 0;
    const piece = limitedPiece();
    const opened = await t.openStream({
      op, method: 'GET', path: filePath(servicePath), query: { 'expect-node-type': 'file' },
      headers: from > 0 || piece !== null ? { range: `bytes=${from}-${piece === null ? '' : from + piece - 1}` } : {},
      idempotent: true, ok: [200, 206, 416], ...(signal ? { signal } : {}),
    });
    const { status, headers } = opened;
    let total: number | undefined;
    let append = false;
    const cr = parseContentRange(headers['content-range']);
    if (status === 416) {
      opened.body.resume();
      opened.release();
      // The .part already holds the whole file (a crash before the rename) or is longer than it.
      if (cr?.total !== undefined && from === cr.total) {
        await rename(part, dest);
        return { size: from, resumedFrom };
      }
      await rm(part, { force: true });
      continue;
    }
    const lastModified = Date.parse(String(headers['last-modified'] ?? ''));
    if (status === 206) {
      // Resume only when the answer continues our bytes of the same version of the file.
      const stale = have && Number.isFinite(lastModified) && lastModified > have.mtimeMs + 1000;
      if (!cr || cr.start !== from || stale) {
        opened.body.destroy();
        opened.release();
        await rm(part, { force: true });
        continue;
      }
      total = cr.total;
      append = true;
    } else {
      const len = headers['content-length'];
      total = len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined;
    }
    let received = append ? from : 0;
    onProgress?.(received, total);
    // Under a bandwidth limit each chunk waits for the engine's download bucket (bandwidth.ts)
    // before it is passed on: the pipeline stops reading the socket meanwhile, so the service's
    // sending slows to the limit (TCP's window), nothing piles up here.
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        const pass = (): void => {
          received += chunk.length;
          onProgress?.(received, total);
          cb(null, chunk);
        };
        if (engineBandwidth.down.rate === null) return pass();
        engineBandwidth.down.acquire(chunk.length, signal).then(pass, (e: Error) => cb(e));
      },
    });
    try {
      await pipeline(opened.body, counter, createWriteStream(part, { flags: append ? 'a' : 'w' }));
    } catch (e) {
      const err = t.streamFailure(op, e, signal);
      if (err.kind === 'aborted') throw err;
      if (!err.retryable || ++failures > t.cfg.retry.limit) throw err;
      const delay = fullJitter(failures, t.cfg.retry.baseDelayMs, t.cfg.retry.maxDelayMs);
      t.noteRetry(op, `GET ${filePath(servicePath)}`, failures, delay, `${err.kind}: ${err.message} (resuming from the .part)`, err.code);
      await sleep(delay, signal, op);
      continue;
    } finally {
      opened.release();
    }
    const size = (await partSize(part))?.size ?? 0;
    if (total === undefined || size === total) {
      await rename(part, dest);
      return { size, resumedFrom };
    }
    if (size > total) {
      await rm(part, { force: true });
      throw new ServiceError({ kind: 'bad-response', operation: op, status, message: `received ${size} bytes of ${servicePath} but the service announced ${total}; the partial file was removed` });
    }
    // A piece asked for under a download limit, arrived whole: the next one.
    if (piece !== null && append && cr && size === cr.end + 1) continue;
    // The body ended early without an error: resume from what arrived.
    if (++failures > t.cfg.retry.limit) {
      throw new ServiceError({ kind: 'network', operation: op, retryable: true, message: `${servicePath}: the body ended at ${size} of ${total} bytes, ${failures} times` });
    }
  }
}
