// The headless UI server's limits, over real sockets on 127.0.0.1 (electron/cli/ui-server.ts): a body
// over the limit gets 413 at once (from its Content-Length, or as soon as a chunked body goes over),
// a request whose headers never end and an idle keep-alive connection are closed after their
// timeouts, connections over the cap are closed, and the event stream outlives every timeout.
// Timeouts are shortened through the server's `limits` option; the cap is lowered the same way.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiLimits, type UiServer } from '../../../electron/cli/ui-server.js';
import { decodeWire } from '../../../shared/ui/wire.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';

let env: CoreEnv;
let dir: string;
const open: UiServer[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  env = await coreEnv();
  dir = await mkdtemp(join(tmpdir(), 'docsync-ui-limits-'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>DocSync</title>');
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const ui of open.splice(0)) await ui.close();
});
afterAll(async () => {
  await env?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A server and its sign-in cookie. */
async function serve(limits: Partial<UiLimits> = {}): Promise<{ ui: UiServer; cookie: string }> {
  const ui = await startUiServer(env.core, { port: 0, rendererDir: dir, limits });
  open.push(ui);
  const cookie = await new Promise<string>((resolve, reject) => {
    // agent: false, so no idle keep-alive connection is left to count against the cap.
    request(ui.openUrl, { agent: false }, (res) => {
      res.resume();
      resolve(String(res.headers['set-cookie']).split(';')[0] as string);
    }).on('error', reject).end();
  });
  return { ui, cookie };
}

/** A raw socket, with everything it received and when it closed (ms after connecting; null while open). */
function socket(port: number): Promise<{ s: Socket; got: () => string; closedAfter: () => number | null; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const s = connect(port, '127.0.0.1');
    sockets.push(s);
    let text = '';
    let closedAt: number | null = null;
    s.on('data', (c: Buffer) => (text += c.toString('latin1')));
    s.on('error', () => undefined);
    const closed = new Promise<number>((r) => s.on('close', () => r((closedAt = Date.now() - t0))));
    s.once('connect', () => resolve({ s, got: () => text, closedAfter: () => closedAt, closed }));
    s.once('error', reject);
  });
}

/** Resolves with the value, or with `fallback` after ms. */
const within = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> => Promise.race([p, new Promise<T>((r) => setTimeout(() => r(fallback), ms))]);

describe('a body over the limit', () => {
  it('is refused at once from its Content-Length with 413 and a sentence, before any of it is sent', async () => {
    const { ui, cookie } = await serve();
    const c = await socket(ui.port);
    const t0 = Date.now();
    c.s.write(
      `POST /api/call/upload.stage HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\nCookie: ${cookie}\r\nx-docsync: 1\r\n` +
        'Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n',
    );
    // No body follows: today's server would wait for it (and read 270 MB of it before resetting).
    const closed = await within(c.closed, 2000, null);
    expect(closed, 'the server closes the connection after answering').not.toBeNull();
    expect(Date.now() - t0).toBeLessThan(2000);
    const [head, body] = c.got().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toMatch(/\r\nconnection: close/i);
    expect(decodeWire(body as string)).toEqual({ ok: false, error: expect.stringMatching(/^That is more than \d+ MB in one piece.*put large files into a hot folder instead\.$/) });
  });

  it('a chunked body gets 413 as soon as it goes over, not a reset with no answer', async () => {
    const { ui, cookie } = await serve();
    const chunk = Buffer.alloc(4 * 1024 * 1024, 0x61);
    const answer = await new Promise<{ status: number; text: string; sentMb: number }>((resolve, reject) => {
      let sent = 0;
      const req = request({ host: '127.0.0.1', port: ui.port, method: 'POST', path: '/api/call/upload.stage', headers: { cookie, 'x-docsync': '1', 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, sentMb: sent / 1048576 }));
      });
      req.on('error', reject);
      let answered = false;
      req.on('response', () => (answered = true));
      const pump = (): void => {
        // Up to 400 MB, well over the limit (~267 MB); stops once the answer is in.
        while (!answered && sent < 400 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    expect(answer.status).toBe(413);
    expect(decodeWire(answer.text)).toMatchObject({ ok: false, error: expect.stringContaining('put large files into a hot folder instead') });
    expect(answer.sentMb).toBeLessThan(400);
  });
});

describe('timeouts and the connection cap', () => {
  it('closes a connection whose request headers never end, after the headers timeout', async () => {
    const { ui } = await serve({ headersMs: 400 });
    const c = await socket(ui.port);
    c.s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\n`);
    const closed = await within(c.closed, 3000, null);
    expect(closed, 'closed within 3 s').not.toBeNull();
    expect(closed).toBeGreaterThanOrEqual(350);
  });

  it('closes a connection that sends nothing at all, after the headers timeout', async () => {
    const { ui } = await serve({ headersMs: 400 });
    const c = await socket(ui.port);
    const closed = await within(c.closed, 3000, null);
    expect(closed, 'closed within 3 s').not.toBeNull();
    expect(closed).toBeGreaterThanOrEqual(350);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { ui } = await serve({ keepAliveMs: 300 });
    const c = await socket(ui.port);
    c.s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\nConnection: keep-alive\r\n\r\n`);
    const closed = await within(c.closed, 3000, null);
    expect(c.got()).toMatch(/^HTTP\/1\.1 401 /);
    expect(closed, 'closed within 3 s of the answer').not.toBeNull();
  });

  it('closes connections over the cap at once, and takes new ones when one ends', async () => {
    const { ui } = await serve({ maxConnections: 3 });
    const held = [await socket(ui.port), await socket(ui.port), await socket(ui.port)];
    // Partial requests: the server has accepted each one once it answers nothing yet holds it.
    for (const h of held) h.s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\n`);
    await new Promise((r) => setTimeout(r, 200));
    const over = await socket(ui.port);
    over.s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\n\r\n`);
    expect(await within(over.closed, 1500, null), 'the fourth connection is closed').not.toBeNull();
    expect(over.got()).toBe('');
    expect(held.map((h) => h.closedAfter())).toEqual([null, null, null]);
    held[0]?.s.destroy();
    await held[0]?.closed;
    await new Promise((r) => setTimeout(r, 100));
    const next = await socket(ui.port);
    next.s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\nConnection: close\r\n\r\n`);
    await within(next.closed, 1500, null);
    expect(next.got()).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('the event stream outlives the header, request and keep-alive timeouts', async () => {
    const { ui, cookie } = await serve({ headersMs: 300, requestMs: 500, keepAliveMs: 300 });
    let text = '';
    const req = request({ host: '127.0.0.1', port: ui.port, path: '/api/events', headers: { cookie } }, (res) => res.on('data', (c: Buffer) => (text += c.toString())));
    let closed = false;
    req.on('close', () => (closed = true));
    req.on('error', () => undefined);
    req.end();
    await new Promise((r) => setTimeout(r, 2000));
    expect(closed).toBe(false);
    env.core.events.emit('notice', { level: 'info', msg: 'still here', atMs: Date.now() });
    await new Promise((r) => setTimeout(r, 100));
    expect(text).toMatch(/event: notice\ndata: .*still here/);
    req.destroy();
  });
});
