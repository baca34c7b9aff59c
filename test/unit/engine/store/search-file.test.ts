/**
 * The search file (issue 14, migration 019; search-file.ts, search-units.ts, search-worker.ts):
 * stored results are indexed in units above a watermark (`search_state`) into a database of their
 * own beside the store, by a worker thread or on the engine's thread (`searchWorker: false`), and
 * every behaviour is tested in both. A search never misses a stored row (it catches up first), a
 * unit's worth or a pause in storing is indexed without a search, a store closed with rows waiting
 * indexes them when it opens again, a unit that fails changes nothing, deleted, replaced or edited
 * results leave nothing behind (through the store's change log, `search_changes`), a search file
 * that is missing, another store's, of another schema or not a database is made again from the
 * store, both modes end in the same index, and closing the store mid-way leaves a consistent one.
 */
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, openDatabase, type OpenOptions, type Store } from '../../../../electron/engine/store/index.js';
import { searchWatermark } from '../../../../electron/engine/store/migrations/011-search-watermark.js';
import { resultsQueries } from '../../../../electron/engine/store/results.js';
import { removeSearchFile, SEARCH_SCHEMA, searchFileOf } from '../../../../electron/engine/store/search-file.js';
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
const storedRows = (s: Store) => ({ fields: n(s.db, 'SELECT count(*) AS n FROM fields'), documents: n(s.db, 'SELECT count(*) AS n FROM documents') });
/** The search file's watermark: the last field and document ids indexed, the last change applied. */
const watermark = (db: Db) => db.prepare('SELECT fields_id AS fields, documents_id AS documents, changes_seq AS changes FROM main.search_state').get() as
  { fields: number; documents: number; changes: number };
const storeId = (db: Db) => (db.prepare('SELECT store_id AS id FROM main.search_state').get() as { id: string }).id;
const identity = (s: Store) => (s.db.prepare('SELECT id FROM store_identity').get() as { id: string }).id;
/** The store's change log (rows whose words the search file must take out or write again). */
const logged = (s: Store) => s.db.prepare('SELECT tbl, id FROM search_changes ORDER BY seq').all() as { tbl: string; id: number }[];
/** FTS5's own check that each index holds exactly the rows and words of its own copy of the text (throws if not). */
const integrity = (db: Db) => {
  for (const x of ['field_search', 'document_search']) db.prepare(`INSERT INTO ${x} (${x}, rank) VALUES ('integrity-check', 1)`).run();
};
/** Rows of an index that hold `word` (straight from the index: a search drops rowids with no stored row behind them). */
const matching = (db: Db, table: 'field_search' | 'document_search', word: string) =>
  db.prepare(`SELECT rowid FROM main.${table} WHERE ${table} MATCH ? ORDER BY rowid`).pluck().all(`"${word}"`) as number[];
/** The search file, opened as a crash or another process leaves it (the store's connection settings). */
const rawSearchFile = (): Db => openDatabase(searchFileOf(t.path));

/** What the indexes hold (their own copy of the text, by rowid), and what the store's rows say they must hold. */
const FIELD_INDEX = 'SELECT rowid AS id, value, name, joined FROM main.field_search ORDER BY rowid';
const FIELD_STORE = 'SELECT id, value, name, joined_words(value) AS joined FROM store.fields ORDER BY id';
const DOCUMENT_INDEX = 'SELECT rowid AS id, class_name, file_name, joined FROM main.document_search ORDER BY rowid';
const DOCUMENT_STORE = `SELECT d.id, d.class_name, rf.original_file_name AS file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name)) AS joined
  FROM store.documents d JOIN store.result_files rf ON rf.id = d.result_file_id ORDER BY d.id`;
const indexContent = (db: Db) => ({ fields: db.prepare(FIELD_INDEX).all(), documents: db.prepare(DOCUMENT_INDEX).all() });

/**
 * The index caught up: each stored field and document in it once with its text now and nothing
 * else, as many rows as stored, the watermark at the last ids, no logged change above the one
 * applied, and FTS5's integrity check passes.
 */
function expectInStep(s: Store): void {
  const db = s.searchDb;
  expect(indexContent(db)).toEqual({ fields: db.prepare(FIELD_STORE).all(), documents: db.prepare(DOCUMENT_STORE).all() });
  expect(indexedRows(db)).toEqual(storedRows(s));
  expect(watermark(db)).toMatchObject({
    fields: n(s.db, 'SELECT coalesce(max(id), 0) AS n FROM fields'), documents: n(s.db, 'SELECT coalesce(max(id), 0) AS n FROM documents'),
  });
  expect(n(db, 'SELECT count(*) AS n FROM store.search_changes WHERE seq > (SELECT changes_seq FROM main.search_state)')).toBe(0);
  integrity(db);
}

