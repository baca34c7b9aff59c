// Tests that run compiled code in a child process (the docsync command, the crash test's engine,
// keytar in a private D-Bus session) or serve the built UI first build what is stale, through the
// same script as `npm run docsync` (electron/cli/build-stale.mjs: fingerprints, one build at a time).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const OUT = path.join(ROOT, 'out/cli');
export const MAIN = path.join(OUT, 'electron/cli/main.js');
export const RENDERER_OUT = path.join(ROOT, 'out/renderer');

async function build(parts: string[], output: string): Promise<void> {
  // A type error elsewhere in the tree still leaves the CLI's output; these tests need only that.
  await promisify(execFile)(process.execPath, ['electron/cli/build-stale.mjs', '--quiet', ...parts], { cwd: ROOT }).catch((err: { stdout?: string; stderr?: string }) => {
    if (!existsSync(output)) throw new Error(`build of ${parts.join(' and ')} failed:\n${err.stderr ?? ''}${err.stdout ?? String(err)}`);
  });
}

/** Builds out/cli when missing or stale. */
export const buildCliIfNeeded = (): Promise<void> => build(['cli'], MAIN);

/** Builds the renderer (out/renderer, what `docsync serve` serves) when missing or stale, and out/cli. */
export const buildAllIfNeeded = (): Promise<void> => build(['cli', 'ui'], path.join(RENDERER_OUT, 'index.html'));
