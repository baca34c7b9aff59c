// Shared hot folders on the command line (issue 15): `folders add/update --share ...` store the
// share's settings, mistakes are one-line errors, and `docsync status` prints each shared folder's
// agents from the local store (where the running serve or app keeps its last look at them).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, STORE_FILE, type FolderRow } from '../../../electron/engine/store/index.js';
import { buildIfNeeded, cliEnv, expectOneLineError, type Cli } from './cli-env.js';

let cli: Cli;
beforeAll(async () => {
  await buildIfNeeded();
  cli = await cliEnv(); // offline: folders and status need no service
}, 120_000);
afterAll(async () => {
  await cli.close();
});

const folder = async (path: string): Promise<FolderRow> => (await cli.json<FolderRow[]>(['folders', 'list'])).find((f) => f.path === path) as FolderRow;

describe('docsync folders add/update --share', () => {
  it('add stores the share with its lease and heartbeat in seconds; update changes only what is given; --no-share ends it', async () => {
    const inbox = cli.dir('scans');
    await mkdir(inbox);
    const r = await cli.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--share', 'office-scans', '--lease', '30', '--heartbeat', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^added hot folder \d+: .*scans -> deployment sandbox-invoices; shared as "office-scans"/m);
    expect((await folder(inbox)).settings).toMatchObject({ share: { name: 'office-scans', coordinationFolder: '', leaseMs: 30_000, heartbeatMs: 3000 } });

    const u = await cli.run(['folders', 'update', inbox, '--lease', '20', '--coordination-folder', 'svc-drive/shared/docsync', '--max-files', '7']);
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toMatch(/^updated hot folder \d+: .*scans -> deployment sandbox-invoices; shared as "office-scans" \(lease 20 s, heartbeat 3 s\)/m);
    const after = (await folder(inbox)).settings as Record<string, unknown>;
    expect(after).toMatchObject({ share: { name: 'office-scans', coordinationFolder: 'svc-drive/shared/docsync', leaseMs: 20_000, heartbeatMs: 3000 }, batching: { maxFiles: 7 } });
    // What was not given stays as it was.
    expect(after.batching).toMatchObject({ quietMs: 10_000 });

    const off = await cli.run(['folders', 'update', inbox, '--no-share']);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/; not shared$/m);
    expect((await folder(inbox)).settings).toMatchObject({ share: null });
  });

  it.each([
    ['a lease without a share', ['folders', 'add', '.', '--deployment', 'd', '--lease', '30'], /--lease needs --share NAME/],
    ['a heartbeat over half the lease', ['folders', 'add', '.', '--deployment', 'd', '--share', 'x', '--lease', '10', '--heartbeat', '6'], /heartbeatMs must be at most half of share.leaseMs/],
    ['a share name with a space', ['folders', 'add', '.', '--deployment', 'd', '--share', 'front desk'], /share.name may hold only letters, digits/],
    ['a lease in words', ['folders', 'add', '.', '--deployment', 'd', '--share', 'x', '--lease', 'long'], /--lease must be an integer/],
    ['a local coordination folder', ['folders', 'add', '.', '--deployment', 'd', '--share', 'x', '--coordination-folder', '/tmp/c'], /must be a folder on the service/],
    ['an update of a folder that is not one', ['folders', 'update', '/no/such/folder', '--share', 'x'], /is not a hot folder/],
    ['--no-share with a share', ['folders', 'update', '.', '--no-share', '--share', 'x'], /--no-share alone/],
    ['an agent name of spaces only', ['serve', '--no-ui', '--agent-name', '   '], /--agent-name must be 1 to 64 characters, on one line/],
  ])('%s is a one-line error', async (_what, args, msg) => {
    expectOneLineError(await cli.run(args), msg, 2);
  });

  it('an update that leaves a folder invalid changes nothing', async () => {
    const inbox = cli.dir('scans');
    const before = await folder(inbox);
    expectOneLineError(await cli.run(['folders', 'update', inbox, '--lease', '30']), /is not shared: give --share NAME/, 2);
    expect(await folder(inbox)).toEqual(before);
  });
});

describe('docsync status: the agents of each shared folder', () => {
  it('prints name, host, last heartbeat "N s ago", files in flight and whether it is stale; --json has them', async () => {
    const inbox = cli.dir('front-desk');
    await mkdir(inbox);
    expect((await cli.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--share', 'front-desk'])).code).toBe(0);
    const id = (await folder(inbox)).id;
    const none = await cli.run(['status']);
    expect(none.stdout).toContain(`shared folder ${inbox} (share "front-desk"): no computer seen yet`);

    // The running engine's last look, as it stores it after each heartbeat (the engine's own tests cover that it does).
    const store = openStore(join(cli.home, STORE_FILE));
    const now = Date.now();
    store.share.setFleet(id, [
      { id: 'scan-1-0a1b2c3d', name: 'scan-1', host: 'scan-1.office', lastHeartbeatMs: now - 12_000, inFlight: 4, self: true, stale: false },
      { id: 'scan-2-4e5f6a7b', name: 'scan-2', host: 'scan-2.office', lastHeartbeatMs: now - 95_000, inFlight: 2, self: false, stale: true },
    ]);
    store.close();

    const r = await cli.run(['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`shared folder ${inbox} \\(share "front-desk"\\), as seen \\d+ s ago:`));
    expect(r.stdout).toMatch(/AGENT\s+HOST\s+LAST HEARTBEAT\s+FILES IN FLIGHT\s+STALE/);
    expect(r.stdout).toMatch(/scan-1 \(this one\)\s+scan-1\.office\s+1[2-4] s ago\s+4\s+no/);
    expect(r.stdout).toMatch(/scan-2\s+scan-2\.office\s+9[5-7] s ago\s+2\s+yes: its files go to the others/);

    const j = await cli.json<{ shares: { folderId: number; path: string; share: string; agents: { name: string; host: string; lastHeartbeatMs: number; inFlight: number; stale: boolean; self: boolean }[] }[] }>(['status']);
    const s = j.shares.find((x) => x.folderId === id);
    expect(s).toMatchObject({ path: inbox, share: 'front-desk' });
    expect(s?.agents.map((a) => [a.name, a.host, a.lastHeartbeatMs, a.inFlight, a.self, a.stale])).toEqual([
      ['scan-1', 'scan-1.office', now - 12_000, 4, true, false],
      ['scan-2', 'scan-2.office', now - 95_000, 2, false, true],
    ]);
  });
});