const store = (s: Store, runId: number, raw = resultsPage(), offset = 0) => s.results.storeResultsPage(runId, raw, parseResultsPage(raw), offset);
/** The fixture page with the invoice number changed (results re-fetched after a review). */
const reviewed = (invoice: string) => {
  const raw = resultsPage();
  (raw.files as { documents: { fields: { value: string }[] }[] }[])[0]!.documents[0]!.fields[1]!.value = invoice;
  return raw;
};
/** A search's hits, to compare two stores given the same operations (their ids are the same). */
const hits = (s: Store, q: string) => s.search(q, 100).map((h) => `${h.kind} ${h.fieldId ?? '-'} ${h.documentId} ${h.serviceRunId} ${h.value ?? h.className ?? ''} ${h.snippet}`).sort();

/**
 * Nothing indexes before a search asks: a batch far above what the tests store, and a pause far
 * longer than they last.
 */
const QUIET: OpenOptions = { searchBatchRows: 1_000_000, searchIdleMs: 60_000 };
/** Polling for what another thread or a timer does: up to 5 s, whatever the machine's speed. */
const POLL = { timeout: 5000, interval: 10 };

/**
 * Blocks this thread, its timers and its messages included, until `fn` holds (up to 5 s): what
 * changes meanwhile in the search file was done by another thread, the worker.
 */
function blockedUntil(fn: () => boolean, what: string): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + 5000;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`not within 5 s, this thread blocked: ${what}`);
    Atomics.wait(nap, 0, 0, 5);
  }
}
/** Blocks this thread for `ms` (its timers cannot run meanwhile). */
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const MODES = [
  { mode: 'a worker thread', searchWorker: true },
  { mode: "the engine's thread (searchWorker: false)", searchWorker: false },
] as const;

