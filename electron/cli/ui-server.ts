/**
 * The headless transport of the UI contract: the built renderer and AppCore's handler table over
 * HTTP, events over server-sent events, on 127.0.0.1 only. Guarded by a random per-start secret:
 * the printed address carries it once (`/?k=...`), it becomes an HttpOnly SameSite=Strict cookie
 * and leaves the URL bar; API calls also need the x-docsync header and a local Host (against DNS
 * rebinding) and, when the browser sends one, our own Origin.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { EVENT_CHANNELS, HTTP, MAX_STAGED_BYTES } from '../../shared/ui/contract.js';
import { errorReply } from '../../shared/ui/errors.js';
import { decodeWire, encodeWire } from '../../shared/ui/wire.js';
import type { AppCore } from '../engine/app/core.js';

const COOKIE = 'docsync_ui';
/** Base64 of the largest staged drop, plus room for the JSON around it. */
const MAX_BODY = Math.ceil((MAX_STAGED_BYTES * 4) / 3) + 64 * 1024;
const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:", "worker-src 'self' blob:",
  "connect-src 'self'", "font-src 'self' data:", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'",
].join('; ');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.wasm': 'application/wasm', '.map': 'application/json',
  '.woff2': 'font/woff2', '.bcmap': 'application/octet-stream', '.pfb': 'application/octet-stream',
};

export interface UiServer {
  url: string;
  /** The address to open: carries the secret once. */
  openUrl: string;
  port: number;
  close(): Promise<void>;
}

export async function startUiServer(core: AppCore, o: { port: number; rendererDir: string }): Promise<UiServer> {
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

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) {
          reject(new Error(`the request is larger than ${Math.round(MAX_BODY / 1048576)} MB; put large files into a hot folder instead`));
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const api = async (req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> => {
    if (req.method !== 'POST') return send(res, 405, 'POST only', undefined, { allow: 'POST' });
    if (req.headers[HTTP.header] !== '1' || !sameOrigin(req)) return send(res, 403, 'forbidden');
    let result: unknown;
    try {
      const raw = await readBody(req);
      const args = raw === '' ? {} : decodeWire(raw);
      result = { ok: true, result: await core.call(decodeURIComponent(channel), args) };
    } catch (err) {
      result = errorReply(err instanceof Error ? err.message : String(err), err);
    }
    send(res, 200, encodeWire(result), 'application/json; charset=utf-8');
  };

  const events = (req: IncomingMessage, res: ServerResponse): void => {
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
    send(res, 200, await readFile(file), TYPES[extname(file)] ?? 'application/octet-stream');
  };

  const server: Server = createServer((req, res) => {
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
