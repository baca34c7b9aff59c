/**
 * The headless transport of the UI contract: the built renderer and AppCore's handler table over
 * HTTP, events over server-sent events, on 127.0.0.1 only. Guarded by a random per-start secret:
 * the printed address carries it once (`/?k=...`), it becomes an HttpOnly SameSite=Strict cookie
 * and leaves the URL bar; API calls also need the x-docsync header and a local Host (against DNS
 * rebinding) and, when the browser sends one, our own Origin (the event stream too: a page on
 * another port of 127.0.0.1 is same-site, so the SameSite cookie alone does not keep it out).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join, normalize, sep } from 'node:path';
import { DESKTOP_ONLY, EVENT_CHANNELS, HTTP, MAX_STAGED_BYTES, isRequestChannel } from '../../shared/ui/contract.js';
import { errorReply } from '../../shared/ui/errors.js';
import { rendererFileType } from '../../shared/ui/static-types.js';
import { decodeWire, encodeWire } from '../../shared/ui/wire.js';
import type { AppCore } from '../engine/app/core.js';

const COOKIE = 'docsync_ui';
const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
/** Base64 of the largest staged drop, plus room for the JSON around it. */
const MAX_BODY = Math.ceil((MAX_STAGED_BYTES * 4) / 3) + 64 * 1024;
/** How long a connection refused with 413 may go on sending before it is cut. */
const LINGER_MS = 2000;
const TOO_LARGE = `That is more than ${Math.round(MAX_BODY / 1048576)} MB in one piece, more than DocSync takes from a browser: put large files into a hot folder instead.`;

/** How long a connection may take, and how many there may be: a local process cannot hold sockets open at will. */
export interface UiLimits {
  /** From connecting to the end of the request's headers: a browser sends them at once. */
  headersMs: number;
  /** The whole request, body included (a 270 MB drop crosses loopback in seconds); not the answer, so the event stream lives on. */
  requestMs: number;
  /** An idle connection between requests: browsers reuse one within seconds (Node's default). */
  keepAliveMs: number;
  /** Open connections: a browser opens up to 6 to one host, one of them each tab's event stream. */
  maxConnections: number;
}
export const UI_LIMITS: UiLimits = { headersMs: 10_000, requestMs: 60_000, keepAliveMs: 5_000, maxConnections: 32 };
const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:", "worker-src 'self' blob:",
  "connect-src 'self'", "font-src 'self' data:", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'",
].join('; ');

export interface UiServer {
  url: string;
  /** The address to open: carries the secret once. */
  openUrl: string;
  port: number;
  close(): Promise<void>;
}

