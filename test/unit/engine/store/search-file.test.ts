/**
 * Results indexed for search in large units above a watermark (issue 14, migration 011,
 * search-index.ts): a search never misses a stored row, a store closed with rows waiting indexes
 * them on open, and deleted or replaced results leave nothing behind in the index.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Store } from '../../../../electron/engine/store/index.js';
import { resultsQueries } from '../../../../electron/engine/store/results.js';
import { parseResultsPage } from '../../../../shared/service/index.js';
import { ftsRows } from '../../../helpers/fts-rows.js';
import { resultsPage, tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
beforeEach(() => {
  t = tempStore();
});
afterEach(() => t.cleanup());

type Db = Store['db'];
const n = (db: Db, sql: string) => (db.prepare(sql).get() as { n: number }).n;
/** Fields and documents in the indexes (the indexes' own row totals). */
const indexedRows = (db: Db) => ({ fields: ftsRows(db, 'field_search'), documents: ftsRows(db, 'document_search') });
const storedRows = (db: Db) => ({ fields: n(db, 'SELECT count(*) AS n FROM fields'), documents: n(db, 'SELECT count(*) AS n FROM documents') });
const watermark = (db: Db) => Object.fromEntries((db.prepare('SELECT tbl, last_id FROM search_watermark').all() as { tbl: string; last_id: number }[]).map((r) => [r.tbl, r.last_id]));
/** FTS5's own check that each index holds exactly the rows and words of what it indexes (throws if not). */
const integrity = (db: Db) => {
  for (const x of ['field_search', 'document_search']) db.prepare(`INSERT INTO ${x} (${x}, rank) VALUES ('integrity-check', 1)`).run();
};
const store = (s: Store, runId: number, raw = resultsPage(), offset = 0) => s.results.storeResultsPage(runId, raw, parseResultsPage(raw), offset);
/** The fixture page with the invoice number changed (results re-fetched after a review). */
const reviewed = (invoice: string) => {
  const raw = resultsPage();
  (raw.files as { documents: { fields: { value: string }[] }[] }[])[0]!.documents[0]!.fields[1]!.value = invoice;
  return raw;
};

