/** The default coordination folder rule, over an in-memory batch list (the real sandbox case is in test/integration/share). */
import { describe, expect, it } from 'vitest';
import type { BatchInfoView, CreateBatchRequest, ListBatchesQuery } from '../../../../shared/service/index.js';
import { MARKER_BATCH, defaultCoordinationFolder, type BatchLister } from '../../../../electron/engine/share/default-folder.js';

function lister(batches: BatchInfoView[], opts: { username?: string; failCreate?: string } = {}): BatchLister & { creates: number; queries: ListBatchesQuery[] } {
  const l = {
    creates: 0,
    queries: [] as ListBatchesQuery[],
    config: { username: opts.username },
    listBatches(q: ListBatchesQuery = {}) {
      l.queries.push(q);
      const off = q.offset ?? 0;
      return Promise.resolve({ batches: batches.slice(off, q.limit === undefined ? undefined : off + q.limit) });
    },
    createBatch(req: CreateBatchRequest) {
      if (opts.failCreate) return Promise.reject(new Error(opts.failCreate));
      l.creates++;
      const id = batches.length + 100;
      batches.push({ id, name: req.name, workspace: 'personal-u', mount_point: 'drive-b' } as BatchInfoView);
      return Promise.resolve({ id });
    },
  };
  return l;
}

const b = (id: number, name: string, ws = 'personal-u', mount = 'drive-a'): BatchInfoView => ({ id, name, workspace: ws, mount_point: mount }) as BatchInfoView;

describe('default coordination folder', () => {
  it('takes the oldest marker batch, past the first page, and creates nothing', async () => {
    const many = Array.from({ length: 700 }, (_, i) => b(i + 1, `batch-${i}`));
    many.push(b(900, MARKER_BATCH, 'team', 'drive-z'), b(650, MARKER_BATCH, 'personal-u', 'drive-a'));
    const l = lister(many, { username: 'u' });
    expect(await defaultCoordinationFolder(l)).toBe('drive-a/workspaces/personal-u/docsync-shares');
    expect(l.creates).toBe(0);
    expect(l.queries.every((q) => q.username === 'u')).toBe(true);
    expect(l.queries.length).toBe(2);
  });

  it('creates the marker when there is none, then uses what the service says of it', async () => {
    const l = lister([b(1, 'other')]);
    expect(await defaultCoordinationFolder(l)).toBe('drive-b/workspaces/personal-u/docsync-shares');
    expect(l.creates).toBe(1);
  });

  it('says what to do when no marker can be made', async () => {
    await expect(defaultCoordinationFolder(lister([], { failCreate: '"workspace" is required' }))).rejects.toThrow(
      /none could be found for this account \("workspace" is required\)\. Give the share a coordination folder, such as svc-drive\/shared\/docsync\./,
    );
  });
});
