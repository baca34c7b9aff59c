/**
 * A sandbox that only a real proxy can reach (issue 27, section 2): a network namespace of its own
 * holds the sandbox (on the namespace's own loopback) and Debian's squid; a veth pair joins the
 * namespace to the test's, where only squid's ports are reachable. The service's name
 * (sandbox.docsync.test) is known to squid alone (its hosts_file), and the sandbox's port exists
 * only inside the namespace: a direct connection from the test fails, so a request that succeeds
 * went through squid.
 *
 * Squid listens on three ports: open, Basic authentication (basic_ncsa_auth against an htpasswd
 * file written here), and one that refuses every tunnel (403). Needs root, `ip` and squid (CI
 * installs them, .ci/run); `proxyNetUnavailable` says why not otherwise.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chownSync, constants, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { MAIN, buildCliIfNeeded } from './build-cli.js';

const run = promisify(execFile);
const SQUID = '/usr/sbin/squid';
// Debian's path for the helper (package squid); other systems put it under /usr/lib64/squid or /usr/libexec.
const NCSA = '/usr/lib/squid/basic_ncsa_auth';
export const SERVICE_HOST = 'sandbox.docsync.test';

/** Why this machine cannot run the proxy tests, or null when it can. */
export function proxyNetUnavailable(): string | null {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'network namespaces need root (CI runs as root)';
  for (const [file, what] of [[SQUID, 'squid (apt-get install squid)'], [NCSA, "squid's basic_ncsa_auth"], ['/usr/sbin/ip', 'ip (iproute2)'], ['/usr/bin/openssl', 'openssl (for the htpasswd entry)']] as const) {
    try {
      accessSync(file, constants.X_OK);
    } catch {
      return `${what} is not installed`;
    }
  }
  return null;
}

export interface ProxyNet {
  /** Squid's address from the test's side, per port: open, Basic authentication, every tunnel refused. */
  open: string;
  auth: string;
  refusing: string;
  /** A user and password squid accepts on `auth`. */
  user: string;
  password: string;
  /** The sandbox as the service's URL: known only to squid. */
  serviceUrl: string;
  /** With `https`: a second sandbox over HTTPS (the certificate given, for SERVICE_HOST), also reachable only through squid. */
  httpsUrl: string | null;
  /** The sandbox's port, open only inside the namespace. */
  sandboxPort: number;
  /** An address in the namespace's subnet where nothing listens (an unreachable proxy). */
  deadProxy: string;
  /** Squid's access log so far (one line per request it handled). */
  accessLog(): Promise<string>;
  close(): Promise<void>;
}