describe('search index watermark', () => {
  it('rows wait below the batch size, and a search right after storing finds them', () => {
    const s = t.open();
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    // A page of 5 fields is far below a batch: stored, not yet indexed.
    expect(indexedRows(s.db)).toEqual({ fields: 0, documents: 0 });
    expect(s.search('INV-2026-00').map((h) => h.snippet)).toEqual(['[INV-2026-0042]']);
    expect(s.search('Cover Letter').map((h) => h.kind)).toEqual(['document']);
    expect(indexedRows(s.db)).toEqual(storedRows(s.db));
    expect(watermark(s.db)).toEqual({ fields: n(s.db, 'SELECT max(id) AS n FROM fields'), documents: n(s.db, 'SELECT max(id) AS n FROM documents') });
    integrity(s.db);
  });

  it('a page that brings the waiting rows to the batch size is indexed with them, in its own transaction', () => {
    const s = t.open({ searchBatchRows: 8 });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run, resultsPage(), 0);
    expect(indexedRows(s.db).fields).toBe(0);
    store(s, run, resultsPage(), 5);
    expect(indexedRows(s.db)).toEqual({ fields: 10, documents: 6 });
    integrity(s.db);
  });

  it('once storing pauses, what waits is indexed without a search', async () => {
    const s = t.open({ searchIdleMs: 20 });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    expect(indexedRows(s.db).fields).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(indexedRows(s.db)).toEqual({ fields: 5, documents: 3 });
  });

  it('a store closed with rows waiting indexes them when it opens again', () => {
    const s = t.open();
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    s.close();
    // As a crash would leave it: the rows committed, the watermark below them, the index without them.
    const raw = openDatabase(t.path);
    expect(indexedRows(raw)).toEqual({ fields: 0, documents: 0 });
    expect(watermark(raw)).toEqual({ fields: 0, documents: 0 });
    raw.close();

    const again = t.open();
    expect(indexedRows(again.db)).toEqual({ fields: 5, documents: 3 });
    integrity(again.db);
    expect(again.search('Café').map((h) => h.value)).toEqual(['Café Olé']);
  });

  it('an indexing that fails half-way changes neither the index nor the watermark', () => {
    const s = t.open();
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    expect(() => s.transaction(() => {
      s.results.indexForSearch();
      throw new Error('power cut');
    })).toThrow('power cut');
    expect(indexedRows(s.db)).toEqual({ fields: 0, documents: 0 });
    expect(watermark(s.db)).toEqual({ fields: 0, documents: 0 });
    expect(s.search('INV-2026-0042')).toHaveLength(1);
  });

  it('a result replaced while its rows wait leaves no stale entries', () => {
    const s = t.open();
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    store(s, run, reviewed('INV-2026-0099'));
    expect(s.search('INV-2026-0042')).toEqual([]);
    expect(s.search('INV-2026-0099')).toHaveLength(1);
    expect(indexedRows(s.db)).toEqual(storedRows(s.db));
    integrity(s.db);
  });

  it('a result replaced after it was indexed leaves no stale entries, and its successor (given the same ids) is indexed', () => {
    const s = t.open();
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    expect(s.search('INV-2026-0042')).toHaveLength(1);
    const ids = n(s.db, 'SELECT max(id) AS n FROM fields');
    // Replacing the last page deletes the rows with the highest ids; SQLite gives the new ones the same ids.
    store(s, run, reviewed('INV-2026-0099'));
    expect(n(s.db, 'SELECT max(id) AS n FROM fields')).toBe(ids);
    expect(s.search('INV-2026-0042')).toEqual([]);
    expect(s.search('INV-2026-0099').map((h) => h.snippet)).toEqual(['[INV-2026-0099]']);
    expect(indexedRows(s.db)).toEqual(storedRows(s.db));
    integrity(s.db);
  });

  it('deleting a run with rows both indexed and waiting removes all of them from the index', () => {
    const s = t.open();
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    const other = s.runs.addRun({ serviceRunId: 'run_9c1d' }).id;
    store(s, run, resultsPage(), 0);
    s.results.indexForSearch();
    store(s, run, reviewed('INV-2026-0077'), 5);
    store(s, other, reviewed('INV-2026-0055'), 0);
    expect(indexedRows(s.db).fields).toBe(5);
    s.db.prepare('DELETE FROM runs WHERE id = ?').run(run);
    expect(s.search('INV-2026')).toHaveLength(1);
    expect(s.search('INV-2026-0055').map((h) => h.serviceRunId)).toEqual(['run_9c1d']);
    expect(indexedRows(s.db)).toEqual({ fields: 5, documents: 3 });
    integrity(s.db);
  });

  it('a field edited while it waits is indexed with its new value; edited once indexed, its old words go', () => {
    const s = t.open();
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    const setValue = s.db.prepare("UPDATE fields SET value = ? WHERE name = 'invoice_number'");
    setValue.run('INV-2026-0011');
    expect(s.search('INV-2026-0042')).toEqual([]);
    expect(s.search('INV-2026-0011')).toHaveLength(1);
    setValue.run('INV-2026-0022');
    expect(s.search('INV-2026-0011')).toEqual([]);
    expect(s.search('INV-2026-0022')).toHaveLength(1);
    integrity(s.db);
  });
});

describe('011: a store at 010 with results in it', () => {
  it('keeps its results searchable, starts the watermark at its last rows, and indexes what comes after in batches', async () => {
    const { MIGRATIONS } = await import('../../../../electron/engine/store/migrations/index.js');
    const { searchWatermark } = await import('../../../../electron/engine/store/migrations/011-search-watermark.js');
    const { migrate } = await import('../../../../electron/engine/store/migrate.js');
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, MIGRATIONS.indexOf(searchWatermark)));
    const { id: runId } = old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number };
    resultsQueries(old).storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
    // As 010's code indexed each page after storing it.
    old.exec(`INSERT INTO document_search (rowid, class_name, file_name, joined)
      SELECT d.id, d.class_name, rf.original_file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name)) FROM documents d JOIN result_files rf ON rf.id = d.result_file_id;
      INSERT INTO field_search (rowid, value, name, joined) SELECT id, value, name, joined_words(value) FROM fields;`);
    old.close();

    const s = t.open();
    expect(watermark(s.db)).toEqual({ fields: 5, documents: 3 });
    expect(s.search('INV-2026-00').map((h) => h.snippet)).toEqual(['[INV-2026-0042]']);
    const run2 = s.runs.addRun({ serviceRunId: 'run_9c1d' }).id;
    store(s, run2, reviewed('INV-2026-0099'));
    expect(indexedRows(s.db)).toEqual({ fields: 5, documents: 3 });
    // The old run's rows (indexed by 010) go from the index when re-fetched; the new ones wait, then are found.
    store(s, runId, reviewed('INV-2026-0077'));
    expect(s.search('INV-2026').map((h) => h.value).sort()).toEqual(['INV-2026-0077', 'INV-2026-0099']);
    expect(indexedRows(s.db)).toEqual(storedRows(s.db));
    integrity(s.db);
  });
});
