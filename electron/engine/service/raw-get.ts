/**
 * GETs whose body is read into a reused buffer (results pages, issue 14), with node:http on the
 * client's keep-alive agents. Why not got: for a results page of about 4 MB got allocates about
 * 12 MB of buffers (the HTTP parser's copy of each chunk, then its joins) that live until V8's next
 * full collection; glibc, whose mmap threshold rises after the first large free, puts them on its
 * main heap and does not give the freed middle of that heap back, so the engine's RSS climbed with
 * every stored run. Here the parser's 64 KB chunks are copied at once into a buffer taken from a
 * small pool and given back after the page is parsed: one allocation of the largest page, kept.
 * Hand-written because no maintained client reads into a caller's buffer (undici and got both join
 * chunks); the decompression got did for us (gzip, deflate, br) is node:zlib's.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ServiceAgents } from './agents.js';
import type { Readable, Transform } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { engineBandwidth } from './bandwidth.js';
import { BodySendError, watchRequest } from './request-watch.js';

/**
 * Buffers lent for one body at a time. A buffer is kept when given back unless the pool already
 * holds `keep` or it is over `maxKeepBytes` (one unusual page must not pin its size for good).
 */
export class BodyPool {
  /** Bytes allocated for bodies so far (for tests and the bench). */
  allocatedBytes = 0;
  readonly #free: Buffer[] = [];

  constructor(
    readonly keep = 2,
    readonly maxKeepBytes = 16 * 1024 * 1024,
    readonly minBytes = 256 * 1024,
  ) {}

  /** A buffer of at least `bytes`: the smallest free one that is large enough, else a new one. */
  take(bytes: number): Buffer {
    this.#free.sort((a, b) => a.length - b.length);
    const i = this.#free.findIndex((b) => b.length >= bytes);
    if (i !== -1) return this.#free.splice(i, 1)[0] as Buffer;
    // The smaller free buffers are dropped: the new, larger one takes their place when given back.
    this.#free.length = 0;
    // With a quarter to spare, so the next page a little larger fits (pages untouched cost no memory).
    const size = Math.max(this.minBytes, Math.ceil((bytes * 1.25) / 65_536) * 65_536);
    this.allocatedBytes += size;
    // Not from Buffer's shared 8 KB slab: this buffer is meant to live on its own.
    return Buffer.allocUnsafeSlow(size);
  }

  give(b: Buffer): void {
    if (b.length <= this.maxKeepBytes && this.#free.length < this.keep) this.#free.push(b);
  }
}

export interface PooledReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** A view of a pooled buffer: valid until `release`. */
  body: Buffer;
  /** Gives the buffer back; the body must not be read afterwards. Idempotent. */
  release: () => void;
}

export interface RawGet {
  url: string;
  headers: Record<string, string>;
  agents: ServiceAgents;
  pool: BodyPool;
  /** Longest silence on the socket. */
  idleMs: number;
  /** From the request being sent to the response headers. */
  responseMs: number;
  signal?: AbortSignal;
}

/** The decoder for a Content-Encoding, or null for a body as sent (identity, or one we do not know, as got passes it on). */
function decoder(res: IncomingMessage, first: Buffer | undefined): Transform | null {
  const enc = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  // Flushing as got's decompress-response does: a body cut at a block boundary still yields what it holds.
  const flush = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
  if (enc === 'gzip' || enc === 'x-gzip') return createGunzip(flush);
  // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate: the first byte tells.
  if (enc === 'deflate') return first && ((first[0] as number) & 0x0f) !== 0x08 ? createInflateRaw(flush) : createInflate(flush);
  if (enc === 'br') return createBrotliDecompress({ flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH });
  return null;
}

/**
 * Results pages count against the engine's download limit (bandwidth.ts), as rclone counts
 * listings: each chunk received is charged, and the response is paused until the bucket has paid
 * for it, so the socket is not read meanwhile and the service's sending slows to the limit.
 */
