// Store rows -> the UI's views for shared folders (electron/engine/app/views.ts, issue 15): a real
// SQLite store in a temp folder. A shared folder carries its fleet (this agent first, only the
// fields the UI shows), a folder not shared carries none; a file another agent handles names it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { folderView, queueView } from '../../../../electron/engine/app/views.js';
import type { FleetAgent } from '../../../../electron/engine/share/api.js';
import { openStore, STORE_FILE, type Store } from '../../../../electron/engine/store/index.js';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docsync-views-'));
  store = openStore(join(dir, STORE_FILE));
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const agent = (o: Partial<FleetAgent>): FleetAgent => ({ id: 'x', name: 'x', host: 'x.local', lastHeartbeatMs: 1000, inFlight: 0, self: false, stale: false, ...o });
const share = { name: 'north', coordinationFolder: '', leaseMs: 60_000, heartbeatMs: 5000 };

describe('views of shared folders', () => {
  it('a shared folder shows its fleet: this agent first, then by name, only the fields the UI shows', () => {
    const row = store.folders.add({ path: join(dir, 'in'), deploymentId: 'd', settings: { path: join(dir, 'in'), deployment: 'd', share } });
    const fleet = [
      agent({ id: 'c-3', name: 'scan-3', host: 'h3', inFlight: 2, stale: true }),
      agent({ id: 'a-1', name: 'scan-1', host: 'h1', self: true, inFlight: 5 }),
      // A record field the protocol may add later does not reach the renderer.
      { ...agent({ id: 'b-2', name: 'scan-2', host: 'h2', lastHeartbeatMs: null }), pid: 4242 } as FleetAgent,
    ];
    const v = folderView(row, store.browse.folderStats(), store, null, false, fleet);
    expect(v.settings.share).toEqual(share);
    expect(v.fleet).toEqual([
      { id: 'a-1', name: 'scan-1', host: 'h1', lastHeartbeatMs: 1000, inFlight: 5, self: true, stale: false },
      { id: 'b-2', name: 'scan-2', host: 'h2', lastHeartbeatMs: null, inFlight: 0, self: false, stale: false },
      { id: 'c-3', name: 'scan-3', host: 'h3', lastHeartbeatMs: 1000, inFlight: 2, self: false, stale: true },
    ]);
    // Signed out (no engine): shared, with no agent seen yet, which is not "not shared".
    expect(folderView(row, store.browse.folderStats(), store, null).fleet).toEqual([]);
  });

  it('a folder that is not shared has no fleet, whatever is passed', () => {
    const row = store.folders.add({ path: join(dir, 'in'), deploymentId: 'd', settings: { path: join(dir, 'in'), deployment: 'd' } });
    expect(folderView(row, store.browse.folderStats(), store, null, false, [agent({ self: true })]).fleet).toBeNull();
  });

  it('a file another agent handles names it; once back with this agent, no name is shown', () => {
    const folder = store.folders.add({ path: join(dir, 'in'), deploymentId: 'd', settings: { path: join(dir, 'in'), deployment: 'd', share } });
    const held = store.files.add({ folderId: folder.id, path: join(dir, 'in', 'a.pdf'), size: 1, mtimeMs: 1, originalName: 'a.pdf', sha256: 'a'.repeat(64) });
    store.files.transition(held.id, 'elsewhere');
    store.files.setHandledBy(held.id, 'scan-2');
    const taken = store.files.add({ folderId: folder.id, path: join(dir, 'in', 'b.pdf'), size: 1, mtimeMs: 1, originalName: 'b.pdf', sha256: 'b'.repeat(64) });
    store.files.setHandledBy(taken.id, 'scan-3');
    store.files.transition(taken.id, 'queued');
    const rows = store.browse.queue({}, 0, 10).rows.map((r) => queueView(r));
    expect(rows.map((f) => [f.name, f.state, f.handledBy])).toEqual([['b.pdf', 'queued', null], ['a.pdf', 'elsewhere', 'scan-2']]);
    expect(folderView(folder, store.browse.folderStats(), store, null).counts.elsewhere).toBe(1);
  });
});
