import { link, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';
import type { SandboxCore } from '../core.js';
import { parseServicePath, type ServicePath } from '../drive.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import { drain, sendEmpty, sendJson, streamBodyToFile } from '../http/io.js';
import type { Route } from '../http/router.js';
import { oneOf } from '../http/validate.js';
import { fileNode, tmpFile } from './batches.js';

export const RETRY_CONFIG_HEADER = 'svc-retry-config';

interface RetryConfig {
  retries: number;
  backoffS: number;
}

/** `Svc-Retry-Config: {"retries": 3, "backoff-seconds": 5}`: constant backoff while nothing is at the path. */
function retryConfig(req: IncomingMessage): RetryConfig {
  const raw = req.headers[RETRY_CONFIG_HEADER];
  if (raw === undefined) return { retries: 0, backoffS: 0 };
  let v: unknown;
  try {
    v = JSON.parse(String(raw));
  } catch {
    throw badRequest('Svc-Retry-Config must be JSON such as {"retries": 3, "backoff-seconds": 5}');
  }
  const o = v as Record<string, unknown> | null;
  const retries = o?.retries;
  const backoff = o?.['backoff-seconds'];
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0 || retries > 20) {
    throw badRequest('Svc-Retry-Config "retries" must be an integer from 0 to 20');
  }
  if (typeof backoff !== 'number' || !(backoff >= 0) || backoff > 60) {
    throw badRequest('Svc-Retry-Config "backoff-seconds" must be a number from 0 to 60');
  }
  return { retries, backoffS: backoff };
}

async function statWithRetry(path: string, cfg: RetryConfig, signal: AbortSignal): Promise<Stats | null> {
  for (let attempt = 0; ; attempt++) {
    const st = await stat(path).catch(() => null);
    if (st || attempt >= cfg.retries || signal.aborted) return st;
    await new Promise((r) => setTimeout(r, cfg.backoffS * 1000));
  }
}

type Range = { start: number; end: number } | null;

/** A single byte range (spec 4.8): `bytes=a-b`, `bytes=a-` or `bytes=-n`. */
export function parseRange(header: string | undefined, size: number): Range {
  if (header === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (header.includes(',')) throw badRequest('Range: only a single byte range is supported');
  if (!m || (m[1] === '' && m[2] === '')) throw badRequest(`Range header "${header}" is not a byte range such as bytes=0-1023`);
  const unsatisfiable = new HttpError(416, `range ${header} is outside the file's ${size} bytes`, { 'Content-Range': `bytes */${size}` });
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) throw unsatisfiable;
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) throw badRequest(`Range header "${header}": the end is before the start`);
  if (start >= size) throw unsatisfiable;
  return { start, end };
}