describe.each(MODES)('search file, indexed on $mode', ({ searchWorker }) => {
  const open = (o: OpenOptions = {}) => t.open({ searchWorker, ...o });
  /** The store with the fixture page stored and indexed, then closed: the run's id. */
  const indexedAndClosed = (): number => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    s.results.indexForSearch();
    s.close();
    return run;
  };

  it('rows wait below the batch size, and a search right after storing catches up first and finds them', async () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    // A page of 5 fields is far below a batch: stored, not yet indexed, the watermark where it was.
    expect(indexedRows(s.searchDb)).toEqual({ fields: 0, documents: 0 });
    expect(watermark(s.searchDb)).toEqual({ fields: 0, documents: 0, changes: 0 });
    // Given time, still nothing: neither thread has a reason to index (this waits for no work to finish).
    await new Promise((r) => setTimeout(r, 100));
    expect(indexedRows(s.searchDb)).toEqual({ fields: 0, documents: 0 });
    expect(watermark(s.searchDb)).toEqual({ fields: 0, documents: 0, changes: 0 });

    expect(s.search('INV-2026-00').map((h) => h.snippet)).toEqual(['[INV-2026-0042]']);
    expect(s.search('Cover Letter').map((h) => h.kind)).toEqual(['document']);
    expect(indexedRows(s.searchDb)).toEqual({ fields: 5, documents: 3 });
    expect(watermark(s.searchDb)).toEqual({ fields: 5, documents: 3, changes: 0 });
    expectInStep(s);
  });

  it("a page that brings the waiting rows to the batch size gets them indexed without a search", () => {
    const s = open({ searchBatchRows: 8, searchIdleMs: 60_000 });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run, resultsPage(), 0);
    expect(indexedRows(s.searchDb)).toEqual({ fields: 0, documents: 0 });
    store(s, run, resultsPage(), 5);
    if (searchWorker) {
      // Indexed while this thread does nothing more, whichever thread indexes this first unit:
      // the worker, one unit of 8 fields with every new document (the 2 fields left wait below the
      // batch size, the pause a minute away), or this thread, by the call that stored the page, all
      // 10, when the worker is not started yet (search-worker.ts starts it as storing goes on).
      blockedUntil(() => watermark(s.searchDb).fields > 0, 'a unit is indexed');
      const { fields } = watermark(s.searchDb);
      expect([8, 10]).toContain(fields);
      expect(watermark(s.searchDb)).toEqual({ fields, documents: 6, changes: 0 });
      expect(indexedRows(s.searchDb)).toEqual({ fields, documents: 6 });
    } else {
      // On the engine's thread, by the call that stored the page: everything that waits.
      expect(watermark(s.searchDb)).toEqual({ fields: 10, documents: 6, changes: 0 });
      expect(indexedRows(s.searchDb)).toEqual({ fields: 10, documents: 6 });
    }
    integrity(s.searchDb);
    expect(s.search('Müller').map((h) => h.kind).sort()).toEqual(['document', 'document', 'field', 'field']);
    expectInStep(s);
  });

  it('once storing pauses, what waits is indexed without a search', async () => {
    const s = open({ searchIdleMs: 20 });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    await expect.poll(() => indexedRows(s.searchDb), POLL).toEqual({ fields: 5, documents: 3 });
    expect(watermark(s.searchDb)).toEqual({ fields: 5, documents: 3, changes: 0 });
    expectInStep(s);
  });

  it.runIf(searchWorker)('in the worker, while this thread is blocked: what is left once storing pauses, and changes, whose log it empties', () => {
    const s = open({ searchBatchRows: 8, searchIdleMs: 20 });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    for (let offset = 0; offset < 25; offset += 5) store(s, run, resultsPage(), offset);
    // 25 fields stored in a row: units as they came (the first maybe on this thread, by the call
    // that stored the page, before the worker started), and fields left below the batch size after
    // the last page, which only the pause indexes; this thread's timers cannot run, the worker's can.
    blockedUntil(() => watermark(s.searchDb).fields === 25, 'the worker indexes every field');
    expect(indexedRows(s.searchDb)).toEqual({ fields: 25, documents: 15 });
    // The last page stored again: its 5 fields and 3 documents logged as deleted, new rows with the
    // same ids, nothing new above the watermark. The worker applies the changes after the pause,
    // and empties the store's log through its own connection.
    store(s, run, reviewed('INV-2026-0099'), 20);
    blockedUntil(() => watermark(s.searchDb).changes === 8 && logged(s).length === 0, 'the worker applies the changes and empties the log');
    expect(matching(s.searchDb, 'field_search', 'INV-2026-0099')).toEqual([22]);
    expectInStep(s);
  });

  it.runIf(!searchWorker)("on the engine's thread, the pause is this thread's: nothing is indexed while it is blocked, then what waits is", async () => {
    const s = open({ searchBatchRows: 8, searchIdleMs: 20 });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    block(200);
    expect(indexedRows(s.searchDb)).toEqual({ fields: 0, documents: 0 });
    await expect.poll(() => indexedRows(s.searchDb), POLL).toEqual({ fields: 5, documents: 3 });
    expectInStep(s);
  });

  it('a store closed with rows waiting indexes them when it opens again, once asked', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    s.close();
    // As a crash would leave it: the rows committed in the store, the search file without them.
    const raw = rawSearchFile();
    expect(indexedRows(raw)).toEqual({ fields: 0, documents: 0 });
    expect(watermark(raw)).toEqual({ fields: 0, documents: 0, changes: 0 });
    raw.close();

    const again = open(QUIET);
    expect(indexedRows(again.searchDb)).toEqual({ fields: 0, documents: 0 });
    again.results.indexForSearch();
    expect(indexedRows(again.searchDb)).toEqual({ fields: 5, documents: 3 });
    expectInStep(again);
    expect(again.search('Café').map((h) => h.value)).toEqual(['Café Olé']);
  });

  it("a store opened with a unit's worth waiting gets it indexed without a search", () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run, resultsPage(), 0);
    store(s, run, resultsPage(), 5);
    s.close();

    const again = open({ searchBatchRows: 8, searchIdleMs: 60_000 });
    if (searchWorker) {
      // The worker starts at open: one unit of 8 fields; the 2 left wait below the batch size.
      blockedUntil(() => watermark(again.searchDb).fields > 0, 'the worker indexes at open');
      expect(watermark(again.searchDb)).toEqual({ fields: 8, documents: 6, changes: 0 });
    } else {
      // On the engine's thread, by the open itself.
      expect(watermark(again.searchDb)).toEqual({ fields: 10, documents: 6, changes: 0 });
    }
    again.results.indexForSearch();
    expectInStep(again);
  });

  it('a unit that fails after its inserts changes neither the index nor the watermark, nor empties the log', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run, resultsPage(), 0);
    s.results.indexForSearch();
    // Waiting: a change to an indexed field (logged), and a page of new rows.
    s.db.prepare("UPDATE fields SET value = 'INV-2026-0011' WHERE value = 'INV-2026-0042'").run();
    store(s, run, resultsPage(), 5);
    const before = { content: indexContent(s.searchDb), rows: indexedRows(s.searchDb), mark: watermark(s.searchDb), log: logged(s) };
    expect(before.mark).toEqual({ fields: 5, documents: 3, changes: 0 });
    expect(before.log).toHaveLength(1);

    // The unit's last write, the watermark, fails; only once both indexes hold the unit's new rows
    // (the trigger's condition), so the failure comes after the inserts, as a power cut there would.
    const raw = rawSearchFile();
    raw.exec(`CREATE TRIGGER power_cut BEFORE UPDATE OF fields_id ON search_state
      WHEN EXISTS (SELECT 1 FROM field_search WHERE rowid = new.fields_id) AND EXISTS (SELECT 1 FROM document_search WHERE rowid = new.documents_id)
      BEGIN SELECT RAISE(ABORT, 'power cut'); END`);
    expect(() => s.results.indexForSearch()).toThrow('power cut');
    // A search catches up first, and says so rather than answer from a half-made index.
    expect(() => s.search('INV-2026-0011')).toThrow('power cut');
    expect(indexContent(s.searchDb)).toEqual(before.content);
    expect(indexedRows(s.searchDb)).toEqual(before.rows);
    expect(watermark(s.searchDb)).toEqual(before.mark);
    expect(logged(s)).toEqual(before.log);
    integrity(s.searchDb);

    raw.exec('DROP TRIGGER power_cut');
    raw.close();
    expect(s.search('INV-2026-0011').map((h) => h.value)).toEqual(['INV-2026-0011']);
    expect(s.search('INV-2026-0042').map((h) => h.value)).toEqual(['INV-2026-0042']);
    expectInStep(s);
    expect(logged(s)).toEqual([]);
  });

  it('a catch-up inside a store transaction that rolls back indexes only what was committed', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    expect(() => s.transaction(() => {
      store(s, run, reviewed('INV-2026-0099'));
      s.results.indexForSearch();
      throw new Error('power cut');
    })).toThrow('power cut');
    expect(s.search('INV-2026-0099')).toEqual([]);
    expect(s.search('INV-2026-0042').map((h) => h.value)).toEqual(['INV-2026-0042']);
    expectInStep(s);
  });

  it('a result replaced while its rows wait leaves no stale entries', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    store(s, run, reviewed('INV-2026-0099'));
    expect(s.search('INV-2026-0042')).toEqual([]);
    expect(s.search('INV-2026-0099')).toHaveLength(1);
    expect(matching(s.searchDb, 'field_search', 'INV-2026-0042')).toEqual([]);
    expectInStep(s);
  });

  it('a result replaced after it was indexed leaves no stale entries, and its successor (given the same ids) is indexed', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    expect(s.search('INV-2026-0042')).toHaveLength(1);
    const ids = n(s.db, 'SELECT max(id) AS n FROM fields');
    // Replacing the last page deletes the rows with the highest ids; SQLite gives the new ones the same ids.
    store(s, run, reviewed('INV-2026-0099'));
    expect(n(s.db, 'SELECT max(id) AS n FROM fields')).toBe(ids);
    expect(s.search('INV-2026-0042')).toEqual([]);
    expect(matching(s.searchDb, 'field_search', 'INV-2026-0042')).toEqual([]);
    expect(s.search('INV-2026-0099').map((h) => h.snippet)).toEqual(['[INV-2026-0099]']);
    expectInStep(s);
  });

  it('deleting a run with rows both indexed and waiting removes all of them from the index', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    const other = s.runs.addRun({ serviceRunId: 'run_9c1d' }).id;
    store(s, run, resultsPage(), 0);
    s.results.indexForSearch();
    store(s, run, reviewed('INV-2026-0077'), 5);
    store(s, other, reviewed('INV-2026-0055'), 0);
    expect(indexedRows(s.searchDb).fields).toBe(5);
    s.db.prepare('DELETE FROM runs WHERE id = ?').run(run);
    expect(s.search('INV-2026')).toHaveLength(1);
    expect(s.search('INV-2026-0055').map((h) => h.serviceRunId)).toEqual(['run_9c1d']);
    expect(indexedRows(s.searchDb)).toEqual({ fields: 5, documents: 3 });
    expect(matching(s.searchDb, 'field_search', 'INV-2026-0042')).toEqual([]);
    expect(matching(s.searchDb, 'field_search', 'INV-2026-0077')).toEqual([]);
    expectInStep(s);
  });

  it('a field edited while it waits is indexed with its new value; edited once indexed, its old words go', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    const setValue = s.db.prepare("UPDATE fields SET value = ? WHERE name = 'invoice_number'");
    setValue.run('INV-2026-0011');
    expect(s.search('INV-2026-0042')).toEqual([]);
    expect(s.search('INV-2026-0011')).toHaveLength(1);
    setValue.run('INV-2026-0022');
    expect(s.search('INV-2026-0011')).toEqual([]);
    expect(s.search('INV-2026-0022')).toHaveLength(1);
    expect(matching(s.searchDb, 'field_search', 'INV-2026-0011')).toEqual([]);
    expectInStep(s);
  });

  it("a document's class and a result file's name changed once indexed are found by their new text only", () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    expect(s.search('Receipt').map((h) => h.className)).toEqual(['Receipt']);
    expect(s.search('scan_0007').map((h) => h.className).sort()).toEqual(['Cover Letter', 'Receipt']);
    s.db.prepare("UPDATE documents SET class_name = 'Quittung' WHERE class_name = 'Receipt'").run();
    s.db.prepare("UPDATE result_files SET original_file_name = 'Beleg 0007.pdf' WHERE original_file_name = 'scan_0007.pdf'").run();
    // Both logged as the documents' changes (the file's name is in each of its documents' rows).
    expect(logged(s).map((r) => r.tbl)).toEqual(['documents', 'documents', 'documents']);
    expect(s.search('Receipt')).toEqual([]);
    expect(s.search('scan_0007')).toEqual([]);
    expect(matching(s.searchDb, 'document_search', 'Receipt')).toEqual([]);
    expect(matching(s.searchDb, 'document_search', 'scan_0007')).toEqual([]);
    expect(s.search('Quittung').map((h) => [h.kind, h.className, h.fileName])).toEqual([['document', 'Quittung', 'Beleg 0007.pdf']]);
    expect(s.search('Beleg').map((h) => h.className).sort()).toEqual(['Cover Letter', 'Quittung']);
    expectInStep(s);
  });

  it('changes applied are taken out of the store\'s log, and the watermark records the last one', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    s.results.indexForSearch();
    expect(logged(s)).toEqual([]);
    s.db.prepare("UPDATE fields SET value = 'INV-2026-0011' WHERE name = 'invoice_number'").run();
    s.db.prepare("UPDATE documents SET class_name = 'Quittung' WHERE class_name = 'Receipt'").run();
    const changed = logged(s);
    expect(changed.map((r) => r.tbl)).toEqual(['fields', 'documents']);
    const seq = () => n(s.db, 'SELECT max(seq) AS n FROM search_changes');
    const last = seq();
    expect(watermark(s.searchDb).changes).toBe(0);

    s.results.indexForSearch();
    expect(logged(s)).toEqual([]);
    expect(watermark(s.searchDb).changes).toBe(last);
    expect(s.search('INV-2026-0011').map((h) => h.value)).toEqual(['INV-2026-0011']);
    expect(s.search('Quittung').map((h) => h.className)).toEqual(['Quittung']);
    // A seq is never given twice, the log emptied or not: the next change is above the watermark.
    s.db.prepare("UPDATE fields SET value = 'Café Noir' WHERE value = 'Café Olé'").run();
    expect(seq()).toBeGreaterThan(last);
    expect(s.search('Noir').map((h) => h.value)).toEqual(['Café Noir']);
    expect(logged(s)).toEqual([]);
    expect(watermark(s.searchDb).changes).toBe(last + 1);
    expectInStep(s);
  });

  it('changes are applied and the log emptied once storing pauses, without a search', async () => {
    const s = open({ searchBatchRows: 8, searchIdleMs: 20 });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run, resultsPage(), 0);
    store(s, run, resultsPage(), 5);
    await expect.poll(() => watermark(s.searchDb).fields, POLL).toBe(10);
    // Stored again: the page's 5 fields and 3 documents logged as deleted, new rows with the same ids.
    store(s, run, reviewed('INV-2026-0099'), 5);
    // (On the engine's thread nothing can apply them before this line; in the worker, something could.)
    if (!searchWorker) expect(logged(s)).toHaveLength(8);
    await expect.poll(() => ({ changes: watermark(s.searchDb).changes, log: logged(s).length }), POLL).toEqual({ changes: 8, log: 0 });
    expect(matching(s.searchDb, 'field_search', 'INV-2026-0099')).toEqual([7]);
    expect(matching(s.searchDb, 'field_search', 'INV-2026-0042')).toEqual([2]);
    expectInStep(s);
  });

  it('a search file of this store at this schema is kept when the store opens again', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    s.results.indexForSearch();
    const id = identity(s);
    s.close();

    const again = open(QUIET);
    expect(storeId(again.searchDb)).toBe(id);
    expect(watermark(again.searchDb)).toEqual({ fields: 5, documents: 3, changes: 0 });
    expect(indexedRows(again.searchDb)).toEqual({ fields: 5, documents: 3 });
    expectInStep(again);
  });

  it('a search file deleted while the store is closed is made again from the store', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    const other = s.runs.addRun({ serviceRunId: 'run_9c1d' }).id;
    store(s, run);
    store(s, other, reviewed('INV-2026-0055'));
    s.results.indexForSearch();
    s.close();
    removeSearchFile(t.path);
    const file = searchFileOf(t.path);

    const again = open(QUIET);
    expect(existsSync(file)).toBe(true);
    expect(storeId(again.searchDb)).toBe(identity(again));
    expect(watermark(again.searchDb)).toEqual({ fields: 0, documents: 0, changes: 0 });
    expect(indexedRows(again.searchDb)).toEqual({ fields: 0, documents: 0 });
    expect(again.search('INV-2026').map((h) => h.value).sort()).toEqual(['INV-2026-0042', 'INV-2026-0055']);
    expectInStep(again);
  });

  it("another store's search file is made again, never read against this store", () => {
    const u = tempStore();
    try {
      // Another store with the same run and ids, but other words, fully indexed.
      const o = u.open({ ...QUIET, searchWorker });
      store(o, o.runs.addRun({ serviceRunId: 'run_8f2a' }).id, reviewed('INV-2026-0099'));
      o.results.indexForSearch();
      o.close();
      const s = open(QUIET);
      store(s, s.runs.addRun({ serviceRunId: 'run_8f2a' }).id);
      const id = identity(s);
      s.close();
      copyFileSync(searchFileOf(u.path), searchFileOf(t.path));
      // Read as it is, it would say every row of this store is indexed, with the other store's words.
      const raw = rawSearchFile();
      expect(storeId(raw)).not.toBe(id);
      expect(watermark(raw)).toEqual({ fields: 5, documents: 3, changes: 0 });
      raw.close();

      const again = open(QUIET);
      expect(storeId(again.searchDb)).toBe(id);
      expect(watermark(again.searchDb)).toEqual({ fields: 0, documents: 0, changes: 0 });
      expect(indexedRows(again.searchDb)).toEqual({ fields: 0, documents: 0 });
      expect(again.search('INV-2026-0099')).toEqual([]);
      expect(matching(again.searchDb, 'field_search', 'INV-2026-0099')).toEqual([]);
      expect(again.search('INV-2026-0042').map((h) => h.value)).toEqual(['INV-2026-0042']);
      expectInStep(again);
    } finally {
      u.cleanup();
    }
  });

  it("a store whose identity changed (a copy made another store) gets its search file made again", () => {
    indexedAndClosed();
    const raw = openDatabase(t.path);
    raw.prepare("UPDATE store_identity SET id = '0123456789abcdef0123456789abcdef'").run();
    raw.close();

    const again = open(QUIET);
    expect(storeId(again.searchDb)).toBe('0123456789abcdef0123456789abcdef');
    expect(watermark(again.searchDb)).toEqual({ fields: 0, documents: 0, changes: 0 });
    expect(indexedRows(again.searchDb)).toEqual({ fields: 0, documents: 0 });
    expect(again.search('Café').map((h) => h.value)).toEqual(['Café Olé']);
    expectInStep(again);
  });

  it('a search file that is not a database is made again, and nothing throws', () => {
    indexedAndClosed();
    writeFileSync(searchFileOf(t.path), 'not a database, whatever its name says. '.repeat(200));

    const again = open(QUIET);
    expect(again.searchDb.pragma('user_version', { simple: true })).toBe(SEARCH_SCHEMA);
    expect(storeId(again.searchDb)).toBe(identity(again));
    expect(watermark(again.searchDb)).toEqual({ fields: 0, documents: 0, changes: 0 });
    expect(again.search('Café').map((h) => h.value)).toEqual(['Café Olé']);
    expectInStep(again);
  });

  it('a search file at another schema version is made again', () => {
    indexedAndClosed();
    const raw = rawSearchFile();
    // A row no store holds: kept, it would be one row too many in the index.
    raw.prepare("INSERT INTO field_search (rowid, value, name, joined) VALUES (999, 'Quokka', 'stale', '')").run();
    raw.pragma(`user_version = ${SEARCH_SCHEMA + 1}`);
    raw.close();

    const again = open(QUIET);
    expect(again.searchDb.pragma('user_version', { simple: true })).toBe(SEARCH_SCHEMA);
    expect(watermark(again.searchDb)).toEqual({ fields: 0, documents: 0, changes: 0 });
    again.results.indexForSearch();
    expect(matching(again.searchDb, 'field_search', 'Quokka')).toEqual([]);
    expectInStep(again);
  });

  it('a search file damaged past its first pages is made again: at open, or when a search meets the damage', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    for (let offset = 0; offset < 250; offset += 5) store(s, run, resultsPage(), offset);
    s.results.indexForSearch();
    s.close();
    const damage = (fromPage: number) => {
      const bytes = readFileSync(searchFileOf(t.path));
      bytes.fill(0x5a, fromPage * 4096);
      writeFileSync(searchFileOf(t.path), bytes);
    };
    // Its schema and watermark readable, an index's root not: found as the store opens.
    damage(2);
    const a = open(QUIET);
    expect(a.search('Café')).toHaveLength(50);
    expectInStep(a);
    a.close();
    // Only index pages damaged: the store opens, and the first search that reads them makes the file again.
    damage(10);
    const b = open(QUIET);
    expect(b.search('Café')).toHaveLength(50);
    expect(b.search('INV-2026-0042')).toHaveLength(50);
    expectInStep(b);
  });

  it('a store restored from an older copy of itself, beside its newer search file, gets the search file made again', () => {
    const run = indexedAndClosed();
    copyFileSync(t.path, `${t.path}.bak`);
    const later = open(QUIET);
    store(later, run, reviewed('INV-2026-0099'));
    later.results.indexForSearch();
    later.close();
    copyFileSync(`${t.path}.bak`, t.path);

    const again = open(QUIET);
    expect(again.search('INV-2026-0099').map((h) => h.value)).toEqual([]);
    expect(again.search('INV-2026-0042').map((h) => h.value)).toEqual(['INV-2026-0042']);
    again.db.prepare("UPDATE fields SET value = 'Café Noir' WHERE value = 'Café Olé'").run();
    expect(again.search('Noir').map((h) => h.value)).toEqual(['Café Noir']);
    expectInStep(again);
  });

  it('a store restored from an older copy with fewer results and no change since gets the search file made again', () => {
    const s = open(QUIET);
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    store(s, run);
    s.close();
    copyFileSync(t.path, `${t.path}.bak`);
    const later = open(QUIET);
    store(later, run, reviewed('INV-2026-0099'), 5);
    later.results.indexForSearch();
    later.close();
    copyFileSync(`${t.path}.bak`, t.path);

    const again = open(QUIET);
    expect(again.search('INV-2026-0099')).toEqual([]);
    // Stored again under the ids the newer copy had used: found with its own words.
    store(again, run, reviewed('INV-2026-0077'), 5);
    expect(again.search('INV-2026-0077').map((h) => h.value)).toEqual(['INV-2026-0077']);
    expect(again.search('INV-2026-0099')).toEqual([]);
    expectInStep(again);
  });

  it('closing the store while units wait leaves a consistent search file, and nothing open on the files', () => {
    const s = open({ searchBatchRows: 8, searchIdleMs: 60_000 });
    const run = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    for (let offset = 0; offset < 2000; offset += 5) store(s, run, resultsPage(), offset);
    s.close();
    // Every connection closed, the worker's too: the last one to close removes each WAL file.
    expect(existsSync(`${searchFileOf(t.path)}-wal`)).toBe(false);
    expect(existsSync(`${t.path}-wal`)).toBe(false);

    const raw = rawSearchFile();
    const mark = watermark(raw);
    // Index and watermark agree however far the indexing got: every row up to the watermark, no other.
    expect(indexedRows(raw)).toEqual({ fields: mark.fields, documents: mark.documents });
    // On the engine's thread, all of it, by the pages that brought 8 fields or more.
    if (!searchWorker) expect(mark.fields).toBe(2000);
    integrity(raw);
    raw.close();

    // Opened again (with units waiting, the worker starts at open), caught up on this thread meanwhile.
    const again = open({ searchBatchRows: 8, searchIdleMs: 60_000 });
    again.results.indexForSearch();
    expect(indexedRows(again.searchDb)).toEqual({ fields: 2000, documents: 1200 });
    expectInStep(again);

    // Closed with units waiting again, the directory can go at once.
    for (let offset = 2000; offset < 3000; offset += 5) store(again, run, resultsPage(), offset);
    again.close();
    expect(existsSync(`${searchFileOf(t.path)}-wal`)).toBe(false);
    rmSync(t.dir, { recursive: true });
    expect(existsSync(t.dir)).toBe(false);
  });
});