function throttleReads(res: IncomingMessage, signal: AbortSignal): void {
  const bucket = engineBandwidth.down;
  res.on('data', (c: Buffer) => {
    if (bucket.rate === null) return;
    res.pause();
    bucket.acquire(c.length, signal).then(() => res.resume(), () => undefined);
  });
}

/** One GET attempt; rejects with BodySendError (the same failures as an upload's, `sent` always true once the request is out). */
export function getInto(o: RawGet): Promise<PooledReply> {
  return new Promise<PooledReply>((resolve, reject) => {
    const https = o.url.startsWith('https:');
    const req = (https ? httpsRequest : httpRequest)(o.url, {
      method: 'GET',
      headers: { 'accept-encoding': 'gzip, deflate, br', ...o.headers },
      agent: https ? o.agents.https : o.agents.http,
      timeout: o.idleMs,
    });
    let buf: Buffer | undefined;
    let used = 0;
    let source: Readable | undefined;
    const giveBack = (): void => {
      if (buf) o.pool.give(buf);
      buf = undefined;
    };
    const stopped = new AbortController();
    req.once('close', () => stopped.abort());
    // A failure also stops the body's source and gives the buffer back.
    const watch = watchRequest(req, o, () => { source?.destroy(); giveBack(); }, reject);
    if (watch.settled) return;
    const { fail } = watch;

    req.on('response', (res) => {
      throttleReads(res, stopped.signal);
      const length = Number(res.headers['content-length']);
      const known = Number.isSafeInteger(length) && length >= 0;
      const cut = (): void => {
        const of = known ? ` of ${length}` : '';
        fail(new BodySendError('network', 'ECONNRESET', true, `the connection closed before the whole body arrived (${used}${source === res ? of : ''} bytes${source === res ? '' : ' decoded'})`));
      };
      // An identity body is read straight into a buffer of its announced length.
      buf = o.pool.take(known ? length : 0);
      const append = (c: Buffer): void => {
        if (watch.settled || !buf) return;
        if (used + c.length > buf.length) {
          const bigger = o.pool.take(Math.max(buf.length * 2, used + c.length));
          buf.copy(bigger, 0, 0, used);
          // The smaller one is dropped, not kept: the grown one takes its place in the pool.
          buf = bigger;
        }
        used += c.copy(buf, used);
      };
      const done = (): void => {
        if (watch.settled) return;
        if (source === res && known && used !== length) return cut();
        watch.settle();
        let lent: Buffer | undefined = buf;
        buf = undefined;
        resolve({
          statusCode: res.statusCode ?? 0,
          headers: res.headers,
          body: (lent as Buffer).subarray(0, used),
          release: () => {
            if (lent) o.pool.give(lent);
            lent = undefined;
          },
        });
      };
      res.on('error', (e: NodeJS.ErrnoException) => (e.message === 'aborted' ? cut() : fail(new BodySendError('network', e.code, true, e.message))));
      res.on('aborted', cut);
      // A socket closed before the parser saw the end (the body cut short).
      res.on('close', () => {
        if (!res.complete) cut();
      });
      // The decoder is chosen on the first chunk (raw or wrapped deflate); identity bodies go straight in.
      res.once('data', (first: Buffer) => {
        res.pause();
        const d = decoder(res, first);
        if (d) {
          source = d;
          d.on('data', append);
          d.on('error', (e: Error) => fail(new BodySendError('network', 'EBADBODY', true, `the body could not be decompressed (${String(res.headers['content-encoding'])}): ${e.message}`)));
          d.on('end', done);
          res.on('data', (c: Buffer) => d.write(c));
          res.on('end', () => d.end());
          d.write(first);
        } else {
          source = res;
          append(first);
          res.on('data', append);
          res.on('end', done);
        }
        res.resume();
      });
      // An empty body: 'end' with no 'data' at all.
      res.once('end', () => {
        if (!source) {
          source = res;
          done();
        }
      });
    });
    req.end();
  });
}
