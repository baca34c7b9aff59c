/**
 * The built renderer is served from the app's own scheme (app://docsync/...) instead of file://,
 * as Electron's security checklist recommends: the page gets a real origin of its own (no access
 * to other local files the way file:// pages have), the CSP comes as a response header, and only
 * files inside the built renderer folder are served. The pure parts are unit tested.
 */
import { protocol } from 'electron';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { rendererFileType } from '../../shared/ui/static-types.js';
import { CSP } from './csp.js';

export const APP_SCHEME = 'app';
export const APP_HOST = 'docsync';
/** What the window loads; also the one page trusted over IPC (trust.ts). */
export const APP_INDEX_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * standard: relative URLs resolve and the page has an origin for 'self'; secure: treated like
 * https; supportFetchAPI: pdf.js fetches its own files. No bypassCSP, no service workers, no CORS.
 */
export const APP_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true } as const;

/**
 * The file a URL of ours names inside `rendererDir`, or null: another scheme or host, a path that
 * leaves the folder (`..`, encoded or not), a NUL, a backslash or a colon (Windows separators,
 * drive letters and alternate streams), or the folder itself.
 */
export function rendererFile(url: string, rendererDir: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST || u.username || u.password) return null;
  let path: string;
  try {
    path = decodeURIComponent(u.pathname);
  } catch {
    return null;
  }
  if (/[\0\\:]/.test(path)) return null;
  const root = resolve(rendererDir);
  const file = resolve(root, `.${path === '/' ? '/index.html' : path}`);
  const rel = relative(root, file);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return file;
}

/** Headers of a served file: its type (never sniffed) and the CSP as a header, not only a <meta> tag. */
export function rendererHeaders(file: string, csp = CSP): Record<string, string> {
  return {
    'content-type': rendererFileType(file),
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}

/** What the scheme answers for a request; `read` is the file system (a test passes its own). */
export async function rendererResponse(method: string, url: string, rendererDir: string, read: (file: string) => Promise<Uint8Array> = readFile): Promise<Response> {
  const refuse = (status: number, text: string): Response =>
    new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' } });
  if (method !== 'GET' && method !== 'HEAD') return refuse(405, 'DocSync\'s page only reads its own files.');
  const file = rendererFile(url, rendererDir);
  // A folder, a missing file or one outside: all the same to the page.
  const bytes = file ? await read(file).catch(() => null) : null;
  if (!file || !bytes) return refuse(404, 'not found');
  return new Response(method === 'HEAD' ? null : new Uint8Array(bytes), { status: 200, headers: rendererHeaders(file) });
}

/** Before the app is ready (Electron allows it only then, and only once). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_PRIVILEGES }]);
}

/** After the app is ready, before the window loads. */
export function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, (req) => rendererResponse(req.method, req.url, rendererDir));
}
