/**
 * The UI's read-only queries (store/browse.ts): queue pages with filters and totals, per-folder
 * counts, runs with file counts, the results tree and uploads in progress for `docsync status`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../../electron/engine/store/index.js';
import { tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
let s: Store;
let clock: number;
beforeEach(() => {
  t = tempStore();
  clock = 1_000;
  s = t.open({ now: () => clock++ });
});
afterEach(() => t.cleanup());

function file(path: string, folderId: number | null, state: Parameters<Store['files']['transition']>[1] = 'queued') {
  const f = s.files.add({ folderId, path, size: 100, mtimeMs: 1, originalName: path.split('/').pop()! });
  return state === 'discovered' ? f : s.files.transition(f.id, state);
}

describe('queue', () => {
  it('pages newest first with the total; filters by states, folder (0: by hand) and name, taken literally', () => {
    const inbox = s.folders.add({ path: '/in', deploymentId: 'd' });
    for (let i = 0; i < 25; i++) file(`/in/scan-${i}.pdf`, inbox.id, i % 5 === 0 ? 'failed' : 'queued');
    file('/elsewhere/100%_sure.pdf', null, 'done');
    const p = s.browse.queue({}, 0, 10);
    expect(p.total).toBe(26);
    expect(p.rows.map((r) => r.originalName)).toEqual(['100%_sure.pdf', ...Array.from({ length: 9 }, (_, i) => `scan-${24 - i}.pdf`)]);
    expect(s.browse.queue({}, 20, 10).rows).toHaveLength(6);
    expect(s.browse.queue({ states: ['failed'] }, 0, 100).total).toBe(5);
    expect(s.browse.queue({ states: ['failed', 'done'] }, 0, 100).total).toBe(6);
    expect(s.browse.queue({ folderId: 0 }, 0, 100).rows.map((r) => r.originalName)).toEqual(['100%_sure.pdf']);
    expect(s.browse.queue({ folderId: inbox.id, states: ['failed'] }, 0, 100).total).toBe(5);
    expect(s.browse.queue({ name: 'SCAN-2' }, 0, 100).total).toBe(6);
    expect(s.browse.queue({ name: '%' }, 0, 100).rows.map((r) => r.originalName)).toEqual(['100%_sure.pdf']);
    expect(s.browse.queue({ name: '_' }, 0, 100).total).toBe(1);
  });

  it('a row carries the run of its batch', () => {
    const f = file('/in/a.pdf', null);
    const b = s.runs.addBatch({ name: 'b1' });
    s.files.assign(f.id, { safeName: 'a.pdf', batchId: b.id, servicePath: 'x/a.pdf' });
    expect(s.browse.queue({}, 0, 1).rows[0]?.runId).toBeNull();
    const r = s.runs.addRun({ serviceRunId: 'run_1', batchId: b.id, deploymentId: 'd' });
    expect(s.browse.queue({}, 0, 1).rows[0]?.runId).toBe(r.id);
  });
});

describe('folders, runs, uploads', () => {
  it('per-folder counts and the last activity', () => {
    const a = s.folders.add({ path: '/a' });
    const b = s.folders.add({ path: '/b' });
    file('/a/1.pdf', a.id, 'done');
    file('/a/2.pdf', a.id, 'failed');
    const stats = s.browse.folderStats();
    expect(stats.get(a.id)?.counts).toMatchObject({ done: 1, failed: 1, queued: 0 });
    expect(stats.get(a.id)?.lastActivityMs).toBe(clock - 1);
    expect(stats.get(b.id)).toBeUndefined();
  });

  it('per-folder counts are counted again once a file changes, here or in another connection, and only then', () => {
    const a = s.folders.add({ path: '/a' });
    const f = file('/a/1.pdf', a.id, 'queued');
    const first = s.browse.folderStats();
    expect(s.browse.folderStats()).toBe(first);
    s.files.transition(f.id, 'done');
    expect(s.browse.folderStats().get(a.id)?.counts).toMatchObject({ done: 1, queued: 0 });
    // Another process's write (the CLI beside a running serve) is seen too.
    const other = t.open();
    other.files.add({ folderId: a.id, path: '/a/2.pdf', size: 1, mtimeMs: 1, originalName: '2.pdf' });
    expect(s.browse.folderStats().get(a.id)?.counts).toMatchObject({ done: 1, discovered: 1 });
  });

  it('runs newest first with their batch file count and folder', () => {
    const a = s.folders.add({ path: '/a' });
    const b = s.runs.addBatch({ folderId: a.id, name: 'b' });
    for (const p of ['/a/1.pdf', '/a/2.pdf']) s.files.assign(file(p, a.id).id, { safeName: null, batchId: b.id, servicePath: null });
    s.runs.addRun({ serviceRunId: 'run_old' });
    s.runs.addRun({ serviceRunId: 'run_new', batchId: b.id, deploymentId: 'd' });
    const p = s.browse.runs(0, 10);
    expect(p.total).toBe(2);
    expect(p.rows.map((r) => [r.serviceRunId, r.files, r.folderId])).toEqual([['run_new', 2, a.id], ['run_old', 0, null]]);
  });

  it('uploads in progress: bytes of the parts recorded in the open session', () => {
    const f = file('/in/big.bin', null, 'uploading');
    expect(s.browse.uploads()).toEqual([{ fileId: f.id, path: '/in/big.bin', sent: 0, total: 100 }]);
    const m = s.files.startMultipart({ fileId: f.id, sessionId: 's1', servicePath: 'x/big.bin', partSize: 40, fileSize: 100, mtimeMs: 1 });
    s.files.recordPart(m.id, { partNum: 1, partId: 'p1', size: 40 });
    s.files.recordPart(m.id, { partNum: 2, partId: 'p2', size: 40 });
    expect(s.browse.uploads()[0]?.sent).toBe(80);
    s.files.transition(f.id, 'uploaded');
    expect(s.browse.uploads()).toEqual([]);
  });
});
