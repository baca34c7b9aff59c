// `npm run docsync` builds only what changed: on an unchanged checkout it builds nothing and runs the
// command at once; a changed UI source makes only the UI stale, and `serve` is the command that builds it.
import { execFile } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildIfNeeded, cliEnv, ROOT, type Cli } from './cli-env.js';

const run = promisify(execFile);
let cli: Cli;

beforeAll(async () => {
  await buildIfNeeded();
  cli = await cliEnv();
}, 180_000);
afterAll(() => cli?.close());

/** Which parts build-stale.mjs finds fresh right now. */
async function fresh(): Promise<{ cli: boolean; ui: boolean }> {
  const code = "const m = await import('./electron/cli/build-stale.mjs'); console.log(JSON.stringify({ cli: m.isFresh('cli'), ui: m.isFresh('ui') }))";
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT });
  return JSON.parse(stdout) as { cli: boolean; ui: boolean };
}

/**
 * The parts' input fingerprints. Compared rather than isFresh() while a source is touched: a test
 * file running beside this one may build in that moment and record the touched fingerprint.
 */
async function prints(): Promise<{ cli: string; ui: string }> {
  const code = "const m = await import('./electron/cli/build-stale.mjs'); console.log(JSON.stringify({ cli: m.fingerprint('cli'), ui: m.fingerprint('ui') }))";
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT });
  return JSON.parse(stdout) as { cli: string; ui: string };
}

/** Which parts a touch of `rel` makes stale: the parts whose fingerprint it changes. */
/**
 * Sets a file to its own mtime: a sub-millisecond mtime does not survive utimes exactly, and the
 * fingerprint counts whole milliseconds, so only a time set once through utimes puts back exactly.
 */
function settleMtime(rel: string): void {
  const file = path.join(ROOT, rel);
  const { atime, mtime } = statSync(file);
  utimesSync(file, atime, mtime);
}

async function staleAfterTouching(rel: string): Promise<{ cli: boolean; ui: boolean }> {
  settleMtime(rel);
  const before = await prints();
  const during = await withTouched(rel, prints);
  return { cli: during.cli === before.cli, ui: during.ui === before.ui };
}

/** Moves a source's mtime for the length of `fn`, then puts it back (its content never changes). */
async function withTouched<T>(rel: string, fn: () => Promise<T>): Promise<T> {
  const file = path.join(ROOT, rel);
  const { atime, mtime } = statSync(file);
  utimesSync(file, atime, new Date(mtime.getTime() + 60_000));
  try {
    return await fn();
  } finally {
    utimesSync(file, atime, mtime);
  }
}

describe('npm run docsync on a built checkout', () => {
  it('builds nothing and runs the command', async () => {
    expect(await fresh()).toEqual({ cli: true, ui: true });
    const { stdout, stderr } = await run(process.execPath, ['electron/cli/run-from-source.mjs', 'status'], { cwd: ROOT, env: cli.env });
    expect(stderr).toBe('');
    expect(stdout).toMatch(/hot folders: 0/);
  });

  it('a changed UI source makes only the UI stale; a changed command-line source only the command line', async () => {
    // Each value: does the part stay fresh?
    expect(await staleAfterTouching('renderer/src/App.svelte')).toEqual({ cli: true, ui: false });
    expect(await staleAfterTouching('electron/cli/output.ts')).toEqual({ cli: false, ui: true });
    // The engine is in both (the desktop app bundles it).
    expect(await staleAfterTouching('electron/engine/engine.ts')).toEqual({ cli: false, ui: false });
    // Shared code is in both; put back as it was, the fingerprints are as before.
    settleMtime('shared/file-states.ts');
    const before = await prints();
    expect(await staleAfterTouching('shared/file-states.ts')).toEqual({ cli: false, ui: false });
    expect(await prints()).toEqual(before);
  });
});
