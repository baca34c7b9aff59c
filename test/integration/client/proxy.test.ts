/**
 * The client through a real proxy (issue 27, section 2): Debian's squid in a network namespace with
 * the sandbox, which the test can reach only through squid (test/helpers/proxy-net.ts). Every path
 * of the client goes through the proxy-aware agents: got (JSON calls), the raw upload (single and
 * multipart) and the pooled results GET. Failures at the proxy are named, never "cannot be reached".
 * Skipped, with the reason, where there is no root, squid or ip (CI has all three).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient, type ClientConfig } from '../../../electron/engine/service/index.js';
import { isServiceError, type ServiceError } from '../../../electron/engine/service/errors.js';
import { proxyFromEnvironment, splitProxyUrl } from '../../../electron/engine/service/proxy.js';
import { serviceProblem } from '../../../shared/ui/messages.js';
import { writeFileSync } from 'node:fs';
import { issue, makeCa } from '../../../sandbox/certificates.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { proxyNetUnavailable, startProxyNet, SERVICE_HOST, type ProxyNet } from '../../helpers/proxy-net.js';

const skip = proxyNetUnavailable();
if (skip) console.warn(`proxy tests skipped: ${skip}`);

let net: ProxyNet;
let dir: string;
const clients: ServiceClient[] = [];

const client = (extra: Partial<ClientConfig>): ServiceClient => {
  const c = new ServiceClient({
    baseUrl: net.serviceUrl, token: 'admin-token', username: 'admin',
    retry: { limit: 2, baseDelayMs: 5, maxDelayMs: 20 }, timeouts: { connectMs: 3000, responseMs: 15_000, idleMs: 15_000 },
    ...extra,
  });
  clients.push(c);
  return c;
};

/** Whether squid's access log gets a line matching `re` within 5 s (a tunnel is logged once it closes). */
async function logged(re: RegExp): Promise<boolean> {
  for (const end = Date.now() + 5000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if (re.test(await net.accessLog())) return true;
  }
  return false;
}

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (isServiceError(e)) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe.skipIf(skip !== null)('the client through squid', { timeout: 60_000 }, () => {
  // The test's company CA, and a certificate it issues for the service's name (served by a second sandbox).
  const ca = makeCa('DocSync Proxy Test CA');
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docsync-proxy-files-'));
    const served = issue(ca, { names: [SERVICE_HOST] });
    const https = { cert: join(dir, 'server.pem'), key: join(dir, 'server-key.pem') };
    writeFileSync(https.cert, served.cert);
    writeFileSync(https.key, served.key, { mode: 0o600 });
    net = await startProxyNet({ https });
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await net?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('cannot reach the sandbox directly: its name and its port exist only behind the proxy', async () => {
    const e = await failure(client({ proxy: null, retry: { limit: 0 } }).listBatches({ limit: 1 }));
    expect(e.kind).toMatch(/network|timeout/);
    const port = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: net.sandboxPort }, () => (s.destroy(), resolve('connected')));
      s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(port).toBe('ECONNREFUSED');
  });

  it('every path goes through the proxy: JSON calls, single and multipart uploads, results pages', async () => {
    const c = client({ proxy: splitProxyUrl(net.open) });
    const { id } = await c.createBatch({ name: 'through squid', workspace: 'team' });
    const inv = join(dir, 'inv.txt');
    await writeFile(inv, invoiceText({ invoiceNumber: 'INV-7', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$80.00', vendor: 'Acme' }));
    await c.putBatchFile(id, 'inv.txt', inv);
    // Larger than the sandbox's part size: a multipart upload in several parts.
    const big = join(dir, 'big.bin');
    await writeFile(big, randomBytes(25 * 1024 * 1024));
    const other = await c.createBatch({ name: 'large, through squid', workspace: 'team' });
    const multi = await c.uploadMultipart(other.id, 'big.bin', big);
    expect(multi.parts.length).toBeGreaterThan(1);
    const run = await c.startDeploymentRun('sandbox-invoices', { batch_id: id });
    const done = await c.waitForRun(run.id, { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 30_000 });
    expect(done.state).toBe('complete');
    const names: string[] = [];
    for await (const p of c.iterateResults(run.id)) names.push(...p.page.files.map((f) => String(f.original_file_name)));
    expect(names).toEqual(['inv.txt']);
    // Squid logs a tunnel when it closes: the client's connections first.
    c.close();
    expect(await logged(new RegExp(`CONNECT ${SERVICE_HOST}:${net.sandboxPort} - `))).toBe(true);
  });

  it('HTTP_PROXY from the environment, and NO_PROXY in curl\'s way', async () => {
    const env = { HTTP_PROXY: net.open, NO_PROXY: 'example.org' };
    await client({ proxy: proxyFromEnvironment(net.serviceUrl, env) }).listBatches({ limit: 1 });
    // ".docsync.test" covers the service's name: a direct connection, which fails here.
    const exempt = proxyFromEnvironment(net.serviceUrl, { ...env, no_proxy: '.docsync.test' });
    expect(exempt).toBeNull();
    expect((await failure(client({ proxy: exempt, retry: { limit: 0 } }).listBatches({ limit: 1 }))).kind).toMatch(/network|timeout/);
  });

  it('Basic authentication: the right credentials pass, and squid logs the user', async () => {
    const c = client({ proxy: { url: net.auth, credentials: { user: net.user, password: net.password } } });
    await c.listBatches({ limit: 1 });
    c.close();
    expect(await logged(new RegExp(`TCP_TUNNEL/200 \\d+ CONNECT ${SERVICE_HOST}:${net.sandboxPort} ${net.user} `))).toBe(true);
  });

  it('407: wrong credentials, or none, are named and not retried', async () => {
    const wrong = await failure(client({ proxy: { url: net.auth, credentials: { user: net.user, password: 'wrong' } } }).listBatches({ limit: 1 }));
    expect(wrong).toMatchObject({ kind: 'proxy', status: 407, attempts: 1, proxy: { problem: 'credentials', hadCredentials: true } });
    const words = serviceProblem(wrong);
    expect(words).toContain("the proxy refused DocSync's credentials");
    expect(words).not.toMatch(/cannot be reached/);
    expect(words).not.toContain('wrong'); // the password is in no message
    const none = await failure(client({ proxy: { url: net.auth } }).listBatches({ limit: 1 }));
    expect(serviceProblem(none)).toMatch(/asks for a user name and password, and DocSync has none/);
    // The raw upload path names it the same way.
    const f = join(dir, 'small.bin');
    await writeFile(f, randomBytes(1000));
    const up = await failure(client({ proxy: { url: net.auth, credentials: { user: net.user, password: 'wrong' } } }).putBatchFile(1, 'small.bin', f));
    expect(up).toMatchObject({ kind: 'proxy', proxy: { problem: 'credentials' } });
  });

  it('a proxy that refuses the tunnel, and one that cannot be reached, each say so', async () => {
    const host = new URL(net.refusing).host;
    const refused = await failure(client({ proxy: splitProxyUrl(net.refusing) }).listBatches({ limit: 1 }));
    expect(refused).toMatchObject({ kind: 'proxy', status: 403, attempts: 1, proxy: { problem: 'tunnel-refused', at: host } });
    expect(serviceProblem(refused)).toBe(`the proxy at ${host} does not let DocSync through to the service (it answered 403): ask whoever runs your network to allow the service's address`);

    const dead = new URL(net.deadProxy).host;
    const down = await failure(client({ proxy: splitProxyUrl(net.deadProxy) }).listBatches({ limit: 1 }));
    // Retried like any connection failure (nothing was sent), then named.
    expect(down).toMatchObject({ kind: 'proxy', code: 'ECONNREFUSED', attempts: 3, retryable: true, proxy: { problem: 'unreachable', at: dead } });
    expect(serviceProblem(down)).toMatch(new RegExp(`^DocSync cannot reach the proxy at ${dead.replace(/\./g, '\\.')}: nothing answers at that address`));

    // Squid answers a tunnel to a port where nothing listens with 503: the proxy cannot reach the service.
    const open = new URL(net.open).host;
    const upstream = await failure(client({ baseUrl: `http://${SERVICE_HOST}:1`, proxy: splitProxyUrl(net.open) }).listBatches({ limit: 1 }));
    expect(upstream).toMatchObject({ kind: 'proxy', status: 503, attempts: 3, proxy: { problem: 'upstream', at: open } });
    expect(serviceProblem(upstream)).toBe(`the proxy at ${open} cannot reach the service: check the service's address, or try again later`);
  });

  it("HTTPS through the tunnel: the service's certificate checked end to end against the test's CA, through an authenticating proxy", async () => {
    const proxy = { url: net.auth, credentials: { user: net.user, password: net.password } };
    const c = client({ baseUrl: net.httpsUrl as string, proxy, ca: ca.cert });
    const { id } = await c.createBatch({ name: 'https through squid', workspace: 'team' });
    const f = join(dir, 'tls.bin');
    await writeFile(f, randomBytes(100_000));
    expect(await c.putBatchFile(id, 'tls.bin', f)).toEqual({ size: 100_000 });
    // Without the CA the same tunnel carries a certificate this client refuses: a certificate problem, not the proxy's.
    const untrusted = await failure(client({ baseUrl: net.httpsUrl as string, proxy, retry: { limit: 0 } }).listBatches({ limit: 1 }));
    expect(untrusted.kind).toBe('certificate');
  });
});

