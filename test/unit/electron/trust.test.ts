// The shell's trust decisions (electron/main/trust.ts): which frames may call the engine over IPC,
// where the window may navigate, which links may go to the OS browser, which files may be opened,
// which web permissions exist.
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isOwnPage, isPermissionAllowed, isSafeToOpen, isTrustedSender, mayNavigate, redactUrl, vetExternalUrl } from '../../../electron/main/trust.js';

// The page is served from the app's own scheme (electron/main/app-protocol.ts: APP_INDEX_URL), never file://.
const indexUrl = 'app://docsync/index.html';
const built = { indexUrl };
const dev = { indexUrl, devUrl: 'http://localhost:5173' };
const builtFile = pathToFileURL('/opt/DocSync/resources/app/out/renderer/index.html').href;

describe('isTrustedSender', () => {
  it('accepts the built renderer in the top frame, with any route or query', () => {
    expect(isTrustedSender(indexUrl, true, built)).toBe(true);
    expect(isTrustedSender(`${indexUrl}#/results`, true, built)).toBe(true);
    expect(isTrustedSender(`${indexUrl}?x=1`, true, built)).toBe(true);
  });

  it.each([
    ['an iframe of our page', indexUrl, false, built],
    ['the built index.html over file:// (the app loads it no more)', builtFile, true, built],
    ['another file of ours', 'app://docsync/assets/other.html', true, built],
    ['our scheme on another host', 'app://evil/index.html', true, built],
    ['our host with a port', 'app://docsync:1/index.html', true, built],
    ['our page with credentials', 'app://me@docsync/index.html', true, built],
    ['a downloaded file', pathToFileURL('/home/me/Downloads/index.html').href, true, built],
    ['a web page', 'https://example.com/', true, built],
    ['a web page named like our host', 'https://docsync/index.html', true, built],
    ['a dev-server page without dev mode', 'http://localhost:5173/', true, built],
    ['another port in dev mode', 'http://localhost:5174/', true, dev],
    ['no URL (frame gone)', null, true, built],
    ['garbage', 'not a url', true, built],
    ['about:blank', 'about:blank', true, built],
  ])('refuses %s', (_what, url, top, origin) => {
    expect(isTrustedSender(url, top, origin)).toBe(false);
  });

  it('accepts dev-server pages only while developing', () => {
    expect(isTrustedSender('http://localhost:5173/', true, dev)).toBe(true);
    expect(isTrustedSender('http://localhost:5173/src/App.svelte', true, dev)).toBe(true);
    expect(isTrustedSender(indexUrl, true, dev)).toBe(true);
    expect(isTrustedSender('http://localhost:5173/', true, { indexUrl, devUrl: 'javascript:alert(1)' })).toBe(false);
  });

  it('trusts no file:// page even if the origin were still given as one', () => {
    expect(isOwnPage(builtFile, { indexUrl: builtFile })).toBe(false);
  });
});

describe('mayNavigate (will-navigate)', () => {
  it('lets the window go to its own page only', () => {
    expect(mayNavigate(`${indexUrl}#/activity`, built)).toBe(true);
    expect(mayNavigate('app://docsync/assets/../index.html', built)).toBe(true);
    for (const url of [builtFile, 'app://docsync/assets/app.js', 'app://evil/index.html', 'https://example.com/', 'http://localhost:5173/', 'about:blank', 'javascript:alert(1)']) {
      expect(mayNavigate(url, built), url).toBe(false);
    }
    expect(mayNavigate('http://localhost:5173/', dev)).toBe(true);
  });
});

describe('vetExternalUrl', () => {
  it('passes plain https links, normalised', () => {
    expect(vetExternalUrl('https://docs.example.com/help?topic=hot-folders#top')).toEqual({ ok: true, url: 'https://docs.example.com/help?topic=hot-folders#top' });
    expect(vetExternalUrl('HTTPS://Example.COM')).toEqual({ ok: true, url: 'https://example.com/' });
    expect(vetExternalUrl('https://bücher.example/')).toEqual({ ok: true, url: 'https://xn--bcher-kva.example/' });
  });

  it.each([
    ['http', 'http://example.com/', /https only/],
    ['file', 'file:///etc/passwd', /https only/],
    ['javascript', 'javascript:alert(1)', /https only/],
    ['a program-launching scheme', 'ms-msdt:/id PCWDiagnostic', /https only/],
    ['smb share', 'smb://server/share', /https only/],
    ['user and password', 'https://user:secret@example.com/', /credentials/],
    ['user only', 'https://token@example.com/', /credentials/],
    ['not a URL', 'example.com', /not a URL/],
    ['too long', `https://example.com/${'a'.repeat(3000)}`, /longer than/],
  ])('refuses %s', (_what, url, reason) => {
    const v = vetExternalUrl(url);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(reason);
  });
});

describe('redactUrl', () => {
  it('drops query and fragment, which may carry tokens', () => {
    expect(redactUrl('https://x.example/cb?token=abc#k=1')).toBe('https://x.example/cb (query and fragment removed)');
    expect(redactUrl('https://x.example/a')).toBe('https://x.example/a');
    expect(redactUrl('nope')).toBe('(not a URL)');
  });
});

describe('isSafeToOpen', () => {
  it('opens documents and data files', () => {
    for (const p of ['/in/invoice.pdf', 'C:\\scans\\A.PDF', '/out/x.tiff', '/out/results.csv', '/mail/a.eml']) expect(isSafeToOpen(p)).toBe(true);
  });

  it('never opens what the OS would run', () => {
    for (const p of ['/in/setup.exe', '/in/a.pdf.exe', 'C:\\x\\run.bat', '/in/x.sh', '/in/x.desktop', '/in/x.lnk', '/in/x.js', '/in/x.jar', '/in/noext', '/in/.pdf/x']) {
      expect(isSafeToOpen(p)).toBe(false);
    }
  });
});

describe('isPermissionAllowed', () => {
  it('allows copying to the clipboard and nothing else', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write')).toBe(true);
    for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fileSystem', 'hid', 'usb', 'serial']) expect(isPermissionAllowed(p)).toBe(false);
  });
});
