#!/usr/bin/env node
/**
 * Build step of `npm start` (not part of the app bundle): gives the Electron main process a
 * better-sqlite3 compiled for Electron's ABI WITHOUT touching the Node build in node_modules that
 * the CLI, `docsync serve` and the tests load. (better-sqlite3 is not N-API, so one binary cannot
 * serve both; keytar is N-API and is used as installed.)
 *
 * 1. A copy of node_modules/better-sqlite3 in node_modules/.cache/docsync-electron/ is rebuilt with
 *    @electron/rebuild (prebuilt binary for Electron if one can be downloaded, else node-gyp against
 *    Electron's headers), once per Electron + better-sqlite3 version pair.
 * 2. Its run-time files are copied to out/main/node_modules/, which Node's module resolution
 *    searches first for out/main/index.js and for nothing else (out/cli resolves from the root).
 * `electron-vite build` empties out/main, so step 2 runs after every build.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(join(root, 'package.json'));
const MODULE = 'better-sqlite3';
/** Packages the module loads at run time besides its own files. */
const RUNTIME_DEPS = ['bindings', 'file-uri-to-path'];

const fail = (msg) => {
  console.error(`native-deps: ${msg}`);
  process.exit(1);
};
const version = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

function electronBinary() {
  try {
    // In plain Node, the electron package exports the path of its binary (and throws when it
    // was installed without one, e.g. with ELECTRON_SKIP_BINARY_DOWNLOAD=1).
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

if (!electronBinary()) {
  fail('the Electron binary is not installed (node_modules/electron has none): run "node node_modules/electron/install.js" on a machine that can download it, then "npm start" again');
}

const electronVersion = version('electron');
const moduleVersion = version(MODULE);
const cache = join(root, 'node_modules', '.cache', 'docsync-electron');
const stampFile = join(cache, 'stamp.json');
const stamp = JSON.stringify({ electron: electronVersion, [MODULE]: moduleVersion, platform: process.platform, arch: process.arch });
const built = join(cache, 'node_modules', MODULE, 'build', 'Release', 'better_sqlite3.node');

if (!(existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(built))) {
  console.error(`native-deps: building ${MODULE} ${moduleVersion} for Electron ${electronVersion} (once per version)`);
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(join(cache, 'node_modules'), { recursive: true });
  writeFileSync(join(cache, 'package.json'), JSON.stringify({ name: 'docsync-electron-native', private: true, dependencies: { [MODULE]: moduleVersion } }));
  // The sources (for node-gyp) without the Node build, which must not be mistaken for ours.
  cpSync(join(root, 'node_modules', MODULE), join(cache, 'node_modules', MODULE), {
    recursive: true,
    filter: (src) => !src.startsWith(join(root, 'node_modules', MODULE, 'build')),
  });
  const { rebuild } = await import('@electron/rebuild');
  try {
    await rebuild({ buildPath: cache, electronVersion, onlyModules: [MODULE], force: true, arch: process.arch });
  } catch (err) {
    fail(`could not build ${MODULE} for Electron ${electronVersion}: ${String(err?.message ?? err).split('\n')[0]}`);
  }
  if (!existsSync(built)) fail(`@electron/rebuild finished but ${built} is missing`);
  writeFileSync(stampFile, stamp);
}

const target = join(root, 'out', 'main', 'node_modules');
if (!existsSync(join(root, 'out', 'main'))) fail('out/main is missing: run "electron-vite build" first');
rmSync(target, { recursive: true, force: true });
const from = join(cache, 'node_modules', MODULE);
for (const part of ['package.json', 'lib', join('build', 'Release', 'better_sqlite3.node')]) {
  mkdirSync(dirname(join(target, MODULE, part)), { recursive: true });
  cpSync(join(from, part), join(target, MODULE, part), { recursive: true });
}
for (const dep of RUNTIME_DEPS) {
  cpSync(dirname(require.resolve(`${dep}/package.json`)), join(target, dep), { recursive: true });
}
console.error(`native-deps: out/main uses ${MODULE} built for Electron ${electronVersion}`);
