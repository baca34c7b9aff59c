import { close as fsClose, open as fsOpen, writev as fsWritev } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HttpError, badRequest } from './errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Length': 0, ...headers });
  res.end();
}

/** The sandbox's own base address as the caller reached it (plain HTTP on 127.0.0.1), for absolute Location headers. */
export function baseOf(req: IncomingMessage): string {
  const host = req.headers.host;
  return `http://${host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : '127.0.0.1'}`;
}

/** Reads a JSON object body, bounded so a bad client cannot make the sandbox hold a huge body. */
export async function readJson(req: IncomingMessage, maxBytes: number, opts: { optional?: boolean } = {}): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new HttpError(413, `request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') {
    if (opts.optional) return {};
    throw badRequest('request body must be a JSON object');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Discards whatever body is left so a keep-alive connection stays usable after an early answer. */
export function drain(req: IncomingMessage): void {
  if (!req.complete) req.resume();
}

/**
 * Bytes gathered before one write to disk. The socket delivers 64 KiB chunks; several uploads at
 * once (multipart parts) would otherwise each reach the disk in writes of one or a few chunks
 * (measured: ~1000 writes per 256 MiB instead of ~260, each a trip through the thread pool).
 */
const WRITE_BUFFER = 1024 * 1024;

/**
 * Writes a stream into a file at `position` in writes of about WRITE_BUFFER bytes (one writev of
 * the gathered chunks, no copy), counting bytes and refusing any past `maxBytes`.
 */
class FileSink extends Writable {
  size = 0;
  private fd: number | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly path: string,
    private readonly flags: string,
    private position: number,
    private readonly maxBytes: number | undefined,
  ) {
    super({ highWaterMark: WRITE_BUFFER });
  }

  override _construct(cb: (err?: Error | null) => void): void {
    fsOpen(this.path, this.flags, (err, fd) => {
      this.fd = fd;
      cb(err);
    });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.size += chunk.length;
    if (this.maxBytes !== undefined && this.size > this.maxBytes) return cb(badRequest(`body is longer than the ${this.maxBytes} bytes expected`));
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    // Until a full buffer is gathered the chunk is taken at once; the callback of the write that
    // flushes waits for the disk, which is what holds the socket back.
    if (this.pendingBytes < WRITE_BUFFER) return cb();
    this.flush(cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.flush(cb);
  }

  private flush(cb: (err?: Error | null) => void): void {
    let bufs = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    const next = (): void => {
      if (bufs.length === 0) return cb();
      fsWritev(this.fd as number, bufs, this.position, (err, written) => {
        if (err) return cb(err);
        if (written === 0) return cb(new Error(`no bytes could be written to ${this.path}`));
        this.position += written;
        // A short write leaves the rest of the buffers to go.
        while (written > 0 && bufs.length > 0) {
          const head = bufs[0] as Buffer;
          if (written >= head.length) {
            written -= head.length;
            bufs = bufs.slice(1);
          } else {
            bufs = [head.subarray(written), ...bufs.slice(1)];
            written = 0;
          }
        }
        next();
      });
    };
    next();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (this.fd === undefined) return cb(err);
    fsClose(this.fd, (closeErr) => cb(err ?? closeErr));
    this.fd = undefined;
  }
}

/**
 * Streams the request body into `path` (never held in memory) and returns its size.
 * `maxBytes` stops a body that is too long as soon as it passes the limit. With `offset`
 * the body is written into an existing file at that position (multipart parts); without it
 * a new file is written and removed again on any failure.
 */
export async function streamBodyToFile(req: IncomingMessage, path: string, opts: { maxBytes?: number; offset?: number } = {}): Promise<number> {
  const { maxBytes, offset } = opts;
  const out = new FileSink(path, offset === undefined ? 'w' : 'r+', offset ?? 0, maxBytes);
  try {
    await pipeline(req, out);
  } catch (err) {
    if (offset === undefined) await rm(path, { force: true });
    if (err instanceof HttpError) {
      drain(req);
      throw err;
    }
    throw new HttpError(400, `upload interrupted: ${(err as Error).message}`);
  }
  return out.size;
}
