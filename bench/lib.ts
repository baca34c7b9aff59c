// Shared pieces of the benchmarks: a sandbox in its own process (so the client's memory is
// measured alone), curl baselines, and plain timing. Loopback only, bounded in size and time.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../electron/cli/main.js', import.meta.url));

export interface BenchSandbox {
  url: string;
  dataDir: string;
  /** The sandbox process's CPU time so far (user + system, ms); NaN where /proc is missing. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

/** `dataRoot`: where the sandbox keeps its data (a temporary folder under it); default the OS temp folder. */
export async function startSandboxProcess(extra: string[] = [], dataRoot = tmpdir()): Promise<BenchSandbox> {
  const dataDir = await mkdtemp(join(dataRoot, 'docsync-bench-'));
  const child: ChildProcess = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--data', dataDir, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  const m = /^sandbox listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
  if (!m) throw new Error(`unexpected first line: ${first}`);
  child.stdout!.resume();
  return {
    url: m[1] as string,
    dataDir,
    cpuMs: () => processCpuMs(child.pid),
    async stop() {
      child.kill('SIGTERM');
      await new Promise<void>((r) => child.once('exit', () => r()));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU time from /proc/<pid>/stat (Linux; clock ticks of 10 ms), in ms: the process's own or its waited-for children's. */
async function procCpuMs(pid: number | 'self' | undefined, which: 'own' | 'children'): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3: utime is 14, stime 15, cutime 16, cstime 17.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const at = which === 'own' ? 11 : 13;
    return (Number(f[at]) + Number(f[at + 1])) * 10;
  } catch {
    return NaN;
  }
}
const processCpuMs = (pid: number | undefined): Promise<number> => procCpuMs(pid, 'own');
/** CPU used by this process's finished children (curl, sync), in ms; NaN where /proc is missing. */
export const childrenCpuMs = (): Promise<number> => procCpuMs('self', 'children');

/** Writes `size` random bytes in 8 MiB chunks (never the whole file in memory). */
export async function randomFile(path: string, size: number): Promise<void> {
  const out = createWriteStream(path);
  const chunk = 8 * 1024 * 1024;
  for (let left = size; left > 0; left -= chunk) {
    if (!out.write(randomBytes(Math.min(chunk, left)))) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

export function run(cmd: string, args: string[], input?: string, env?: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], ...(env ? { env } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    // A child that never reads its input (sync, curl) may exit first: EPIPE there is no failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

export async function createBatch(url: string, name: string): Promise<number> {
  const res = await fetch(`${url}/v2/batches`, { method: 'POST', headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/json' }, body: JSON.stringify({ name }) });
  if (res.status !== 200) throw new Error(`create batch: ${res.status}`);
  return ((await res.json()) as { id: number }).id;
}

export const mbps = (bytes: number, ms: number): number => bytes / 1e6 / (ms / 1000);
export const TOKEN = 'admin-token';
