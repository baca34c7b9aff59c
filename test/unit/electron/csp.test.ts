// The renderer's Content Security Policy (electron/main/csp.ts) and the <meta> policy in
// renderer/index.html: no eval, no inline scripts, nothing remote; pdf.js may start its worker.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CSP, withCsp } from '../../../electron/main/csp.js';

const directives = (csp: string): Map<string, string[]> =>
  new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name as string, values]));

describe('CSP header', () => {
  const d = directives(CSP);

  it('allows scripts only from the app itself', () => {
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('default-src')).toEqual(["'self'"]);
    expect(CSP).not.toMatch(/unsafe-eval|wasm-unsafe-eval|https?:|\*/);
  });

  it("lets pdf.js run its worker from the app's files or a blob", () => {
    expect(d.get('worker-src')).toEqual(["'self'", 'blob:']);
  });

  it('shuts plugins, frames, forms and <base> out', () => {
    for (const k of ['object-src', 'base-uri', 'form-action', 'frame-src', 'frame-ancestors']) expect(d.get(k)).toEqual(["'none'"]);
  });

  it('replaces any policy a response brings, whatever its header case', () => {
    const h = withCsp({ 'content-type': 'text/html', 'content-security-policy': ["default-src *"], 'Content-Security-Policy': 'x', etag: ['"1"'] });
    expect(h).toEqual({ 'content-type': ['text/html'], etag: ['"1"'], 'Content-Security-Policy': [CSP] });
    expect(withCsp(undefined)).toEqual({ 'Content-Security-Policy': [CSP] });
  });
});

describe('renderer/index.html <meta> policy (a second copy, kept in the page)', () => {
  const html = readFileSync(join(import.meta.dirname, '../../../renderer/index.html'), 'utf8');
  const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html)?.[1];

  it('exists and is at least as strict about scripts', () => {
    expect(meta).toBeDefined();
    const d = directives(meta!);
    expect(d.get('script-src') ?? d.get('default-src')).toEqual(["'self'"]);
    expect(meta).not.toMatch(/unsafe-eval|https?:|\*/);
  });

  it('agrees with the header on every directive it sets (both apply on the dev server, so a difference blocks something)', () => {
    const header = directives(CSP);
    for (const [name, values] of directives(meta!)) expect([name, header.get(name)]).toEqual([name, values]);
  });
});
