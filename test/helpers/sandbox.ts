import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../sandbox/index.js';

/** Test defaults: a small part size and short delays so whole flows finish in seconds. */
export const FAST: Partial<SandboxOptions> = { partSize: 64 * 1024, pageDelayMs: 20, jobDelayMs: 30, partOrderGraceMs: 300 };

export async function sandbox(opts: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  return startSandbox({ ...FAST, ...opts });
}

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * A deliberately plain HTTP caller (Node's fetch) for sandbox tests: the sandbox is tested
 * from the wire, independently of DocSync's own client.
 */
export function caller(base: string, token: string | null = 'admin-token', extraHeaders: Record<string, string> = {}) {
  return async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const h: Record<string, string> = { ...extraHeaders, ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    let payload: RequestInit['body'];
    if (body instanceof Uint8Array || typeof body === 'string') {
      payload = body as Uint8Array | string;
      h['Content-Type'] ??= 'application/octet-stream';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      h['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(base + path, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
}

/** The job id in a 202's Location (`/v2/jobs/<id>`): file and folder DELETE answer with no body. */
export function locationJob(a: { headers: Headers }): string {
  const m = /\/jobs\/([^/?#]+)$/.exec(a.headers.get('location') ?? '');
  if (!m?.[1]) throw new Error(`no job in Location: ${a.headers.get('location')}`);
  return decodeURIComponent(m[1]);
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
