/**
 * The renderer's Content Security Policy, sent as a response header on top of the <meta> tag in
 * renderer/index.html: by the app's own scheme (app-protocol.ts) and, while developing, on the dev
 * server's pages. No eval, no inline scripts, nothing remote; pdf.js runs its worker from the
 * app's files or a blob: URL.
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Svelte sets style attributes (widths of progress bars, virtual list offsets).
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Response headers with our CSP replacing any the response had (header names are case-insensitive). */
export function withCsp(headers: Record<string, string | string[]> | undefined, csp = CSP): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (k.toLowerCase() !== 'content-security-policy') out[k] = Array.isArray(v) ? v : [v];
  }
  out['Content-Security-Policy'] = [csp];
  return out;
}
