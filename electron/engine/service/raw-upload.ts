/**
 * Streamed request bodies (uploads) sent with node:http on the client's keep-alive agents.
 * Measured on the project's machine (bench/upload.ts): got's body pipeline reaches about half of
 * curl's upload speed, a plain http.request about all of it; everything without a body stays on got.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ServiceAgents } from './agents.js';
import type { Readable } from 'node:stream';
import { AttemptRefused, FileChangedError } from './errors.js';
import { engineBandwidth } from './bandwidth.js';
import { FileSlice } from './file-slice.js';
import { BodySendError, watchRequest } from './request-watch.js';

export interface RawReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface RawSend {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Readable;
  agents: ServiceAgents;
  /** Longest silence on the socket. */
  idleMs: number;
  /** From the body being sent to the response headers. */
  responseMs: number;
  signal?: AbortSignal;
  onProgress?: (transferred: number) => void;
}

export function sendBody(o: RawSend): Promise<RawReply> {
  return new Promise<RawReply>((resolve, reject) => {
    const https = o.url.startsWith('https:');
    const req = (https ? httpsRequest : httpRequest)(o.url, {
      method: o.method,
      headers: o.headers,
      agent: https ? o.agents.https : o.agents.http,
      timeout: o.idleMs,
    });
    const watch = watchRequest(req, o, () => o.body.destroy(), reject);
    if (watch.settled) return;
    const { fail } = watch;

    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e: NodeJS.ErrnoException) => fail(new BodySendError('network', e.code, true, e.message)));
      res.on('end', () => {
        if (watch.settled) return;
        watch.settle();
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });

    // Written chunk by chunk rather than piped: each chunk's write callback (the socket is done
    // with it) hands a file chunk back for reuse, and progress needs no Transform in between.
    let transferred = 0;
    const body = o.body;
    const recycle = body instanceof FileSlice ? FileSlice.recycle : undefined;
    // Under a bandwidth limit a chunk goes in pieces, each when the engine's upload bucket allows
    // (bandwidth.ts); the file is not read further meanwhile, so the limit is backpressure, not a buffer.
    const bucket = engineBandwidth.up;
    const stop = new AbortController();
    let throttling = false;
    let writing = Promise.resolve();
    const throttled = async (chunk: Buffer, done: ((err?: Error | null) => void) | undefined): Promise<void> => {
      let more = true;
      for (let at = 0; at < chunk.length; ) {
        const piece = chunk.subarray(at, at + bucket.pieceSize());
        await bucket.acquire(piece.length, stop.signal);
        if (watch.settled) return;
        at += piece.length;
        more = req.write(piece, at === chunk.length ? done : undefined);
        transferred += piece.length;
        o.onProgress?.(transferred);
      }
      throttling = false;
      if (more) body.resume();
    };
    // Failures reach `fail` through the listeners: a local read error from the body first (it is
    // the file's fault, never the network's), a network error from the request.
    body.once('error', (e: Error) =>
      // A guard that refused the last chunk (the body is cut short: the service gets no file) is passed on as it is.
      fail(e instanceof AttemptRefused ? e : new BodySendError('file-changed', undefined, false, e instanceof FileChangedError ? e.message : `could not read the local file: ${e.message}`)),
    );
    body.on('data', (chunk: Buffer) => {
      // After a failed write the chunk may still be queued somewhere: only a written one is reused.
      const done = recycle ? (err?: Error | null) => (err ? undefined : recycle(chunk)) : undefined;
      if (bucket.rate !== null) {
        body.pause();
        throttling = true;
        writing = throttled(chunk, done).catch(() => undefined);
        return;
      }
      transferred += chunk.length;
      o.onProgress?.(transferred);
      const more = req.write(chunk, done);
      if (!more) body.pause();
    });
    // A drain while pieces wait for the bucket resumes nothing: the last piece decides.
    req.on('drain', () => {
      if (!throttling) body.resume();
    });
    // The end waits for the pieces of the last chunk still waiting for the bucket.
    body.once('end', () => {
      if (!throttling) req.end();
      else void writing.then(() => watch.settled || req.end());
    });
    // A request that ends early (failure, cancel, an early answer) stops the reading too.
    req.once('close', () => {
      stop.abort();
      body.destroy();
    });
  });
}
