// The shell's trust decisions (electron/main/trust.ts): which frames may call the engine over IPC,
// which links may go to the OS browser, which files may be opened, which web permissions exist.
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isPermissionAllowed, isSafeToOpen, isTrustedSender, redactUrl, vetExternalUrl } from '../../../electron/main/trust.js';

const indexUrl = pathToFileURL('/opt/DocSync/resources/app/out/renderer/index.html').href;
const built = { indexUrl };
const dev = { indexUrl, devUrl: 'http://localhost:5173' };

describe('isTrustedSender', () => {
  it('accepts the built renderer in the top frame, with any route or query', () => {
    expect(isTrustedSender(indexUrl, true, built)).toBe(true);
    expect(isTrustedSender(`${indexUrl}#/results`, true, built)).toBe(true);
    expect(isTrustedSender(`${indexUrl}?x=1`, true, built)).toBe(true);
  });

  it.each([
    ['an iframe of our page', indexUrl, false, built],
    ['another file next to ours', pathToFileURL('/opt/DocSync/resources/app/out/renderer/other.html').href, true, built],
    ['a downloaded file', pathToFileURL('/home/me/Downloads/index.html').href, true, built],
    ['a web page', 'https://example.com/', true, built],
    ['a dev-server page without dev mode', 'http://localhost:5173/', true, built],
    ['another port in dev mode', 'http://localhost:5174/', true, dev],
    ['a file URL with a host', 'file://evil/opt/DocSync/resources/app/out/renderer/index.html', true, built],
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
