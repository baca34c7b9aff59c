// Every command's output arrives whole through a pipe. The reader here starts late (`sleep` before
// `cat`), so the 64 KiB pipe buffer is full when the command finishes printing: a process.exit()
// right after printing cut the JSON at 65,536 bytes and still exited 0.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openStore, STORE_FILE } from '../../../electron/engine/store/index.js';
import { buildIfNeeded, cliEnv, MAIN, type Cli } from './cli-env.js';

const FILES = 2_000;
let cli: Cli;

beforeAll(async () => {
  await buildIfNeeded();
  cli = await cliEnv();
  mkdirSync(cli.home, { recursive: true });
  const store = openStore(path.join(cli.home, STORE_FILE));
  store.transaction(() => {
    for (let i = 0; i < FILES; i++) {
      store.files.add({ path: `/scans/inbox/2026-11/scan-${String(i).padStart(5, '0')}-with-a-long-name.pdf`, size: 1000 + i, mtimeMs: 1_700_000_000_000 + i, originalName: `scan-${i}.pdf` });
    }
  });
  store.close();
}, 120_000);
afterAll(() => cli?.close());

const shell = (cmd: string) =>
  promisify(execFile)('bash', ['-c', `set -o pipefail; ${cmd}`], { env: { ...cli.env, MAIN }, maxBuffer: 64 * 1024 * 1024 });

describe('output through a pipe', () => {
  it('files --json through a slow reader is whole and parses', async () => {
    const { stdout } = await shell('node "$MAIN" files --json | (sleep 1; cat)');
    expect(stdout.length).toBeGreaterThan(256 * 1024);
    const rows = JSON.parse(stdout) as { path: string }[];
    expect(rows).toHaveLength(FILES);
    expect(rows.at(-1)!.path).toMatch(/scan-01999-/);
  });

  it('the plain table through a slow reader has every row', async () => {
    const { stdout } = await shell('node "$MAIN" files | (sleep 1; cat)');
    expect(stdout.trimEnd().split('\n')).toHaveLength(FILES + 1);
  });

  it('a reader that stops early ends the command quietly', async () => {
    const { stdout, stderr } = await shell('node "$MAIN" files | head -n 3');
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect(stderr).toBe('');
  });
});
