// The headless transport (electron/cli/ui-server.ts): 127.0.0.1 only, the per-start secret becomes
// an HttpOnly SameSite=Strict cookie, API calls need the x-docsync header, a local Host and our own
// Origin; static files cannot escape the renderer folder; events arrive over SSE; bytes survive;
// channels that take local paths (upload.paths, folders.pick) are the desktop app's only; the event
// stream checks Origin too. Limits (413, timeouts, connection cap): ui-server-limits.test.ts.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../../electron/cli/ui-server.js';
import { decodeWire, encodeWire } from '../../../shared/ui/wire.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';

let env: CoreEnv;
let ui: UiServer;
let dir: string;
let cookie: string;

/** Raw HTTP, so Host and Origin can be set freely (fetch forbids both). */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: ui.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const api = (channel: string, args: unknown, headers: Record<string, string> = {}) =>
  raw('POST', `/api/call/${channel}`, { cookie, 'x-docsync': '1', 'content-type': 'application/json', ...headers }, encodeWire(args));

beforeAll(async () => {
  env = await coreEnv();
  dir = await mkdtemp(join(tmpdir(), 'docsync-ui-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>DocSync</title>');
  await writeFile(join(dir, 'assets', 'app.js'), 'console.log(1)');
  await writeFile(join(tmpdir(), 'docsync-ui-outside.txt'), 'outside');
  ui = await startUiServer(env.core, { port: 0, rendererDir: dir });
});
afterAll(async () => {
  await ui?.close();
  await env?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('signing the browser in', () => {
  it('prints an address on 127.0.0.1 with the secret; without the cookie nothing is served', async () => {
    expect(ui.openUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?k=[A-Za-z0-9_-]{32}$/);
    expect((await raw('GET', '/')).status).toBe(401);
    expect((await raw('GET', '/assets/app.js')).status).toBe(401);
    expect((await raw('POST', '/api/call/app.info', { 'x-docsync': '1' }, '{}')).status).toBe(401);
    expect((await raw('GET', '/api/events')).status).toBe(401);
    expect((await raw('GET', '/?k=wrong-secret')).status).toBe(403);
  });

  it('the secret becomes an HttpOnly SameSite=Strict cookie and leaves the URL bar', async () => {
    const res = await raw('GET', new URL(ui.openUrl).pathname + new URL(ui.openUrl).search);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    const set = String(res.headers['set-cookie']);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    cookie = set.split(';')[0] as string;
    const page = await raw('GET', '/', { cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>DocSync</title>');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'; script-src 'self'/);
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-eval/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect((await raw('GET', '/assets/app.js', { cookie })).headers['content-type']).toMatch(/text\/javascript/);
  });
});

describe('guards', () => {
  it('refuses a foreign Host (DNS rebinding), a missing x-docsync header, a foreign Origin, and GET on the API', async () => {
    expect((await raw('GET', '/', { cookie, host: `evil.example:${ui.port}` })).status).toBe(421);
    expect((await raw('POST', '/api/call/app.info', { cookie }, '{}')).status).toBe(403);
    expect((await api('app.info', {}, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await api('app.info', {}, { origin: `http://127.0.0.1:${ui.port}` })).status).toBe(200);
    expect((await raw('GET', '/api/call/app.info', { cookie, 'x-docsync': '1' })).status).toBe(405);
  });

  it('static files cannot escape the renderer folder', async () => {
    for (const p of ['/../docsync-ui-outside.txt', '/%2e%2e/docsync-ui-outside.txt', '/assets/../../docsync-ui-outside.txt', '/nope.js']) {
      const res = await raw('GET', p, { cookie });
      expect(res.status, p).toBe(404);
      expect(res.text).not.toContain('outside');
    }
  });
});

describe('the contract over HTTP', () => {
  it('answers requests; a bad argument or unknown channel is a one-line error, not a crash', async () => {
    const info = decodeWire((await api('app.info', {})).text) as { ok: boolean; result: { host: string } };
    expect(info).toMatchObject({ ok: true, result: { host: 'headless' } });
    expect(decodeWire((await api('files.page', { offset: -1, limit: 1 })).text)).toEqual({ ok: false, error: expect.stringMatching(/^files\.page\.offset must be/) });
    expect(decodeWire((await api('no.such', {})).text)).toEqual({ ok: false, error: 'unknown request "no.such"' });
    // An error the UI acts on carries its code (shared/ui/errors.ts): no session yet, so pausing needs a sign-in.
    expect(decodeWire((await api('engine.pause', {})).text)).toEqual({ ok: false, error: 'sign in (or try the sandbox) first: pausing needs the service', code: 'sign-in-needed' });
    expect(decodeWire((await raw('POST', '/api/call/app.info', { cookie, 'x-docsync': '1' }, '{not json')).text)).toMatchObject({ ok: false });
  });

  it('bytes travel both ways (a staged drop)', async () => {
    await env.call('connection.trySandbox', {});
    const bytes = Uint8Array.from({ length: 3000 }, (_, i) => i & 255);
    const res = decodeWire((await api('upload.stage', { dropId: 'abcdef012345', relPath: 'x/y.bin', bytes })).text);
    expect(res).toEqual({ ok: true, result: { staged: 3000 } });
  });

  it('refuses the desktop-only channels: a path outside every hot folder is neither uploaded nor served back', async () => {
    // Signed in, so that nothing but the transport stands between the call and an upload.
    if (!(await env.call('app.info', {})).account) await env.call('connection.trySandbox', {});
    const before = (await env.call('files.page', { offset: 0, limit: 1 })).total;
    const outside = join(tmpdir(), 'docsync-ui-outside.txt');
    const res = await api('upload.paths', { paths: [outside], target: { type: 'deployment', id: 'sandbox-invoices' } });
    expect(res.status).toBe(403);
    expect(decodeWire(res.text)).toEqual({ ok: false, error: expect.stringMatching(/^"upload\.paths" works only in the desktop app/) });
    const pick = await api('folders.pick', {});
    expect(pick.status).toBe(403);
    expect(decodeWire(pick.text)).toMatchObject({ ok: false, error: expect.stringContaining('only in the desktop app') });
    expect((await env.call('files.page', { offset: 0, limit: 1 })).total).toBe(before);
    // The same channel through the handler table (what Electron's IPC serves) still works.
    expect(await env.call('folders.pick', {})).toEqual({ path: null });
  });

  it('the event stream refuses a foreign Origin and serves our own', async () => {
    // Resolves on the answer's head: a stream that was opened would never end.
    const open = (origin: string) =>
      new Promise<{ status: number; type: string | undefined }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: ui.port, path: '/api/events', headers: { cookie, origin } }, (res) => {
          resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] });
          req.destroy();
        });
        req.on('error', reject);
        req.end();
      });
    // Another port of 127.0.0.1 is the same site: the SameSite cookie alone would let it listen.
    expect(await open('http://127.0.0.1:1')).toEqual({ status: 403, type: expect.not.stringMatching(/event-stream/) });
    expect(await open('http://evil.example')).toMatchObject({ status: 403 });
    expect(await open(`http://localhost:${ui.port}`)).toEqual({ status: 200, type: expect.stringMatching(/text\/event-stream/) });
  });

  it('pushes events over server-sent events', async () => {
    const got: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: ui.port, path: '/api/events', headers: { cookie } }, (res) => {
        expect(res.headers['content-type']).toMatch(/text\/event-stream/);
        res.on('data', (c: Buffer) => {
          got.push(c.toString());
          if (got.join('').includes('event: status')) {
            req.destroy();
            resolve();
          }
        });
      });
      req.on('error', (e) => (got.join('').includes('event: status') ? resolve() : reject(e)));
      req.end();
    });
    await new Promise((r) => setTimeout(r, 100));
    await api('engine.pause', {});
    await done;
    const text = got.join('');
    const data = /event: status\ndata: (.*)\n/.exec(text)?.[1];
    expect(decodeWire(data as string)).toMatchObject({ paused: true });
    await api('engine.resume', {});
  });
});
