// Tests that run compiled code in a child process (the docsync command, the crash test's engine,
// keytar in a private D-Bus session) build out/cli first when any compiled source is newer than it.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const OUT = path.join(ROOT, 'out/cli');
export const MAIN = path.join(OUT, 'electron/cli/main.js');
const BUILD_INFO = path.join(OUT, '.tsbuildinfo');
const LOCK = path.join(OUT, '.test-build.lock');
/** What tsconfig.cli.json compiles. */
const SOURCES = ['electron/cli', 'electron/engine', 'sandbox', 'shared', 'bench'];

function newestSource(dir: string, ext = /\.ts$/): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p, ext));
    else if (ext.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

const fresh = (): boolean =>
  existsSync(MAIN) && existsSync(BUILD_INFO) && statSync(BUILD_INFO).mtimeMs > Math.max(...SOURCES.map((d) => newestSource(path.join(ROOT, d))));

/** One build at a time across test files running in parallel. */
async function locked(lock: string, fn: () => Promise<void>): Promise<void> {
  mkdirSync(path.dirname(lock), { recursive: true });
  const end = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than two minutes is left over from a killed run.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > end) throw new Error(`timed out waiting for another build (${path.basename(lock)})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds out/cli when missing or stale. */
export async function buildCliIfNeeded(): Promise<void> {
  if (fresh()) return;
  await locked(LOCK, async () => {
    if (fresh()) return;
    // tsc emits even when another part of the tree has a type error; these tests need only the output.
    await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.cli.json'], { cwd: ROOT }).catch((err: { stdout?: string }) => {
      if (!existsSync(MAIN)) throw new Error(`build of out/cli failed:\n${err.stdout ?? String(err)}`);
    });
  });
}

export const RENDERER_OUT = path.join(ROOT, 'out/renderer');
const RENDERER_INDEX = path.join(RENDERER_OUT, 'index.html');
const uiFresh = (): boolean =>
  existsSync(RENDERER_INDEX) &&
  statSync(RENDERER_INDEX).mtimeMs > Math.max(newestSource(path.join(ROOT, 'renderer'), /\.(ts|svelte|css|html|svg)$/), newestSource(path.join(ROOT, 'shared')));

/** Builds the renderer (out/renderer, what `docsync serve` serves) when missing or stale, and out/cli. */
export async function buildAllIfNeeded(): Promise<void> {
  await buildCliIfNeeded();
  if (uiFresh()) return;
  await locked(path.join(ROOT, 'out/.test-ui-build.lock'), async () => {
    if (uiFresh()) return;
    await promisify(execFile)('npx', ['electron-vite', 'build', '--logLevel', 'warn'], { cwd: ROOT }).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`build of the renderer failed:\n${err.stderr ?? ''}${err.stdout ?? String(err)}`);
    });
  });
}
