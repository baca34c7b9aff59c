/**
 * A scripted service on 127.0.0.1 that sends hostile strings (issue 26): it passes every call on to a
 * real sandbox, and gives the sandbox's run ids and post-processed PDF paths the names a test chooses
 * (`../../../x`, `svc-drive/c/..`), mapping them back on the calls that name them. Everything else is
 * the sandbox's own answer, so the engine runs its real flow against a service that lies in those names.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { filePath } from '../../electron/engine/service/files.js';

export interface HostileService {
  url: string;
  /** Real run id -> the name sent for it. */
  runIds: Map<string, string>;
  /** Real PDF path -> the path sent for it. */
  pdfPaths: Map<string, string>;
  close(): Promise<void>;
}

const REAL_RUN = /^run_[0-9a-f]{24}$/;
/** The path the client asks for a service path: as it goes on the wire, `..` segments resolved. */
const wirePath = (servicePath: string): string => new URL(filePath(servicePath), 'http://x').pathname;

/** `runIds` and `pdfPaths` are handed out in the order the sandbox's run ids and PDF paths are first seen. */
export async function hostileService(target: string, o: { runIds: readonly string[]; pdfPaths: readonly string[] }): Promise<HostileService> {
  const runIds = new Map<string, string>();
  const pdfPaths = new Map<string, string>();
  const realRun = new Map<string, string>();
  const realFile = new Map<string, string>();
  const alias = (real: string, map: Map<string, string>, names: readonly string[], back: (hostile: string) => void): string => {
    let name = map.get(real);
    if (name === undefined) {
      name = names[map.size];
      if (name === undefined) throw new Error(`the test gave too few hostile names for ${real}`);
      map.set(real, name);
      back(name);
    }
    return name;
  };
  const runAlias = (real: string) => alias(real, runIds, o.runIds, (h) => realRun.set(h, real));
  const pdfAlias = (real: string) => alias(real, pdfPaths, o.pdfPaths, (h) => realFile.set(wirePath(h), filePath(real)));

  const rewrite = (v: unknown, key = ''): unknown => {
    if (typeof v === 'string') {
      if (REAL_RUN.test(v)) return runAlias(v);
      if (key === 'post_processed_pdf_path' || key === 'post_processed_paths') return pdfAlias(v);
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => rewrite(x, key));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewrite(x, k)]));
    return v;
  };

  /** The sandbox's own URL for a call naming hostile strings. */
  const realUrl = (raw: string): string => {
    const u = new URL(raw, 'http://x');
    const run = /^\/v2\/apps\/runs\/([^/]+)(\/results)?$/.exec(u.pathname);
    const real = run ? realRun.get(decodeURIComponent(run[1] as string)) : undefined;
    if (run && real) u.pathname = `/v2/apps/runs/${encodeURIComponent(real)}${run[2] ?? ''}`;
    const file = realFile.get(u.pathname);
    if (file) u.pathname = file;
    for (const [k, v] of u.searchParams) {
      const r = realRun.get(v);
      if (r) u.searchParams.set(k, r);
    }
    return u.pathname + u.search;
  };

  const t = new URL(target);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers, host: t.host };
    delete headers['accept-encoding'];
    const up = request({ host: t.hostname, port: t.port, method: req.method, path: realUrl(req.url ?? '/'), headers }, (answer) => {
      const type = String(answer.headers['content-type'] ?? '');
      if (!type.includes('application/json')) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text === '' ? '' : JSON.stringify(rewrite(JSON.parse(text)));
        const out = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
        delete out['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, out).end(body);
      });
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    runIds,
    pdfPaths,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
