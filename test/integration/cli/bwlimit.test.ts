// `--bwlimit` and DOCSYNC_BWLIMIT on the command line (issue 27, section 3), through the built
// command against a real sandbox: a mistake is a one-line usage error (exit 2) in words; an upload
// with a limit arrives whole; serve and status say the limit in force.
import { mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { filePath } from '../../../electron/engine/service/files.js';
import { buildIfNeeded, cliEnv, expectOneLineError, lineMatching, type Cli } from './cli-env.js';

let sb: RunningSandbox;
let cli: Cli;
beforeAll(async () => {
  await buildIfNeeded();
  sb = await sandbox();
  cli = await cliEnv({ url: sb.url, token: 'admin-token' });
}, 120_000);
afterAll(async () => {
  await sb?.close();
  await cli?.close();
});

describe('--bwlimit and DOCSYNC_BWLIMIT', () => {
  it('a limit that cannot be read is a usage error in words, for serve and upload alike, before anything is sent', async () => {
    expectOneLineError(await cli.run(['serve', '--no-ui', '--bwlimit', 'Mon-Fri,25:00,2M']), /^docsync: --bwlimit: "25:00" in "Mon-Fri,25:00,2M" is not a time: write HH:MM, from 00:00 to 23:59$/, 2);
    expectOneLineError(await cli.run(['upload', 'x.pdf', '--deployment', 'sandbox-invoices'], { env: { DOCSYNC_BWLIMIT: '16Mbit' } }), /^docsync: DOCSYNC_BWLIMIT: "16Mbit" in "16Mbit" looks like bits per second: .*16 Mbit\/s is 2M\)$/, 2);
  });

  it('upload --bwlimit sends the file whole, no faster than the limit', async () => {
    const dir = cli.dir('limited');
    await mkdir(dir, { recursive: true });
    const bytes = randomBytes(700 * 1024);
    await writeFile(join(dir, 'scan.txt'), bytes);
    const started = Date.now();
    const r = await cli.run(['upload', join(dir, 'scan.txt'), '--deployment', 'sandbox-invoices', '--bwlimit', '256K:off', '--json']);
    expect(r.code, r.stderr).toBe(0);
    // 700 KiB at 256 KiB/s: over 2.5 s (the process's start-up only adds to it).
    expect(Date.now() - started).toBeGreaterThan(2500);
    const [row] = JSON.parse(r.stdout) as { serviceRunId: string }[];
    // The service's copy, found from the run: its batch's folder and the file's name.
    const api = caller(sb.url);
    const run = await api<{ batch_id: number }>('GET', `/v2/apps/runs/${row!.serviceRunId}`);
    const listing = await api<{ nodes: { full_path: string; name: string }[] }>('GET', `/v2/batches/${run.body.batch_id}/files?page_size=10`);
    const node = listing.body.nodes.find((n) => n.name === 'scan.txt');
    expect(node, listing.text).toBeDefined();
    const back = await fetch(`${sb.url}${filePath(node!.full_path)}?expect-node-type=file`, { headers: { Authorization: 'Bearer admin-token' } });
    expect(back.status).toBe(200);
    expect(Buffer.from(await back.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('status says the limit in force and where it comes from', async () => {
    const r = await cli.run(['status'], { env: { DOCSYNC_BWLIMIT: '2M' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('bandwidth: limited to 2 MiB/s (DOCSYNC_BWLIMIT: 2M)');
    const j = JSON.parse((await cli.run(['status', '--json'], { env: { DOCSYNC_BWLIMIT: '2M:off' } })).stdout) as { bandwidth: unknown };
    expect(j.bandwidth).toEqual({ spec: '2M:off', source: 'env', up: 2 * 1024 * 1024, down: null, untilMs: null });
    expect((await cli.run(['status'])).stdout).not.toContain('bandwidth:');
  });

  it('serve --bwlimit says the limit as it starts', async () => {
    const { child, exit } = cli.spawn(['serve', '--no-ui', '--bwlimit', '1M'], { env: { DOCSYNC_BWLIMIT: '5M' } });
    try {
      expect(await lineMatching(child, /^bandwidth: /)).toBe('bandwidth: limited to 1 MiB/s (--bwlimit: 1M)');
      await lineMatching(child, /^engine running$/);
    } finally {
      child.kill('SIGTERM');
      await exit;
    }
  });
});
