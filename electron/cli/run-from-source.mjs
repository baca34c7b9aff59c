#!/usr/bin/env node
/**
 * `npm run docsync -- <command>` from a checkout: builds only what changed since the last build (the
 * UI only for `serve`, the one command that serves it), then runs the command in this process.
 * Set-up (`npm ci`) builds everything once, so on an unchanged checkout nothing is built here.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildStale } from './build-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const parts = process.argv[2] === 'serve' ? ['cli', 'ui'] : ['cli'];
if (!buildStale(parts)) {
  console.error('docsync: the build failed (its errors are above)');
  process.exit(1);
}
await import(pathToFileURL(path.join(root, 'out/cli/electron/cli/main.js')).href);
