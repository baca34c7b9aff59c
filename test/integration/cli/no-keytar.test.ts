// An installation set up where keytar could not be built (no libsecret-1-dev): the command line says
// so in one line and offers the token per command. The installation is real: the built command in a
// folder whose node_modules holds every installed package but keytar.
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { RunningSandbox } from '../../../sandbox/index.js';
import { sandbox } from '../../helpers/sandbox.js';
import { buildIfNeeded, cliEnv, expectOneLineError, lineMatching, ROOT, type Cli } from './cli-env.js';

let install: string;
let cli: Cli;
let sb: RunningSandbox;

beforeAll(async () => {
  await buildIfNeeded();
  install = await mkdtemp(path.join(tmpdir(), 'docsync-no-keytar-'));
  cpSync(path.join(ROOT, 'out/cli'), path.join(install, 'out/cli'), { recursive: true });
  cpSync(path.join(ROOT, 'package.json'), path.join(install, 'package.json'));
  mkdirSync(path.join(install, 'node_modules'));
  for (const name of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (name !== 'keytar' && name !== '.bin') symlinkSync(path.join(ROOT, 'node_modules', name), path.join(install, 'node_modules', name));
  }
  cli = await cliEnv();
  sb = await sandbox();
}, 120_000);
afterAll(async () => {
  await sb?.close();
  await cli?.close();
  if (install) await rm(install, { recursive: true, force: true });
});

const main = () => path.join(install, 'out/cli/electron/cli/main.js');

describe('docsync without keytar', () => {
  it('login fails in one line, says why and offers the token per command; nothing is saved', async () => {
    const r = await cli.run(['login', '--url', sb.url], { input: 'admin-token\n', main: main() });
    expectOneLineError(r, /this installation has no keychain support.*libsecret-1-dev.*DOCSYNC_URL and DOCSYNC_TOKEN/, 1);
    expect(r.stderr).not.toContain('admin-token');
    expect(existsSync(path.join(cli.home, 'connection.json'))).toBe(false);
  });

  it('the token given per command works', async () => {
    const r = await cli.run(['runs', '--json'], { main: main(), env: { DOCSYNC_URL: sb.url, DOCSYNC_TOKEN: 'admin-token' } });
    expect(r.code, r.stderr).toBe(0);
  });

  it('serve says so in one line at start and runs on the built-in sandbox', async () => {
    const { child, exit } = cli.spawn(['serve', '--no-ui'], { main: main() });
    try {
      expect(await lineMatching(child, /^no keychain: /)).toMatch(/no keychain support.*"session only".*DOCSYNC_TOKEN/);
      await lineMatching(child, /^engine running/);
    } finally {
      child.kill('SIGINT');
      await exit;
    }
  });
});
