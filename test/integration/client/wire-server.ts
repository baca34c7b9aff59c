/**
 * A small real HTTP server on 127.0.0.1 whose answers a test scripts, and which records what
 * arrived on the wire (headers, sockets, overlap). It stands in for what the sandbox cannot show
 * (the headers a client sent, connection reuse) or never does (a proxy's HTML page, a hung answer,
 * an echoed credential). Everything the service contract says is tested against the sandbox.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import { ServiceClient, type ClientConfig, type RetryEvent } from '../../../electron/engine/service/index.js';

export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  socket: number;
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, n: number, body: string) => void;

export interface WireServer {
  url: string;
  seen: Seen[];
  connections: number;
  maxConcurrent: number;
  route(key: string, h: Handler): void;
  close(): Promise<void>;
}

export async function wireServer(): Promise<WireServer> {
  const routes = new Map<string, Handler>();
  const counts = new Map<string, number>();
  const sockets = new Map<Socket, number>();
  const state = { connections: 0, active: 0, maxConcurrent: 0 };
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    state.active++;
    state.maxConcurrent = Math.max(state.maxConcurrent, state.active);
    res.once('close', () => state.active--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const key = `${req.method} ${path}`;
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, socket: sockets.get(req.socket) ?? -1, body });
      const h = routes.get(key) ?? routes.get(`${req.method} *`);
      if (h) return h(req, res, n, body);
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `no route ${key}` }));
    });
  });
  server.on('connection', (s: Socket) => sockets.set(s, ++state.connections));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    get connections() {
      return state.connections;
    },
    get maxConcurrent() {
      return state.maxConcurrent;
    },
    route: (key, h) => routes.set(key, h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

export interface WireClients {
  /** This test's server; a test that closes it early puts a new one here (closed after the test). */
  srv: WireServer;
  /** The retries this test's clients reported. */
  retries: RetryEvent[];
  /** A client of `srv` with the file's token and retries (`extra` over them), closed after the test. */
  client(extra?: Partial<ClientConfig>): ServiceClient;
}

/**
 * The set-up of a test file whose clients talk to the scripted server, shared so that each file does
 * not repeat it: a new server and no retries before each test, every client and the server closed
 * after it. Call once at the top of the file (it registers the hooks).
 */
export function wireClients(base: Pick<ClientConfig, 'token' | 'retry'>): WireClients {
  const clients: ServiceClient[] = [];
  const w: WireClients = {
    srv: undefined as unknown as WireServer, // set before each test
    retries: [],
    client(extra = {}) {
      const c = new ServiceClient({ baseUrl: w.srv.url, ...base, onRetry: (e) => w.retries.push(e), ...extra });
      clients.push(c);
      return c;
    },
  };
  beforeEach(async () => {
    w.srv = await wireServer();
    w.retries = [];
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await w.srv.close();
  });
  return w;
}
