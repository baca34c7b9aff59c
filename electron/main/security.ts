/**
 * App-wide guards, installed before any window exists: CSP header, no permissions, no
 * navigation (but to the app's own page), no new windows or webviews; https links go to the OS
 * browser after vetting.
 */
import { app, session, shell, type WebContents } from 'electron';
import { withCsp } from './csp.js';
import { log, oneLine } from './log.js';
import { isPermissionAllowed, mayNavigate, redactUrl, vetExternalUrl, type RendererOrigin } from './trust.js';
import { asUserChose } from '../engine/config/private-files.js';

/** Opens an https link in the user's browser; anything else is refused. Every attempt is logged. */
export function openExternalVetted(url: string): boolean {
  const v = vetExternalUrl(url);
  if (!v.ok) {
    log('warn', `refused to open ${redactUrl(url)}: ${v.reason}`);
    return false;
  }
  log('info', `opening ${redactUrl(v.url)} in the browser`);
  shell.openExternal(v.url).catch((err: unknown) => log('warn', `could not open ${redactUrl(v.url)}: ${oneLine(err)}`));
  return true;
}

function guardContents(contents: WebContents, origin: RendererOrigin): void {
  contents.on('will-attach-webview', (e) => {
    e.preventDefault();
    log('warn', 'refused a <webview>');
  });
  contents.on('will-navigate', (e, url) => {
    if (mayNavigate(url, origin)) return;
    e.preventDefault();
    log('warn', `refused navigation to ${redactUrl(url)}`);
  });
  contents.on('will-redirect', (e, url) => {
    e.preventDefault();
    log('warn', `refused redirect to ${redactUrl(url)}`);
  });
  contents.setWindowOpenHandler(({ url }) => {
    // A link with target=_blank: https goes to the browser, never a new app window.
    openExternalVetted(url);
    return { action: 'deny' };
  });
}

/** `origin`: the app's own page (app://docsync/index.html, or the dev server), the one place a window may navigate to. */
export function installSecurity(origin: RendererOrigin): void {
  app.on('web-contents-created', (_e, contents) => guardContents(contents, origin));
}

/** Session guards; needs the app to be ready. */
export function installSessionGuards(): void {
  const s = session.defaultSession;
  s.setPermissionRequestHandler((_wc, permission, callback) => {
    const ok = isPermissionAllowed(permission);
    if (!ok) log('info', `denied permission "${permission}"`);
    callback(ok);
  });
  s.setPermissionCheckHandler((_wc, permission) => isPermissionAllowed(permission));
  s.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCsp(details.responseHeaders) });
  });
  // An export is saved where the user chose: with the user's own modes, not the app's private umask (issue 26).
  s.on('will-download', (_e, item) => {
    item.once('done', (_d, state) => {
      if (state === 'completed') asUserChose(item.getSavePath(), 'file').catch((err: Error) => log('warn', `could not set the saved file's permissions: ${err.message}`));
    });
  });
}
