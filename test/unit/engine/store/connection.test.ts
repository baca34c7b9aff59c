// The store's connection settings (issue 14, third round): a WAL checkpoint every WAL_CHECKPOINT_PAGES,
// and the WAL cut back after one, on a real SQLite file; many small commits leave the WAL bounded.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, STORE_FILE, type Store } from '../../../../electron/engine/store/index.js';
import { WAL_CHECKPOINT_PAGES } from '../../../../electron/engine/store/open.js';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docsync-conn-'));
  store = openStore(join(dir, STORE_FILE));
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('store connection', () => {
  it('checkpoints every WAL_CHECKPOINT_PAGES pages and cuts the WAL back to 64 MB', () => {
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
    expect(store.db.pragma('journal_size_limit', { simple: true })).toBe(64 * 1024 * 1024);
  });

  it('a WAL grown past the checkpoint interval is checkpointed and cut back by the commits that follow', async () => {
    // Commits of about 1 MB each (a results page's size order) until the WAL passes the interval.
    store.db.exec('CREATE TABLE filler (b BLOB)');
    const ins = store.db.prepare('INSERT INTO filler (b) VALUES (zeroblob(1000000))');
    const pageSize = store.db.pragma('page_size', { simple: true }) as number;
    const limit = WAL_CHECKPOINT_PAGES * pageSize;
    const commits = Math.ceil((2 * limit) / 1_000_000) + 5;
    for (let i = 0; i < commits; i++) store.transaction(() => ins.run());
    // Twice the interval was written; checkpointed at the interval, the WAL is reused from its start and
    // stays about one interval long (frame headers add 24 bytes a page). Without checkpoints it would hold all.
    expect((await stat(join(dir, `${STORE_FILE}-wal`))).size).toBeLessThanOrEqual(limit * 1.01 + 2 * 1_000_000);
    expect((store.db.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n).toBe(commits);
  });
});
