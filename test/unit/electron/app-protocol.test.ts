// The desktop app's own scheme (electron/main/app-protocol.ts): which URLs name a file inside the
// built renderer folder, the headers a file is served with (its type, the CSP), and the answers the
// scheme gives, read from a real folder on disk. Electron cannot run on these machines, so the
// 'electron' module is replaced by a recorder: what is checked is what the shell asks of Electron
// (the scheme's privileges, the handler) and what the handler answers, not Electron itself.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ privileged: [] as unknown[], handlers: new Map<string, (req: Request) => Promise<Response>>() }));
vi.mock('electron', () => ({
  protocol: {
    registerSchemesAsPrivileged: (schemes: unknown[]) => calls.privileged.push(...schemes),
    handle: (scheme: string, fn: (req: Request) => Promise<Response>) => calls.handlers.set(scheme, fn),
  },
}));

const { APP_INDEX_URL, registerAppScheme, rendererFile, rendererHeaders, rendererResponse, serveRenderer } = await import('../../../electron/main/app-protocol.js');
const { CSP } = await import('../../../electron/main/csp.js');

const DIR = '/opt/DocSync/resources/app/out/renderer';

describe('rendererFile', () => {
  it('maps our URLs to files inside the renderer folder', () => {
    expect(rendererFile(APP_INDEX_URL, DIR)).toBe(`${DIR}/index.html`);
    expect(rendererFile('app://docsync/', DIR)).toBe(`${DIR}/index.html`);
    expect(rendererFile('app://docsync/index.html#/results?x=1', DIR)).toBe(`${DIR}/index.html`);
    expect(rendererFile('app://docsync/assets/pdf.worker-1a2b.mjs', DIR)).toBe(`${DIR}/assets/pdf.worker-1a2b.mjs`);
    expect(rendererFile('app://docsync/assets/a%20b.js', DIR)).toBe(`${DIR}/assets/a b.js`);
    // The URL parser resolves dot segments (encoded ones too) at the root of the URL: they stay inside.
    expect(rendererFile('app://docsync/assets/../index.html', DIR)).toBe(`${DIR}/index.html`);
    expect(rendererFile('app://docsync/../../etc/passwd', DIR)).toBe(`${DIR}/etc/passwd`);
    expect(rendererFile('app://docsync/%2e%2e/%2e%2e/etc/passwd', DIR)).toBe(`${DIR}/etc/passwd`);
  });

  it.each([
    ['a parent folder behind an encoded slash', 'app://docsync/..%2f..%2fetc%2fpasswd'],
    ['a parent folder behind an encoded slash, deeper', 'app://docsync/assets/..%2f..%2f..%2fsecret'],
    ['a sibling folder with the same prefix', 'app://docsync/..%2frenderer-evil/index.html'],
    ['a backslash (a separator on Windows)', 'app://docsync/..%5c..%5csecret'],
    ['a NUL', 'app://docsync/index.html%00.png'],
    ['a colon (drive letter, alternate stream)', 'app://docsync/C:/Windows/win.ini'],
    ['a malformed escape', 'app://docsync/%E0%A4%A'],
    ['another host', 'app://evil/index.html'],
    ['a port', 'app://docsync:8080/index.html'],
    ['credentials', 'app://me:pw@docsync/index.html'],
    ['file://', `file://${DIR}/index.html`],
    ['https', 'https://docsync/index.html'],
    ['not a URL', 'index.html'],
  ])('refuses %s', (_what, url) => {
    expect(rendererFile(url, DIR)).toBeNull();
  });
});

describe('rendererHeaders', () => {
  it('sends the CSP as a header, the type by extension, and nosniff', () => {
    expect(rendererHeaders(`${DIR}/index.html`)).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
    expect(rendererHeaders('x/app.js')['content-type']).toBe('text/javascript; charset=utf-8');
    expect(rendererHeaders('x/pdf.worker.MJS')['content-type']).toBe('text/javascript; charset=utf-8');
    expect(rendererHeaders('x/app.css')['content-type']).toBe('text/css; charset=utf-8');
    expect(rendererHeaders('x/font.woff2')['content-type']).toBe('font/woff2');
    expect(rendererHeaders('x/unknown.exe')['content-type']).toBe('application/octet-stream');
    expect(rendererHeaders('x/noext')['content-type']).toBe('application/octet-stream');
  });
});

describe('the scheme, on a real folder', () => {
  let root: string;
  let dir: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'docsync-app-scheme-'));
    dir = join(root, 'renderer');
    await mkdir(join(dir, 'assets'), { recursive: true });
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>DocSync</title>');
    await writeFile(join(dir, 'assets', 'app.js'), 'console.log(1)');
    await writeFile(join(root, 'secret.txt'), 'outside');
    await mkdir(join(root, 'renderer-evil'));
    await writeFile(join(root, 'renderer-evil', 'index.html'), 'outside');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('serves the page and its files with their headers', async () => {
    const page = await rendererResponse('GET', APP_INDEX_URL, dir);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>DocSync</title>');
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const js = await rendererResponse('GET', 'app://docsync/assets/app.js', dir);
    expect([js.status, js.headers.get('content-type'), await js.text()]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log(1)']);
    const head = await rendererResponse('HEAD', APP_INDEX_URL, dir);
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('answers 404 for files outside the folder (that exist), folders and missing files; 405 for writes', async () => {
    for (const url of ['app://docsync/..%2fsecret.txt', 'app://docsync/..%2frenderer-evil/index.html', 'app://docsync/assets', 'app://docsync/nope.js', 'app://other/index.html']) {
      const res = await rendererResponse('GET', url, dir);
      expect(res.status, url).toBe(404);
      expect(await res.text()).not.toContain('outside');
    }
    expect((await rendererResponse('POST', APP_INDEX_URL, dir)).status).toBe(405);
  });

  it('registers the scheme as standard and secure, without bypassing the CSP, and handles it with the above', async () => {
    registerAppScheme();
    expect(calls.privileged).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
    serveRenderer(dir);
    const handler = calls.handlers.get('app');
    expect(handler).toBeDefined();
    const res = await handler!(new Request('app://docsync/assets/app.js'));
    expect([res.status, await res.text()]).toEqual([200, 'console.log(1)']);
    expect((await handler!(new Request('app://docsync/..%2fsecret.txt'))).status).toBe(404);
  });
});