/** The file at `path` open for reading, or null when it was deleted since it was seen. */
async function openFile(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function abortOnClose(req: IncomingMessage): AbortSignal {
  const ctl = new AbortController();
  req.once('close', () => ctl.abort());
  return ctl.signal;
}

export function filesRoutes(core: SandboxCore): Route[] {
  const target = (raw: string, user: Parameters<typeof core.drives.checkAccess>[1], write: boolean): { p: ServicePath; disk: string } => {
    const p = parseServicePath(raw);
    core.drives.checkAccess(p, user, core.workspaces, write);
    return { p, disk: core.drives.diskPath(p) };
  };

  return [
    {
      method: 'GET', pattern: '/v2/files/*path', logType: 'datasource_v2', auth: 'v2',
      async handler({ req, res, params, query, user }) {
        const kind = query.get('expect-node-type');
        if (!kind) throw badRequest('query "expect-node-type" is required: file or folder');
        oneOf(kind, ['file', 'folder'] as const, 'query "expect-node-type"');
        const { p, disk } = target(params.path as string, user, false);
        const st = await statWithRetry(disk, retryConfig(req), abortOnClose(req));
        if (!st) throw notFound(`nothing exists at ${p.text}`);
        if (st.isDirectory() !== (kind === 'folder')) throw badRequest(`${p.text} is a ${st.isDirectory() ? 'folder' : 'file'}, not a ${kind}`);
        if (st.isDirectory()) {
          const names = (await readdir(disk)).sort();
          const nodes = [];
          for (const name of names) {
            const cst = await stat(join(disk, name)).catch(() => null);
            if (cst) nodes.push(fileNode(`${p.text}/${name}`, name, cst, core.drives.get(p.drive)?.kind !== 'document'));
          }
          sendJson(res, 200, { nodes });
          return;
        }
        // The length and the bytes from one open file: a PUT that renames a new version over this
        // path between a stat and an open would send one version's length with the other's bytes
        // (a short body leaves the client waiting; a long one spills into the next response).
        const fh = await openFile(disk);
        if (!fh) throw notFound(`nothing exists at ${p.text}`);
        try {
          const fst = await fh.stat();
          const range = parseRange(req.headers.range, fst.size);
          const headers = {
            'Content-Type': 'application/octet-stream',
            'Last-Modified': fst.mtime.toUTCString(),
            'Accept-Ranges': 'bytes',
          };
          if (range) {
            res.writeHead(206, { ...headers, 'Content-Length': range.end - range.start + 1, 'Content-Range': `bytes ${range.start}-${range.end}/${fst.size}` });
          } else {
            res.writeHead(200, { ...headers, 'Content-Length': fst.size });
          }
          await pipeline(fh.createReadStream({ ...(range ?? {}), autoClose: false }), res).catch(() => res.destroy());
        } finally {
          await fh.close();
        }
      },
    },
    {
      method: 'HEAD', pattern: '/v2/files/*path', logType: 'datasource_v2', auth: 'v2',
      async handler({ req, res, params, user }) {
        const { p, disk } = target(params.path as string, user, false);
        const st = await statWithRetry(disk, retryConfig(req), abortOnClose(req));
        if (!st) throw notFound(`nothing exists at ${p.text}`);
        if (st.isDirectory()) res.writeHead(200, { 'Content-Type': 'application/json' });
        else res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': st.size, 'Last-Modified': st.mtime.toUTCString() });
        res.end();
      },
    },
    {
      method: 'PUT', pattern: '/v2/files/*path', logType: 'datasource_v2', auth: 'v2',
      async handler({ req, res, params, user }) {
        const { p, disk } = target(params.path as string, user, true);
        if (p.rest.length === 0) throw badRequest(`${p.text} is a drive; give a file path inside it`);
        const conditional = req.headers['if-none-match'] !== undefined;
        if (req.headers['content-length'] === '0') throw badRequest('the file is empty: PUT needs a non-empty body');
        const existing = await stat(disk).catch(() => null);
        if (existing?.isDirectory()) throw badRequest(`${p.text} is a folder`);
        if (existing && conditional) throw new HttpError(412, `a file already exists at ${p.text}`);
        const tmp = tmpFile(core);
        const size = await streamBodyToFile(req, tmp);
        if (size === 0) {
          await rm(tmp, { force: true });
          throw badRequest('the file is empty: PUT needs a non-empty body');
        }
        try {
          await mkdir(dirname(disk), { recursive: true });
        } catch {
          await rm(tmp, { force: true });
          throw badRequest(`a parent of ${p.text} is a file, not a folder`);
        }
        if (conditional) {
          // link() fails if the name exists: the existence check and the create are one step.
          try {
            await link(tmp, disk);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new HttpError(412, `a file already exists at ${p.text}`);
            throw err;
          } finally {
            await rm(tmp, { force: true });
          }
          // Spec 4.8: 201 only when the request carried `If-None-Match: *`; any other value still
          // refuses an existing file (412) but a new file is an ordinary 204.
          if (String(req.headers['if-none-match']).trim() !== '*') return sendEmpty(res, 204);
          sendEmpty(res, 201, { Location: `/v2/files/${p.text.split('/').map(encodeURIComponent).join('/')}` });
          return;
        }
        await rename(tmp, disk);
        sendEmpty(res, 204);
      },
    },
    {
      method: 'DELETE', pattern: '/v2/files/*path', logType: 'datasource_v2', auth: 'v2',
      handler({ req, res, params, user }) {
        drain(req);
        const { p } = target(params.path as string, user, true);
        if (p.rest.length === 0) throw badRequest(`${p.text} is a drive; a drive's root cannot be deleted`);
        const jobId = core.jobs.create('delete-path', { path: p.text });
        // As the service: 202, the deletion job in Location, and no body.
        sendEmpty(res, 202, { Location: `/v2/jobs/${jobId}` });
      },
    },
  ];
}

export function filesJobWork(core: SandboxCore) {
  return {
    async 'delete-path'(t: Record<string, unknown>): Promise<string> {
      const disk = core.drives.diskPathOf(t.path as string);
      const st = await stat(disk).catch(() => null);
      if (!st) return `nothing existed at ${String(t.path)}`;
      await rm(disk, { recursive: true, force: true });
      return `${String(t.path)} was deleted`;
    },
  };
}
