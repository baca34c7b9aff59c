// Several real `docsync serve` agents on one shared folder, and a sandbox in its own process, for
// the three-agent test (test/integration/cli/three-agents.test.ts) and `npm run bench:agents`.
// Plain Node (no vitest): the benchmark runs it compiled. Loopback only.
//
// Calls are attributed to agents through the sandbox's audit log: each agent has its own token of
// ONE account (same username, so the same batches, runs and workspaces), and a token's email is
// what the audit log records: `agent-<name>@sandbox.test`.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const CHECKER_TOKEN = 'admin-token';
export const agentToken = (name: string): string => `agent-${name}-token`;
export const agentEmail = (name: string): string => `agent-${name}@sandbox.test`;

/** The sandbox's users: the checker (admin, with audit-log access) and one token per agent, all user "admin". */
export function usersFile(agents: string[]): string {
  const admin = { username: 'admin', orgAdmin: true, serviceAccount: false, workspaces: ['team'] };
  return JSON.stringify({
    org: 'sandbox-org',
    users: [
      { ...admin, token: CHECKER_TOKEN, email: 'admin@sandbox.test', auditLogs: true },
      ...agents.map((a) => ({ ...admin, token: agentToken(a), email: agentEmail(a), auditLogs: false })),
    ],
  });
}

export interface SandboxProcess {
  url: string;
  stop(): Promise<void>;
}

