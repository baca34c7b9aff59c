// A real engine in its own process (engine-child.mjs, the compiled engine): for the crash test, which
// kills it, and for tests that run it as another user (unprivileged.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './build-cli.js';

const CHILD = path.join(ROOT, 'test/helpers/engine-child.mjs');

export interface EngineProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts engine-child.mjs (as user `o.as`, default the current one) with a data home, the service and
 * one hot folder; resolves once it is watching. A child not ready within 20 s is killed.
 */
export function startEngineProcess(
  cfg: { home: string; url: string; folder: Record<string, unknown> },
  o: { as?: { uid: number; gid: number } | undefined; onStderr?: (text: string) => void } = {},
): Promise<EngineProcess> {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'pipe'], ...o.as });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-20_000);
    o.onStderr?.(d.toString());
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`engine process not ready after 20 s; stderr:\n${stderr}`));
    }, 20_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('ready\n')) return;
      clearTimeout(timer);
      resolve({ child, stop });
    });
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`engine process exited (${code ?? sig}) before it was ready; stderr:\n${stderr}`));
    });
  });
}
