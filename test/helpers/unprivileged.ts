// File permissions in tests. Root reads any file whatever its mode, so a test of an unreadable file or
// folder runs the engine (the compiled one, engine-child.mjs) in a child process as an unprivileged
// user when the tests run as root; otherwise as the current user, for whom the modes already count.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chown } from 'node:fs/promises';
import path from 'node:path';
import { OUT, ROOT } from './build-cli.js';

const NOBODY = 65534;
const CHILD = path.join(ROOT, 'test/helpers/engine-child.mjs');

/** The uid/gid to run the engine as: nobody under root, else none (the current user). */
export const runAs: { uid: number; gid: number } | undefined = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : undefined;

/** Why such a test cannot run here (nobody cannot load the compiled engine), or null. Needs out/cli built. */
export function cannotRunUnprivileged(): string | null {
  if (!runAs) return null;
  const probe = spawnSync(process.execPath, ['-e', `import(${JSON.stringify(path.join(OUT, 'electron/engine/engine.js'))})`], { ...runAs, encoding: 'utf8' });
  return probe.status === 0 ? null : `user ${NOBODY} cannot load the compiled engine here: ${(probe.stderr || probe.error?.message || '').trim().split('\n')[0]}`;
}

/** Hands a path the engine writes (its data home) to the user it runs as. */
export async function giveToEngine(p: string): Promise<void> {
  if (runAs) await chown(p, runAs.uid, runAs.gid);
}

export interface EngineProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts engine-child.mjs (as `runAs`) with a data home, the service and one hot folder; resolves once it is watching. */
export function startEngineProcess(cfg: { home: string; url: string; folder: Record<string, unknown> }): Promise<EngineProcess> {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'pipe'], ...runAs });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`engine process not ready after 20 s; stderr:\n${stderr}`)), 20_000);
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