export async function startUiServer(core: AppCore, o: { port: number; rendererDir: string; limits?: Partial<UiLimits> }): Promise<UiServer> {
  const limits = { ...UI_LIMITS, ...o.limits };
  const secret = randomBytes(24).toString('base64url');
  const secretBuf = Buffer.from(secret);
  const streams = new Set<ServerResponse>();
  let port = 0;

  const hasSecret = (given: string | undefined): boolean => {
    if (!given) return false;
    const b = Buffer.from(given);
    return b.length === secretBuf.length && timingSafeEqual(b, secretBuf);
  };
  const cookieOf = (req: IncomingMessage): string | undefined =>
    (req.headers.cookie ?? '').split(';').map((c) => c.trim().split('=')).find(([k]) => k === COOKIE)?.[1];
  const localHost = (req: IncomingMessage): boolean => req.headers.host === `127.0.0.1:${port}` || req.headers.host === `localhost:${port}`;
  const sameOrigin = (req: IncomingMessage): boolean => {
    const origin = req.headers.origin;
    return origin === undefined || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
  };

  const send = (res: ServerResponse, status: number, body: string | Buffer, type = 'text/plain; charset=utf-8', extra: Record<string, string> = {}): void => {
    res.writeHead(status, {
      'content-type': type, 'content-length': Buffer.byteLength(body), 'content-security-policy': CSP, 'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer', 'cache-control': 'no-store', 'cross-origin-opener-policy': 'same-origin', 'cross-origin-resource-policy': 'same-origin', ...extra,
    });
    res.end(body);
  };

  /** An API refusal: the reply envelope the page shows (lib/bridge.ts), with a status for anyone else. */
  const refuse = (res: ServerResponse, status: number, sentence: string, extra: Record<string, string> = {}): void =>
    send(res, status, encodeWire(errorReply(sentence, null)), 'application/json; charset=utf-8', extra);
  /**
   * 413 at once, then the connection is closed, the rest of the body unread. Closing a socket with
   * input still arriving sends a TCP reset, which can make the client lose the answer; so our side is
   * ended and what still comes is discarded until the client closes too, for LINGER_MS at most.
   */
  const tooLarge = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket;
    // Node ends a `connection: close` answer with destroySoon(): this socket lingers instead.
    socket.destroySoon = () => {
      socket.end();
      const timer = setTimeout(() => socket.destroy(), LINGER_MS);
      socket.once('end', () => socket.destroy());
      socket.once('close', () => clearTimeout(timer));
    };
    req.removeAllListeners('data');
    req.on('data', () => undefined);
    req.resume();
    refuse(res, 413, TOO_LARGE, { connection: 'close' });
  };

  /** The body, or null once it went over MAX_BODY (a chunked body has no Content-Length to refuse it by). */
  const readBody = (req: IncomingMessage): Promise<string | null> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const onData = (c: Buffer): void => {
        size += c.length;
        if (size <= MAX_BODY) return void chunks.push(c);
        req.off('data', onData);
        resolve(null);
      };
      req.on('data', onData);
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const api = async (req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> => {
    if (req.method !== 'POST') return send(res, 405, 'POST only', undefined, { allow: 'POST' });
    if (req.headers[HTTP.header] !== '1' || !sameOrigin(req)) return refuse(res, 403, 'Only DocSync\'s own page may call it.');
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) return tooLarge(req, res);
    const name = safeDecode(channel);
    if (isRequestChannel(name) && DESKTOP_ONLY.has(name)) {
      return refuse(res, 403, `"${name}" works only in the desktop app: in a browser, drop files on the page (their bytes are sent) and type a hot folder's path.`);
    }
    let result: unknown;
    try {
      const raw = await readBody(req);
      if (raw === null) return tooLarge(req, res);
      const args = raw === '' ? {} : decodeWire(raw);
      result = { ok: true, result: await core.call(name, args) };
    } catch (err) {
      result = errorReply(err instanceof Error ? err.message : String(err), err);
    }
    send(res, 200, encodeWire(result), 'application/json; charset=utf-8');
  };

  const events = (req: IncomingMessage, res: ServerResponse): void => {
    if (!sameOrigin(req)) return send(res, 403, 'Only DocSync\'s own page may listen to it.');
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', connection: 'keep-alive',
    });
    res.write('retry: 2000\n\n');
    const offs = EVENT_CHANNELS.map((ch) => {
      const fn = (payload: unknown): void => {
        res.write(`event: ${ch}\ndata: ${encodeWire(payload)}\n\n`);
      };
      core.events.on(ch, fn);
      return () => core.events.off(ch, fn);
    });
    // A comment now and then keeps proxies and idle timers from closing a quiet stream.
    const beat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    streams.add(res);
    const done = (): void => {
      clearInterval(beat);
      for (const off of offs) off();
      streams.delete(res);
    };
    req.on('close', done);
    res.on('error', done);
  };

  const staticFile = async (res: ServerResponse, path: string): Promise<void> => {
    const rel = normalize(decodeURIComponent(path === '/' ? '/index.html' : path)).replace(/^([/\\])+/, '');
    const file = join(o.rendererDir, rel);
    if (!file.startsWith(o.rendererDir + sep)) return send(res, 404, 'not found');
    const st = await stat(file).catch(() => null);
    if (!st?.isFile()) return send(res, 404, 'not found');
    send(res, 200, await readFile(file), rendererFileType(file));
  };

  const server: Server = createServer({
    headersTimeout: limits.headersMs,
    requestTimeout: limits.requestMs,
    // How often Node looks for requests over those two (its default, 30 s, would let one live 40 s).
    connectionsCheckingInterval: Math.min(1000, limits.headersMs / 2),
  }, (req, res) => {
    // A request arrived: the silence timer below is done (answers and the event stream take their time).
    req.socket.setTimeout(0);
    void (async () => {
      if (!localHost(req)) return send(res, 421, 'DocSync answers only on 127.0.0.1');
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      const key = url.searchParams.get('k');
      if (url.pathname === '/' && key !== null) {
        if (!hasSecret(key)) return send(res, 403, 'This address is out of date: open the one "docsync serve" printed when it started.');
        return send(res, 303, '', undefined, { location: '/', 'set-cookie': `${COOKIE}=${secret}; HttpOnly; SameSite=Strict; Path=/` });
      }
      if (!hasSecret(cookieOf(req))) return send(res, 401, 'Open the address "docsync serve" printed when it started (it signs this browser in).');
      if (url.pathname.startsWith(HTTP.call)) return api(req, res, url.pathname.slice(HTTP.call.length));
      if (url.pathname === HTTP.events) return events(req, res);
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
      return staticFile(res, url.pathname);
    })().catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, err instanceof Error ? err.message : String(err));
      else res.destroy();
    });
  });
  // headersTimeout counts from a request's first byte: a connection that sends nothing is closed by this.
  server.on('connection', (socket: Socket) => socket.setTimeout(limits.headersMs));
  server.keepAliveTimeout = limits.keepAliveMs;
  // Over the cap Node closes a new connection at once.
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/`,
    openUrl: `${base}/?k=${secret}`,
    port,
    async close() {
      for (const s of streams) s.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