describe('the search file connection', () => {
  // better-sqlite3's 16 MB default was a third page cache beside the store's (bench:hot-folder's peak, issue 14).
  it('keeps a page cache of 2 MB for the search file and for the store attached to it', () => {
    const s = t.open();
    expect(s.searchDb.pragma('main.cache_size', { simple: true })).toBe(-2000);
    expect(s.searchDb.pragma('store.cache_size', { simple: true })).toBe(-2000);
    // The store's own connection keeps its larger cache: pages are stored through it.
    expect(s.db.pragma('cache_size', { simple: true })).toBe(-16000);
  });
});

describe('worker and engine thread', () => {
  /** The same stores, re-stores, edits and deletes, with searches between; what the index holds at the end. */
  async function sequence(s: Store, searchWorker: boolean) {
    const a = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
    const b = s.runs.addRun({ serviceRunId: 'run_9c1d' }).id;
    for (let offset = 0; offset < 30; offset += 5) store(s, a, reviewed(`INV-2026-${1000 + offset}`), offset);
    // In the worker: the last fields, below the batch size, indexed after the pause with this thread blocked.
    if (searchWorker) blockedUntil(() => watermark(s.searchDb).fields === 30, 'the worker indexes the first pages');
    store(s, b, resultsPage(), 0);
    // A page in the middle stored again (rows deleted in the middle, new ids at the end), then the last one (same ids).
    store(s, a, reviewed('INV-2026-0100'), 10);
    expect(s.search('INV-2026-0100')).toHaveLength(1);
    store(s, b, reviewed('INV-2026-0200'), 0);
    await new Promise((r) => setTimeout(r, 30));
    // Edits to rows of both runs (run a's go with it below).
    const ofRun = (r: number) => `(SELECT d.id FROM documents d JOIN result_files rf ON rf.id = d.result_file_id WHERE rf.run_id = ${r})`;
    s.db.prepare(`UPDATE fields SET value = 'Café Noir' WHERE value = 'Café Olé' AND document_id IN ${ofRun(b)}`).run();
    s.db.prepare(`UPDATE fields SET value = 'Café Crème' WHERE value = 'Café Olé' AND document_id IN ${ofRun(a)}`).run();
    s.db.prepare(`UPDATE documents SET class_name = 'Quittung' WHERE class_name = 'Receipt' AND id IN ${ofRun(b)}`).run();
    s.db.prepare(`UPDATE documents SET class_name = 'Brief' WHERE class_name = 'Cover Letter' AND id IN ${ofRun(a)}`).run();
    s.db.prepare("UPDATE result_files SET original_file_name = 'Beleg.pdf' WHERE run_id = ? AND original_file_name = 'scan_0007.pdf'").run(b);
    for (let offset = 30; offset < 50; offset += 5) store(s, b, resultsPage(), offset);
    expect(s.search('Quittung').length).toBeGreaterThan(0);
    s.db.prepare('DELETE FROM result_pages WHERE run_id = ? AND file_offset IN (5, 20)').run(a);
    for (let offset = 50; offset < 60; offset += 5) store(s, b, reviewed(`INV-2026-${2000 + offset}`), offset);
    await new Promise((r) => setTimeout(r, 30));
    s.db.prepare('DELETE FROM runs WHERE id = ?').run(a);
    store(s, b, reviewed('INV-2026-0300'), 45);
    s.results.indexForSearch();
    expectInStep(s);
    const { store_id: _, ...mark } = s.searchDb.prepare('SELECT * FROM search_state').get() as Record<string, unknown>;
    return {
      content: indexContent(s.searchDb), rows: indexedRows(s.searchDb), mark,
      hits: ['INV-2026', 'Café', 'Noir', 'Quittung', 'Receipt', 'Beleg', 'Müller', 'Cover Letter', 'INV-2026-0300'].map((q) => hits(s, q)),
      gone: ['Crème', 'Brief'].map((q) => hits(s, q)),
    };
  }

  it('end in the same index for the same operations', async () => {
    const u = tempStore();
    try {
      const inWorker = await sequence(t.open({ searchBatchRows: 8, searchIdleMs: 20, searchWorker: true }), true);
      const inThread = await sequence(u.open({ searchBatchRows: 8, searchIdleMs: 20, searchWorker: false }), false);
      expect(inWorker.rows).toEqual({ fields: 35, documents: 21 });
      expect(inWorker.hits.map((h) => h.length > 0)).toEqual(inWorker.hits.map(() => true));
      expect(inWorker.gone).toEqual([[], []]);
      expect(inWorker).toEqual(inThread);
    } finally {
      u.cleanup();
    }
  });
});

