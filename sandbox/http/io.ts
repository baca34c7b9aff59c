import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform } from 'node:stream';
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

/** Bytes buffered towards the disk per upload: large enough that the socket is not paused every 16 KiB. */
const WRITE_BUFFER = 1024 * 1024;

/**
 * Streams the request body into `path` (never held in memory) and returns its size.
 * `maxBytes` stops a body that is too long as soon as it passes the limit. With `offset`
 * the body is written into an existing file at that position (multipart parts); without it
 * a new file is written and removed again on any failure.
 */
export async function streamBodyToFile(req: IncomingMessage, path: string, opts: { maxBytes?: number; offset?: number } = {}): Promise<number> {
  let size = 0;
  const { maxBytes, offset } = opts;
  const counter = new Transform({
    highWaterMark: WRITE_BUFFER,
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (maxBytes !== undefined && size > maxBytes) cb(badRequest(`body is longer than the ${maxBytes} bytes expected`));
      else cb(null, chunk);
    },
  });
  const out = createWriteStream(path, { highWaterMark: WRITE_BUFFER, ...(offset === undefined ? {} : { flags: 'r+', start: offset }) });
  try {
    await pipeline(req, counter, out);
  } catch (err) {
    if (offset === undefined) await rm(path, { force: true });
    if (err instanceof HttpError) {
      drain(req);
      throw err;
    }
    throw new HttpError(400, `upload interrupted: ${(err as Error).message}`);
  }
  return size;
}
