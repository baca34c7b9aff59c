import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxCore } from './core.js';
import { FaultInjector } from './faults.js';
import { HttpError } from './http/errors.js';
import { drain, sendJson } from './http/io.js';
import { Router, type RequestContext, type Route } from './http/router.js';
import { JobRunner } from './jobs.js';
import { DEFAULT_OPTIONS, type SandboxOptions } from './options.js';
import { auditRoutes, recordAudit } from './routes/audit.js';
import { batchJobWork, batchRoutes } from './routes/batches.js';
import { filesJobWork, filesRoutes } from './routes/files.js';
import { jobRoutes } from './routes/jobs.js';
import { multipartRoutes } from './routes/multipart.js';
import { runJobWork, runRoutes } from './routes/runs.js';
import { sandboxRoutes } from './routes/sandbox-admin.js';
import { secretRoutes } from './routes/secrets.js';
import { RunExecutor } from './runs/executor.js';
import { serverTls } from './tls.js';
import type { SandboxUser } from './users.js';

export interface RunningSandbox {
  url: string;
  port: number;
  dataDir: string;
  /** With `tls: 'self'`: the CA file clients must trust. */
  caFile?: string;
  core: SandboxCore;
  faults: FaultInjector | null;
  close(): Promise<void>;
}

const ANONYMOUS: SandboxUser = { token: '', username: '', email: '', orgAdmin: false, auditLogs: false, serviceAccount: false, workspaces: [] };

function bearer(req: IncomingMessage): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m ? (m[1] as string) : null;
}

export async function startSandbox(given: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  const opts: SandboxOptions = { ...DEFAULT_OPTIONS, ...given };
  // One path segment (it is also a key of runtime_config, so never the name of another setting there).
  if (!/^[A-Za-z0-9._~-]+$/.test(opts.namespace) || ['.', '..', 'generate_post_process_pdf'].includes(opts.namespace)) {
    throw new Error(`sandbox: namespace "${opts.namespace}" must be a single path segment`);
  }
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'docsync-sandbox-'));
  mkdirSync(dataDir, { recursive: true });
  const core = new SandboxCore(opts, dataDir);
  const runs = new RunExecutor(core);
  core.jobs = new JobRunner(core.db, opts.jobDelayMs, { ...batchJobWork(core), ...filesJobWork(core), ...runJobWork(core) });
  const faults = opts.faults ? new FaultInjector(opts.faults) : null;

  const router = new Router();
  const routes: Route[] = [
    ...batchRoutes(core),
    ...multipartRoutes(core),
    ...jobRoutes(core),
    ...runRoutes(core, runs),
    ...secretRoutes(core),
    ...filesRoutes(core),
    ...auditRoutes(core),
    ...sandboxRoutes(core, runs, faults),
  ];
  router.add(routes);
  const contextHeader = opts.contextHeader.toLowerCase();
  let closed = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Route on the raw path: URL parsing would resolve "." and ".." segments before the
    // path checks could refuse them.
    const rawPath = (req.url ?? '/').split('?')[0] as string;
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const pathname = rawPath.startsWith('/') ? rawPath : `/${rawPath}`;
    const method = req.method ?? 'GET';
    const isSandboxCall = pathname === '/sandbox' || pathname.startsWith('/sandbox/');
    let user: SandboxUser | null = null;
    let logType: Route['logType'] = 'api_v2';
    res.once('close', () => {
      if (closed || (isSandboxCall && logType !== 'review_v2')) return;
      recordAudit(core, {
        ts_ms: Date.now(), email: user?.email ?? '', user_ip: req.socket.remoteAddress ?? '',
        log_type: logType, method, path: pathname, status: res.headersSent ? res.statusCode : 0,
      });
    });

    if (faults && !isSandboxCall) {
      if (faults.spec.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.spec.latencyMs));
      const f = faults.decide();
      if (f.kind === '5xx') {
        drain(req);
        return sendJson(res, f.status, { message: `injected fault: ${f.status === 500 ? 'internal error' : 'service unavailable'}, try again later` });
      }
      if (f.kind === '429') {
        drain(req);
        return sendJson(res, 429, { message: 'injected fault: too many requests' }, { 'Retry-After': f.retryAfter });
      }
      if (f.kind === 'reset' && f.when === 'before-body') {
        req.socket.destroy();
        return;
      }
      if (f.kind === 'reset') {
        // The call takes effect, but its answer never arrives: the ambiguous failure clients must survive.
        const socket: Socket = req.socket;
        res.writeHead = (() => {
          socket.destroy();
          return res;
        }) as typeof res.writeHead;
      }
    }

    const match = router.match(method, pathname);
    if (!match) throw new HttpError(404, `no such endpoint: ${method} ${pathname}`);
    if (!('route' in match)) throw new HttpError(405, `${method} is not allowed on ${pathname}; allowed: ${match.methods.join(', ')}`, { Allow: match.methods.join(', ') });
    const { route, params } = match;
    logType = route.logType;
    if (route.auth !== 'none') {
      const token = bearer(req);
      user = token ? (core.userByToken(token) ?? null) : null;
      if (!user) {
        logType = 'login_v2';
        throw new HttpError(401, token ? 'the bearer token is not valid' : 'missing "Authorization: Bearer <token>" header', { 'WWW-Authenticate': 'Bearer' });
      }
      const ctx = req.headers[contextHeader];
      if (route.auth === 'v2' && ctx !== undefined && ctx !== core.users.org) {
        throw new HttpError(401, `context "${String(ctx)}" is not valid for this token (its organization is "${core.users.org}")`);
      }
    }
    const rc: RequestContext = { req, res, params, query: url.searchParams, user: user ?? ANONYMOUS };
    await route.handler(rc);
  }

  const tls = opts.tls ? serverTls(opts.tls, dataDir) : null;
  const serverOptions = { keepAliveTimeout: 65_000, requestTimeout: 0 };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      drain(req);
      if (err instanceof HttpError) return sendJson(res, err.status, { message: err.message }, err.headers);
      console.error('sandbox: internal error:', err);
      sendJson(res, 500, { message: `internal error: ${(err as Error).message}` });
    });
  };
  const server: Server = tls ? createHttpsServer({ ...serverOptions, cert: tls.cert, key: tls.key }, onRequest) : createServer(serverOptions, onRequest);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  core.jobs.resumeUnfinished();
  runs.resumeRunning();

  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    dataDir,
    ...(tls?.caFile ? { caFile: tls.caFile } : {}),
    core,
    faults,
    async close() {
      closed = true;
      runs.close();
      core.jobs.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
      // A temporary folder is ours to remove; a --data folder is the user's state.
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
