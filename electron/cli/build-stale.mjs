#!/usr/bin/env node
/**
 * Builds only the parts of out/ whose sources changed since their last build.
 *
 *   node electron/cli/build-stale.mjs [cli] [ui] [--force]
 *
 * Why not a plain `npm run build` before every command: the UI bundle alone takes seconds and most
 * commands never serve it. Plain JS, because it runs before anything is compiled.
 *
 * A part is stale when the fingerprint of its inputs (every file's path, size and mtime, so edits,
 * deletions, renames and checkouts all count) differs from the one recorded at its last successful
 * build, or its output is missing. One build at a time: parallel callers (tests, two terminals) wait
 * on a lock folder and then find the part fresh.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STAMPS = path.join(ROOT, 'out/.stamps');
const require = createRequire(import.meta.url);
const bin = (pkg, rel) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), rel);

/** What each part is built from, what proves it was built, and how. */
export const PARTS = {
  cli: {
    inputs: ['electron/cli', 'electron/engine', 'sandbox', 'shared', 'bench', 'tsconfig.cli.json', 'tsconfig.base.json', 'package-lock.json'],
    ext: /\.(ts|json)$/,
    output: 'out/cli/electron/cli/main.js',
    command: () => [process.execPath, bin('typescript', 'bin/tsc'), '-p', 'tsconfig.cli.json'],
    // tsc still emits when some other part of the tree has a type error; the typecheck script reports those.
    emitsOnError: true,
  },
  // The renderer, and the desktop app's main and preload, which bundle the engine and the sandbox.
  ui: {
    inputs: ['renderer', 'shared', 'electron/main', 'electron/preload', 'electron/engine', 'sandbox', 'electron.vite.config.ts', 'tsconfig.web.json', 'package-lock.json'],
    ext: /\.(ts|mjs|js|svelte|css|html|svg|png|json)$/,
    output: 'out/renderer/index.html',
    command: () => [process.execPath, bin('electron-vite', 'bin/electron-vite.js'), 'build', '--logLevel', 'warn'],
    emitsOnError: false,
  },
};

function listInputs(rel, ext, out) {
  const abs = path.join(ROOT, rel);
  let st;
  try {
    st = statSync(abs);
  } catch {
    return;
  }
  if (st.isFile()) {
    out.push(`${rel}\0${st.size}\0${Math.trunc(st.mtimeMs)}`);
    return;
  }
  for (const e of readdirSync(abs, { withFileTypes: true })) {
    const child = `${rel}/${e.name}`;
    if (e.isDirectory()) listInputs(child, ext, out);
    else if (ext.test(e.name)) listInputs(child, ext, out);
  }
}

export function fingerprint(name) {
  const part = PARTS[name];
  const lines = [];
  for (const rel of part.inputs) listInputs(rel, part.ext, lines);
  return createHash('sha1').update(lines.sort().join('\n')).digest('hex');
}

const stampFile = (name) => path.join(STAMPS, `${name}.sha1`);
const readStamp = (name) => {
  try {
    return readFileSync(stampFile(name), 'utf8').trim();
  } catch {
    return '';
  }
};

export const isFresh = (name) => existsSync(path.join(ROOT, PARTS[name].output)) && readStamp(name) === fingerprint(name);

function withLock(fn) {
  mkdirSync(STAMPS, { recursive: true });
  const lock = path.join(STAMPS, '.lock');
  const end = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than three minutes was left by a killed build.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* released meanwhile */
      }
      if (Date.now() > end) throw new Error('timed out waiting for another build to finish');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds each named part that is stale (or all named parts with force). Returns false if one failed. */
export function buildStale(names, { force = false, quiet = false } = {}) {
  return withLock(() => {
    for (const name of names) {
      const part = PARTS[name];
      if (!part) throw new Error(`unknown part "${name}" (parts: ${Object.keys(PARTS).join(', ')})`);
      if (!force && isFresh(name)) continue;
      // Taken before the build: an edit made while it runs leaves the part stale for the next call.
      const print = fingerprint(name);
      if (!quiet) process.stderr.write(`docsync: building ${name === 'ui' ? 'the app and its UI' : 'the command line'}${force ? '' : ' (its sources changed)'}\n`);
      const [cmd, ...args] = part.command();
      const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
      const built = existsSync(path.join(ROOT, part.output));
      if (r.status === 0) writeFileSync(stampFile(name), `${print}\n`);
      else if (!(part.emitsOnError && built)) return false;
    }
    return true;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const names = args.filter((a) => !a.startsWith('--'));
  const ok = buildStale(names.length ? names : Object.keys(PARTS), { force: args.includes('--force'), quiet: args.includes('--quiet') });
  process.exitCode = ok ? 0 : 1;
}