/** `docsync sandbox` in its own process with `extra` flags; the users of usersFile(agents). */
export async function startSandboxProcess(cli: string, root: string, agents: string[], extra: string[]): Promise<SandboxProcess> {
  await mkdir(root, { recursive: true });
  const users = join(root, 'users.json');
  await writeFile(users, usersFile(agents));
  const child = spawn(process.execPath, [cli, 'sandbox', '--port', '0', '--data', join(root, 'sandbox'), '--users', users, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-5000)));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  const m = /^sandbox listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
  if (!m) throw new Error(`sandbox: unexpected first line "${first}"`);
  child.stdout.resume();
  return {
    url: m[1] as string,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** One agent: its own data home; its stdout lines kept with the time each arrived (ms since the epoch). */
export class Agent {
  readonly home: string;
  readonly env: Record<string, string>;
  child: ChildProcessWithoutNullStreams | null = null;
  readonly lines: { at: number; text: string }[] = [];
  stderr = '';
  /** All of serve's stderr (the share trace, with DOCSYNC_SHARE_TRACE=1, can be long). */
  readonly stderrAll: Buffer[] = [];
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly cli: string,
    root: string,
    url: string,
  ) {
    this.home = join(root, `agent-${name}`);
    // No D-Bus session: the token comes from the environment, no keychain is touched.
    this.env = { PATH: process.env.PATH ?? '', HOME: join(this.home, 'user'), DOCSYNC_HOME: join(this.home, 'data'), LANG: 'C.UTF-8', DOCSYNC_URL: url, DOCSYNC_TOKEN: agentToken(name) };
    // The share protocol's opt-in trace (share/trace.ts) goes through to the agents.
    if (process.env.DOCSYNC_SHARE_TRACE) this.env.DOCSYNC_SHARE_TRACE = process.env.DOCSYNC_SHARE_TRACE;
  }

  /** Runs a one-shot command with this agent's data home. */
  run(args: string[]): Promise<Exit> {
    const child = spawn(process.execPath, [this.cli, ...args], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  }

  async json<T>(args: string[]): Promise<T> {
    const r = await this.run([...args, '--json']);
    if (r.code !== 0) throw new Error(`agent ${this.name}: docsync ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** `docsync serve --no-ui --agent-name NAME` (no name: `named` false); resolves once it prints "engine running". */
  async serve(o: { named?: boolean; timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = o.timeoutMs ?? 60_000;
    const child = spawn(process.execPath, [this.cli, 'serve', '--no-ui', ...(o.named === false ? [] : ['--agent-name', this.name])], { env: this.env });
    this.child = child;
    child.stderr.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-50_000);
      this.stderrAll.push(d);
    });
    this.exited = new Promise((r) => child.once('close', () => r()));
    const running = new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`agent ${this.name} not running after ${timeoutMs} ms: ${this.stderr}`)), timeoutMs);
      createInterface({ input: child.stdout }).on('line', (text) => {
        this.lines.push({ at: Date.now(), text });
        if (text === 'engine running') (clearTimeout(t), resolve());
      });
      child.once('exit', (code, sig) => (clearTimeout(t), reject(new Error(`agent ${this.name} exited (${code ?? sig}) before running: ${this.stderr}`))));
    });
    await running;
  }

  signal(sig: NodeJS.Signals): void {
    this.child?.kill(sig);
  }

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM (after SIGCONT, in case it is stopped) and wait; SIGKILL after 20 s. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const t = setTimeout(() => this.signal('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(t);
  }

  /** Waits until the process is gone (after a SIGKILL). */
  gone(): Promise<void> {
    return this.exited;
  }
}

/** Folder flags of a shared folder: lease and heartbeat in seconds, as `docsync folders add` takes them. */
export function shareFlags(o: { share: string; coordinationFolder: string; leaseS: number; heartbeatS: number }): string[] {
  return ['--share', o.share, '--coordination-folder', o.coordinationFolder, '--lease', String(o.leaseS), '--heartbeat', String(o.heartbeatS)];
}

/**
 * The service as the checker reads it (its own token, audit-log access), retrying what the
 * injected faults break: 5xx, 429 and reset connections. Reads only.
 */
export function serviceReader(url: string) {
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(url + path, {
          method,
          headers: { Authorization: `Bearer ${CHECKER_TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if ((res.status >= 500 || res.status === 429) && attempt < 30) {
          await new Promise((r) => setTimeout(r, res.status === 429 ? 1000 : 50));
          continue;
        }
        return { status: res.status, text };
      } catch (err) {
        if (attempt >= 30) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
  async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await call(method, path, body);
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return JSON.parse(r.text) as T;
  }
  const wire = (p: string): string => `/v2/files/${p.split('/').map(encodeURIComponent).join('/')}`;
  return {
    call,
    json,
    /** Names in a service folder; [] when it does not exist. */
    async list(folder: string): Promise<string[]> {
      const r = await call('GET', `${wire(folder)}?expect-node-type=folder`);
      if (r.status === 404) return [];
      if (r.status !== 200) throw new Error(`listing ${folder}: ${r.status} ${r.text}`);
      return (JSON.parse(r.text) as { nodes: { name: string }[] }).nodes.map((n) => n.name);
    },
    async bytes(file: string): Promise<Buffer | null> {
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`${url}${wire(file)}?expect-node-type=file`, { headers: { Authorization: `Bearer ${CHECKER_TOKEN}` } }).catch(() => null);
        if (res?.status === 404) return null;
        if (res?.status === 200) return Buffer.from(await res.arrayBuffer());
        if (attempt >= 30) throw new Error(`reading ${file}: ${res?.status ?? 'connection reset'}`);
        await new Promise((r) => setTimeout(r, res?.status === 429 ? 1000 : 50));
      }
    },
    async record<T>(file: string): Promise<T | null> {
      const b = await this.bytes(file);
      return b === null ? null : (JSON.parse(b.toString('utf8')) as T);
    },
    /** The whole audit log (oldest first), or only one email's entries. */
    async audit(email?: string): Promise<AuditEntry[]> {
      const out: AuditEntry[] = [];
      for (let start = 0; ; start += 1000) {
        const page = await json<{ data: { results: AuditEntry[] } }>('POST', '/v1/auditlogs', { start, size: 1000, ...(email ? { email } : {}) });
        out.push(...page.data.results);
        if (page.data.results.length < 1000) break;
      }
      return out.map((e) => ({ ...e, ts: Number(e.timestamp_millis) })).sort((a, b) => a.ts - b.ts);
    },
  };
}

export interface AuditEntry {
  timestamp_millis: string;
  ts: number;
  email: string;
  method: string;
  path: string;
  status: number;
}

/** What kind of service call an audit entry is, for calls per file; `C` is the share's coordination folder. */
export function callKind(e: { method: string; path: string }, C: string): string {
  const p = decodeURIComponent(e.path);
  const coord = `/v2/files/${C}/`;
  if (p.startsWith(coord)) {
    const rest = p.slice(coord.length);
    const read = e.method === 'GET' || e.method === 'HEAD';
    if (rest.startsWith('agents')) return read ? 'heartbeat reads' : 'heartbeats';
    if (rest.startsWith('claims/')) {
      if (read) return 'claim reads';
      return /\/progress\.json$/.test(rest) ? 'progress' : 'claims';
    }
    if (rest.startsWith('batches')) return read ? 'batch record reads' : 'batch records';
    return `other share ${e.method}`;
  }
  if (/^\/v2\/batches\/[^/]+\/files\/[^/]+$/.test(p) && e.method === 'PUT') return 'uploads';
  if (p.startsWith('/v2/batches/multipart-upload')) return 'uploads';
  if (/\/runs$/.test(p) && e.method === 'POST') return 'run starts';
  if (p.startsWith('/v2/apps/runs') || p.startsWith('/v2/jobs') || p.startsWith('/v2/batches/jobs')) return 'run follow-up';
  if (p.startsWith('/v2/batches')) return 'batches';
  return 'other';
}
