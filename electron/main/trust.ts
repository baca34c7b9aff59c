/**
 * The shell's two trust decisions, pure so they are unit tested: which pages may talk to the
 * engine over IPC, and which links may leave the app for the OS browser.
 */

export interface RendererOrigin {
  /** URL of the built renderer's index.html on the app's own scheme (app-protocol.ts: app://docsync/index.html). */
  indexUrl: string;
  /** The electron-vite dev server (ELECTRON_RENDERER_URL), only while developing. */
  devUrl?: string | undefined;
}

/**
 * True for the app's own page: the built index.html at its URL on the app's scheme (any #/route or
 * ?query), or a page of the dev server while developing. Not a file:// page (the app no longer loads
 * one, so none is ours), not another file of the app, not a look-alike host or port.
 */
export function isOwnPage(pageUrl: string | null | undefined, origin: RendererOrigin): boolean {
  if (!pageUrl) return false;
  let u: URL;
  try {
    u = new URL(pageUrl);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  try {
    const own = new URL(origin.indexUrl);
    // Compared part by part: Node gives a custom scheme no origin ("null").
    if (own.protocol !== 'file:' && u.protocol === own.protocol && u.host === own.host && u.pathname === own.pathname) return true;
  } catch {
    return false;
  }
  if (!origin.devUrl) return false;
  try {
    const dev = new URL(origin.devUrl);
    return (dev.protocol === 'http:' || dev.protocol === 'https:') && u.origin === dev.origin;
  } catch {
    return false;
  }
}

/** True when an IPC message comes from the app's own page in a top frame (never an iframe). */
export function isTrustedSender(frameUrl: string | null | undefined, isTopFrame: boolean, origin: RendererOrigin): boolean {
  return isTopFrame && isOwnPage(frameUrl, origin);
}

/** Where the window may navigate: to its own page only (a reload of a route); anything else is refused. */
export const mayNavigate = (url: string, origin: RendererOrigin): boolean => isOwnPage(url, origin);

export type Vetted = { ok: true; url: string } | { ok: false; reason: string };

const MAX_URL = 2048;

/**
 * Whether a link may be handed to shell.openExternal: https only (no file:, javascript:, custom
 * schemes that launch programs), no user name or password in it, a real host name.
 */
export function vetExternalUrl(raw: string): Vetted {
  if (raw.length > MAX_URL) return { ok: false, reason: `longer than ${MAX_URL} characters` };
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (u.protocol !== 'https:') return { ok: false, reason: `scheme ${u.protocol} is not allowed (https only)` };
  if (u.username || u.password) return { ok: false, reason: 'carries credentials' };
  if (!u.hostname || !/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i.test(u.hostname) || u.hostname.startsWith('.') || u.hostname.endsWith('..')) {
    return { ok: false, reason: `host "${u.hostname}" is not a plain host name` };
  }
  return { ok: true, url: u.href };
}

/** A URL as it may appear in a log: no query or fragment (they can hold tokens). */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}${u.search || u.hash ? ' (query and fragment removed)' : ''}`;
  } catch {
    return '(not a URL)';
  }
}

/** Web permissions the renderer may have: copying to the clipboard; no camera, location, notifications, ... */
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);
export const isPermissionAllowed = (permission: string): boolean => ALLOWED_PERMISSIONS.has(permission);

/**
 * Files the app may open with the OS default program: documents and data, never something the
 * OS would run (a hot folder can hold anything; an .exe or a script is revealed instead).
 */
const OPENABLE = new Set(['pdf', 'png', 'jpg', 'jpeg', 'tif', 'tiff', 'gif', 'bmp', 'webp', 'heic', 'csv', 'json', 'txt', 'xml', 'doc', 'docx', 'xls', 'xlsx', 'odt', 'ods', 'rtf', 'eml', 'msg']);
export function isSafeToOpen(path: string): boolean {
  const m = /\.([a-z0-9]{1,8})$/i.exec(path);
  return m !== null && OPENABLE.has((m[1] as string).toLowerCase());
}
