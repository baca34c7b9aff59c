// A shared folder's fleet reaches the UI live (issue 15): two real AppCores (their own data homes,
// agents scan-a and scan-b) signed in to one real sandbox over HTTP share a folder, and no file
// moves. scan-a's `folders` events alone bring scan-b in (its heartbeats), then mark it stale once
// it stops, within the lease and a heartbeat or two; `folders.list` says the same.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FolderView } from '../../../shared/ui/views.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { sandbox } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

const LEASE_MS = 3000;
const HEARTBEAT_MS = 500;
const fast = { poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } };

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  cleanup = [];
});

async function agent(name: string, url: string): Promise<CoreEnv> {
  const env = await coreEnv({ hooks: { engine: { ...fast, agentName: name } } });
  cleanup.push(() => env.close());
  await env.call('connection.signIn', { url, token: 'member-token', sessionOnly: true });
  return env;
}

describe('a shared folder\'s fleet in the UI', () => {
  it('arrives by `folders` events as heartbeats come and go, with no file moving', async () => {
    const sb = await sandbox();
    cleanup.push(() => sb.close());
    const a = await agent('scan-a', sb.url);
    const b = await agent('scan-b', sb.url);
    const inbox = join(a.root, 'inbox');
    await mkdir(inbox, { recursive: true });
    const settings = { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, share: { name: 'north', leaseMs: LEASE_MS, heartbeatMs: HEARTBEAT_MS } };

    const seen: FolderView[][] = [];
    a.core.events.on('folders', (list) => seen.push(list));
    const added = await a.call('folders.add', { settings });
    expect(added.fleet?.map((x) => [x.name, x.self])).toEqual([['scan-a', true]]);
    await b.call('folders.add', { settings });

    const fleet = (): FolderView['fleet'] => seen.at(-1)?.[0]?.fleet ?? null;
    const other = () => fleet()?.find((x) => x.name === 'scan-b');
    await waitUntil(() => other() !== undefined, 'scan-b appears in an event of scan-a', 20_000);
    expect(fleet()?.map((x) => [x.name, x.self, x.stale])).toEqual([['scan-a', true, false], ['scan-b', false, false]]);
    expect(other()?.inFlight).toBe(0);
    // Its heartbeats keep coming: a later event carries a newer sign of life.
    const first = other()?.lastHeartbeatMs ?? 0;
    await waitUntil(() => (other()?.lastHeartbeatMs ?? 0) > first, 'a newer heartbeat of scan-b arrives by event', 5000);

    const stoppedAt = Date.now();
    await b.close();
    await waitUntil(() => other()?.stale === true, 'scan-b is marked stale by event', LEASE_MS + 5 * HEARTBEAT_MS + 3000);
    // Not before a lease without a sign of life has passed (seen on this agent's clock).
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(LEASE_MS - HEARTBEAT_MS);
    const listed = await a.call('folders.list', {});
    expect(listed[0]?.fleet?.find((x) => x.name === 'scan-b')?.stale).toBe(true);
  }, 60_000);
});
