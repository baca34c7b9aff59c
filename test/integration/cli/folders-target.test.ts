// `docsync folders add` asks the configured service whether the deployment exists (issue 12): a
// mistyped id is refused at once instead of failing after the first upload; an unreachable service
// takes the folder and says it is not checked yet.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { RunningSandbox } from '../../../sandbox/index.js';
import { sandbox } from '../../helpers/sandbox.js';
import { buildIfNeeded, cliEnv, expectOneLineError, type Cli } from './cli-env.js';

let cli: Cli;
let sb: RunningSandbox;
beforeAll(async () => {
  await buildIfNeeded();
  sb = await sandbox();
  cli = await cliEnv({ url: sb.url, token: 'admin-token' });
}, 120_000);
afterAll(async () => {
  await cli?.close();
  await sb?.close();
});

describe('docsync folders add checks the deployment with the service', () => {
  it('a mistyped deployment is refused in one line and nothing is added', async () => {
    const inbox = cli.dir('typo');
    await mkdir(inbox);
    expectOneLineError(await cli.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoicez']), /no deployment "sandbox-invoicez" on http:\/\/127\.0\.0\.1:\d+/, 1);
    expect(existsSync(join(cli.home, 'docsync.db')) ? await cli.json<unknown[]>(['folders', 'list']) : []).toEqual([]);
  });

  it('a deployment the service has is added with no note', async () => {
    const inbox = cli.dir('good');
    await mkdir(inbox);
    const r = await cli.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^added hot folder \d+: .*good -> deployment sandbox-invoices$/);
  });

  it('with the service unreachable the folder is added, marked not checked yet', async () => {
    const inbox = cli.dir('offline');
    await mkdir(inbox);
    const r = await cli.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoicez'], { env: { DOCSYNC_URL: 'http://127.0.0.1:9' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/; not checked yet: http:\/\/127\.0\.0\.1:9 could not be asked/);
  });
});
