// File permissions in tests. Root reads any file whatever its mode, so a test of an unreadable file or
// folder runs the engine (engine-process.ts) as an unprivileged user when the tests run as root;
// otherwise as the current user, for whom the modes already count.
import { spawnSync } from 'node:child_process';
import { chown } from 'node:fs/promises';
import path from 'node:path';
import { OUT } from './build-cli.js';

const NOBODY = 65534;

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