function uidOf(name: string): number {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${name}:`));
  return line ? Number(line.split(':')[2]) : 0;
}

/** Resolves once `host:port` accepts a connection; rejects after `ms`. */
async function listening(host: string, port: number, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host, port }, () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`nothing listens on ${host}:${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const stop = async (child: ChildProcess | undefined): Promise<void> => {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(t);
};

/**
 * Sets up namespace, veth, sandbox and squid; everything made is undone by `close`, and on a failed
 * start. `https`: PEM files of a certificate for SERVICE_HOST, for a second sandbox over HTTPS.
 */
export async function startProxyNet(o: { https?: { cert: string; key: string } } = {}): Promise<ProxyNet> {
  await buildCliIfNeeded();
  // The whole pid (7 digits at most: interface names stay within Linux's 15 characters), so test files running side by side never share a name.
  const id = process.pid;
  const ns = `docsync-px-${id}`;
  const vethHost = `dspx${id}a`;
  const vethNs = `dspx${id}b`;
  // One /30 per test process, from its pid, in a range little used: 10.231.x.y.
  const block = (process.pid % 16_000) * 4;
  const base = `10.231.${Math.floor(block / 256) % 256}.`;
  const hostIp = `${base}${(block % 256) + 1}`;
  const nsIp = `${base}${(block % 256) + 2}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'docsync-proxy-'));
  const sandboxes: ChildProcess[] = [];
  let squid: ChildProcess | undefined;
  let netUp = false;

  const close = async (): Promise<void> => {
    await stop(squid);
    for (const sb of sandboxes) await stop(sb);
    if (netUp) {
      // Deleting the namespace removes its end of the veth, and with it the pair.
      await run('ip', ['netns', 'del', ns]).catch(() => undefined);
      await run('ip', ['link', 'del', vethHost]).catch(() => undefined);
    }
    await rm(dir, { recursive: true, force: true });
  };
  // A test runner killed mid-test still leaves no namespace behind.
  const onExit = (): void => {
    squid?.kill('SIGKILL');
    for (const sb of sandboxes) sb.kill('SIGKILL');
    if (netUp) spawn('ip', ['netns', 'del', ns], { stdio: 'ignore' });
  };
  process.once('exit', onExit);

  try {
    netUp = true;
    await run('ip', ['netns', 'add', ns]);
    await run('ip', ['link', 'add', vethHost, 'type', 'veth', 'peer', 'name', vethNs]);
    await run('ip', ['link', 'set', vethNs, 'netns', ns]);
    await run('ip', ['addr', 'add', `${hostIp}/30`, 'dev', vethHost]);
    await run('ip', ['link', 'set', vethHost, 'up']);
    await run('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `${nsIp}/30`, 'dev', vethNs]);
    await run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', vethNs, 'up']);
    await run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);

    // The sandbox, on the namespace's loopback; its port from its first line.
    const startSandbox = (extra: string[]): Promise<number> => {
      const sandbox = spawn('ip', ['netns', 'exec', ns, process.execPath, MAIN, 'sandbox', '--port', '0', '--page-delay-ms', '20', '--job-delay-ms', '30', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
      sandboxes.push(sandbox);
      let sandboxErr = '';
      sandbox.stderr?.on('data', (d: Buffer) => (sandboxErr += d.toString()));
      return new Promise<number>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`the sandbox did not start: ${sandboxErr}`)), 30_000);
        createInterface({ input: sandbox.stdout! }).on('line', (l) => {
          const m = /sandbox listening on https?:\/\/127\.0\.0\.1:(\d+)/.exec(l);
          if (m) (clearTimeout(t), resolve(Number(m[1])));
        });
        sandbox.once('exit', (code) => (clearTimeout(t), reject(new Error(`the sandbox exited (${code}): ${sandboxErr}`))));
      });
    };
    const sandboxPort = await startSandbox([]);
    const httpsPort = o.https ? await startSandbox(['--tls-cert', o.https.cert, '--tls-key', o.https.key]) : null;

    const user = 'docsync-user';
    const password = `pw-${process.pid}:with colon`;
    const { stdout: hash } = await run('openssl', ['passwd', '-apr1', password]);
    await writeFile(path.join(dir, 'htpasswd'), `${user}:${hash.trim()}\n`);
    await writeFile(path.join(dir, 'hosts'), `127.0.0.1 ${SERVICE_HOST}\n`);
    await writeFile(path.join(dir, 'squid.conf'), [
      `http_port ${nsIp}:3128 name=open`,
      `http_port ${nsIp}:3129 name=auth`,
      `http_port ${nsIp}:3130 name=refusing`,
      `pid_filename ${dir}/squid.pid`,
      `cache_log ${dir}/cache.log`,
      `access_log stdio:${dir}/access.log`,
      `coredump_dir ${dir}`,
      `hosts_file ${dir}/hosts`,
      'cache deny all',
      'shutdown_lifetime 1 seconds',
      'visible_hostname docsync-test-proxy',
      `auth_param basic program ${NCSA} ${dir}/htpasswd`,
      'auth_param basic children 2',
      'auth_param basic realm docsync-test',
      'acl open_port myportname open',
      'acl auth_port myportname auth',
      'acl refusing_port myportname refusing',
      'acl authed proxy_auth REQUIRED',
      // Tunnels to any port (a test-only rule: company proxies often allow 443 only).
      'http_access deny refusing_port',
      'http_access allow open_port',
      'http_access allow auth_port authed',
      'http_access deny all',
    ].join('\n'));
    // Squid drops to the "proxy" user: it must read and write here.
    const uid = uidOf('proxy');
    for (const f of ['', 'htpasswd', 'hosts', 'squid.conf']) chownSync(path.join(dir, f), uid, uid);
    await chmod(dir, 0o755);
    squid = spawn('ip', ['netns', 'exec', ns, SQUID, '-N', '-f', path.join(dir, 'squid.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let squidErr = '';
    squid.stderr?.on('data', (d: Buffer) => (squidErr += d.toString()));
    squid.stdout?.resume();
    await listening(nsIp, 3130, 15_000).catch(async (e: Error) => {
      const log = await readFile(path.join(dir, 'cache.log'), 'utf8').catch(() => '');
      throw new Error(`${e.message}; squid: ${squidErr}${log}`);
    });
    await listening(nsIp, 3128, 5_000);
    await listening(nsIp, 3129, 5_000);

    return {
      open: `http://${nsIp}:3128`,
      auth: `http://${nsIp}:3129`,
      refusing: `http://${nsIp}:3130`,
      user,
      password,
      serviceUrl: `http://${SERVICE_HOST}:${sandboxPort}`,
      httpsUrl: httpsPort === null ? null : `https://${SERVICE_HOST}:${httpsPort}`,
      sandboxPort,
      deadProxy: `http://${nsIp}:3999`,
      accessLog: () => readFile(path.join(dir, 'access.log'), 'utf8').catch(() => ''),
      async close() {
        process.off('exit', onExit);
        await close();
      },
    };
  } catch (e) {
    process.off('exit', onExit);
    await close();
    throw e;
  }
}