describe('010 to 019: a store at 010 with results in it', () => {
  it('keeps its results searchable through the search file, and indexes what comes after', () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, MIGRATIONS.indexOf(searchWatermark)));
    const { id: runId } = old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number };
    resultsQueries(old).storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
    // As 010's code indexed each page after storing it.
    old.exec(`INSERT INTO document_search (rowid, class_name, file_name, joined)
      SELECT d.id, d.class_name, rf.original_file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name)) FROM documents d JOIN result_files rf ON rf.id = d.result_file_id;
      INSERT INTO field_search (rowid, value, name, joined) SELECT id, value, name, joined_words(value) FROM fields;`);
    old.close();

    const s = t.open(QUIET);
    // The store's own indexes are gone (019); the search file starts empty and fills from the store.
    expect(s.db.prepare("SELECT name FROM sqlite_master WHERE name IN ('field_search', 'document_search', 'search_watermark')").all()).toEqual([]);
    expect(watermark(s.searchDb)).toEqual({ fields: 0, documents: 0, changes: 0 });
    expect(s.search('INV-2026-00').map((h) => h.snippet)).toEqual(['[INV-2026-0042]']);
    expect(watermark(s.searchDb)).toEqual({ fields: 5, documents: 3, changes: 0 });
    const run2 = s.runs.addRun({ serviceRunId: 'run_9c1d' }).id;
    store(s, run2, reviewed('INV-2026-0099'));
    expect(indexedRows(s.searchDb)).toEqual({ fields: 5, documents: 3 });
    // The old run's rows go from the index when re-fetched; the new ones wait, then are found.
    store(s, runId, reviewed('INV-2026-0077'));
    expect(s.search('INV-2026').map((h) => h.value).sort()).toEqual(['INV-2026-0077', 'INV-2026-0099']);
    expectInStep(s);
  });
});
