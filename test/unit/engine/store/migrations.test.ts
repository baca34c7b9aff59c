/**
 * Opening the store (issue 4, "Local store"): WAL and the connection settings, numbered
 * migrations tracked with PRAGMA user_version, upgrades from an older schema, re-opening as a
 * no-op, and no column that could hold a credential.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MIGRATIONS, StoreVersionError, migrate, openDatabase, userVersion,
} from '../../../../electron/engine/store/index.js';
import { resultsQueries } from '../../../../electron/engine/store/results.js';
import { parseResultsPage } from '../../../../shared/service/index.js';
import { serviceShapes } from '../../../../electron/engine/store/migrations/006-service-shapes.js';
import { searchIngest } from '../../../../electron/engine/store/migrations/010-search-ingest.js';
import { searchWatermark } from '../../../../electron/engine/store/migrations/011-search-watermark.js';
import { searchPrefixes } from '../../../../electron/engine/store/migrations/012-search-prefixes.js';
import { sharedFolders } from '../../../../electron/engine/store/migrations/014-shared-folders.js';
import { caseFieldsOnce } from '../../../../electron/engine/store/migrations/015-case-fields-once.js';
import { caseInfoOnce } from '../../../../electron/engine/store/migrations/017-case-info-once.js';
import { rawPagesDeflated } from '../../../../electron/engine/store/migrations/018-raw-pages-deflated.js';
import { searchFile } from '../../../../electron/engine/store/migrations/019-search-file.js';
import { searchFileOf } from '../../../../electron/engine/store/search-file.js';
import type { Store } from '../../../../electron/engine/store/index.js';
import { ftsRows } from '../../../helpers/fts-rows.js';
import { resultsPage, tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
beforeEach(() => { t = tempStore(); });
afterEach(() => t.cleanup());

const schema = (s: { db: { prepare(sql: string): { all(): unknown[] } } }) =>
  s.db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all();

describe('openStore: connection settings', () => {
  it('creates the data directory and opens the database in WAL mode with foreign keys, busy_timeout and synchronous NORMAL', () => {
    const s = t.open({ busyTimeoutMs: 1234 });
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(s.db.pragma('busy_timeout', { simple: true })).toBe(1234);
    expect(s.db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
  });

  it('foreign keys are enforced: an event for a file that does not exist is refused', () => {
    const s = t.open();
    expect(() => s.db.prepare("INSERT INTO file_events (file_id, to_state, at_ms) VALUES (999, 'stable', 1)").run()).toThrow(/FOREIGN KEY/);
  });
});

describe('migrations: numbered, in order, tracked with user_version', () => {
  it('a new database is migrated to the latest version', () => {
    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    expect(MIGRATIONS.length).toBeGreaterThanOrEqual(2);
  });

  it('re-opening a current database applies nothing and leaves the schema and data as they were', () => {
    const a = t.open();
    a.folders.add({ path: '/in', deploymentId: 'd1' });
    const before = schema(a);
    a.close();
    const db = openDatabase(t.path);
    expect(migrate(db)).toEqual([]);
    db.close();
    const b = t.open();
    expect(userVersion(b.db)).toBe(MIGRATIONS.length);
    expect(schema(b)).toEqual(before);
    expect(b.folders.list().map((f) => f.path)).toEqual(['/in']);
  });

  it('a database at version 1 with results in it upgrades to the latest, and the search index covers the old rows', () => {
    // Only the tables of version 1 exist, so the data goes in through the queries that version had:
    // the runs and results modules (later query modules may use later columns).
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, 1));
    expect(userVersion(old)).toBe(1);
    expect(old.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'search_index'").get()).toEqual({ n: 0 });
    const { id: runId } = old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number };
    resultsQueries(old).storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
    old.close();

    const db = openDatabase(t.path);
    expect(migrate(db)).toEqual(Array.from({ length: MIGRATIONS.length - 1 }, (_, i) => i + 2));
    db.close();
    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    const hits = s.search('INV-2026-0042');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ kind: 'field', fieldName: 'invoice_number', serviceRunId: 'run_8f2a' });
    expect(s.search('Cover Letter').map((h) => h.kind)).toEqual(['document']);
    // 004 replaced 002's single index by a field index and a document index over the same rows.
    expect(s.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'search_index'").get()).toEqual({ n: 0 });
    for (const t of ['field_search', 'document_search']) s.searchDb.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 1)`).run();
    expect({ f: ftsRows(s.searchDb, 'field_search'), d: ftsRows(s.searchDb, 'document_search') }).toEqual({ f: 5, d: 3 });
  });

  it('a database at version 3 keeps its searchable results through 004', () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, 3));
    const { id: runId } = old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number };
    resultsQueries(old).storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
    expect(old.prepare("SELECT count(*) AS n FROM search_index WHERE search_index MATCH 'Bürobedarf'").get()).toEqual({ n: 1 });
    old.close();
    const s = t.open();
    expect(s.search('Bürobedarf').map((h) => [h.fieldName, h.snippet])).toEqual([['supplier_name', 'Müller [Bürobedarf] GmbH']]);
    expect(s.search('scan_0007').map((h) => h.className)).toEqual(['Receipt', 'Cover Letter']);
  });

  it('a database at version 7 gets its stored words indexed joined by 008: "INV-2026-00" and "1,234.50" find them', () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, 7));
    const { id: runId } = old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number };
    resultsQueries(old).storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
    old.close();
    const s = t.open();
    expect(s.search('INV-2026-00').map((h) => [h.fieldName, h.snippet])).toEqual([['invoice_number', '[INV-2026-0042]']]);
    expect(s.search('1,234.50').map((h) => h.fieldName)).toEqual(['total_amount']);
    expect(s.search('scan_00').map((h) => h.className)).toEqual(['Receipt', 'Cover Letter']);
    for (const t of ['field_search', 'document_search']) s.searchDb.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 1)`).run();
  });

  it('a migration that fails leaves the database at the version before it, with nothing of it applied', () => {
    const db = openDatabase(t.path);
    const broken = [...MIGRATIONS.slice(0, 1), (d: typeof db) => { d.exec('CREATE TABLE half_done (x)'); throw new Error('boom'); }];
    expect(() => migrate(db, broken)).toThrow('boom');
    expect(userVersion(db)).toBe(1);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half_done'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('a database from a newer DocSync is refused and left untouched', () => {
    const db = openDatabase(t.path);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => t.open()).toThrow(StoreVersionError);
    const again = openDatabase(t.path);
    expect(userVersion(again)).toBe(MIGRATIONS.length + 1);
    expect(again.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'files'").get()).toEqual({ n: 0 });
    again.close();
  });
});

describe('006: the service\'s shapes (issue 11)', () => {
  const before006 = () => MIGRATIONS.slice(0, MIGRATIONS.indexOf(serviceShapes));

  /** A store just before 006 holding one run in the older sandbox's shapes and one in the service's. */
  function oldStore(): { oldRun: number; newRun: number } {
    const old = openDatabase(t.path);
    migrate(old, before006());
    const run = (id: string) => (old.prepare('INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES (?, 0, 0) RETURNING id').get(id) as { id: number }).id;
    const oldRun = run('run_old');
    const newRun = run('run_new');
    // The older sandbox: page_numbers from 0, chosen_field a bare name (written here as that version did).
    const files = (resultsPage().files as { documents: { page_numbers: number[] }[] }[]).map((f) => ({ ...f, documents: f.documents.map((d) => ({ ...d, page_numbers: d.page_numbers.map((n) => n - 1) })) }));
    const oldPage = resultsPage({ files });
    resultsQueries(old).storeResultsPage(oldRun, oldPage, parseResultsPage(oldPage), 0);
    old.prepare("UPDATE case_fields SET chosen_field = 'total_amount' WHERE chosen_field IS NOT NULL").run();
    resultsQueries(old).storeResultsPage(newRun, resultsPage(), parseResultsPage(resultsPage()), 0);
    old.close();
    return { oldRun, newRun };
  }

  it('results of the older sandbox (pages from 0) count from 1 afterwards; the service\'s are left as they were', () => {
    const { oldRun, newRun } = oldStore();
    const s = t.open();
    const pages = (run: number) => s.results.filesOfRun(run).map((f) => f.documents.map((d) => d.pageNumbers));
    expect(pages(oldRun)).toEqual([[[1, 2]], [[1], [2, 3]]]);
    expect(pages(newRun)).toEqual([[[1, 2]], [[1], [2, 3]]]);
    // Boxes and the raw pages are untouched: they count from 0 in both shapes, and raw stays as received.
    expect(s.results.filesOfRun(oldRun)[0]!.documents[0]!.fields[2]!.sourceCoordinates[0]!.page_number).toBe(1);
    expect((s.results.rawPages(oldRun)[0]!.raw as { files: { documents: { page_numbers: number[] }[] }[] }).files[0]!.documents[0]!.page_numbers).toEqual([0, 1]);
  });

  it('a bare chosen_field name becomes the object of its input; objects stay; run records get a column', () => {
    const { oldRun, newRun } = oldStore();
    const s = t.open();
    expect(s.results.caseFields(oldRun).map((c) => c.chosenField)).toEqual([{ record_index: 0, refined_phrase_name: 'total_amount' }, null]);
    expect(s.results.caseFields(newRun).map((c) => c.chosenField)).toEqual([{ record_index: 0, refined_phrase_name: 'total_amount' }, null]);
    expect(s.runs.run(oldRun)?.record).toBeNull();
    expect(() => s.db.prepare("UPDATE runs SET record_json = 'not json' WHERE id = ?").run(oldRun)).toThrow(/CHECK/);
  });
});

describe('010: a page indexed at once, not row by row (issue 14)', () => {
  const before010 = () => MIGRATIONS.slice(0, MIGRATIONS.indexOf(searchIngest));
  const triggers = (db: { prepare(sql: string): { all(): unknown[] } }) =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%search%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  const integrity = (s: { searchDb: { prepare(sql: string): { run(): unknown } } }) => {
    for (const t of ['field_search', 'document_search']) s.searchDb.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 1)`).run();
  };

  it('results stored before stay searchable; results stored after are indexed once, by the store instead of insert triggers', () => {
    const old = openDatabase(t.path);
    migrate(old, before010());
    expect(triggers(old)).toContain('fields_search_insert');
    const { id: runId } = old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number };
    resultsQueries(old).storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
    old.close();

    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    // Inserts are indexed by storeResultsPage now; deletes and updates still by triggers.
    expect(triggers(s.db)).toEqual(['documents_search_delete', 'documents_search_update', 'fields_search_delete', 'fields_search_update', 'result_files_search_update']);
    expect(s.searchDb.prepare("SELECT v FROM field_search_config WHERE k = 'automerge'").get()).toEqual({ v: 16 });
    expect(s.search('INV-2026-00').map((h) => [h.serviceRunId, h.snippet])).toEqual([['run_8f2a', '[INV-2026-0042]']]);

    // A second run's copy of the same page: both found, each field and document once.
    const run2 = s.runs.addRun({ serviceRunId: 'run_9c1d' }).id;
    s.results.storeResultsPage(run2, resultsPage(), parseResultsPage(resultsPage()), 0);
    expect(s.search('INV-2026-00').map((h) => h.serviceRunId).sort()).toEqual(['run_8f2a', 'run_9c1d']);
    expect(s.search('Cover Letter').map((h) => [h.kind, h.serviceRunId]).sort()).toEqual([['document', 'run_8f2a'], ['document', 'run_9c1d']]);
    integrity(s);
    const counts = () => ({ f: ftsRows(s.searchDb, 'field_search'), ...(s.searchDb.prepare('SELECT (SELECT count(*) FROM fields) AS fields, (SELECT count(*) FROM document_search) AS d, (SELECT count(*) FROM documents) AS docs').get() as Record<string, number>) });
    expect(counts()).toEqual({ f: 10, fields: 10, d: 6, docs: 6 });

    // Stored again after a review (the delete triggers take the old rows out of the index): still once each.
    const changed = resultsPage();
    ((changed.files as { documents: { fields: { value: string }[] }[] }[])[0]!.documents[0]!.fields[1]!).value = 'INV-2026-0099';
    s.results.storeResultsPage(runId, changed, parseResultsPage(changed), 0);
    expect(s.search('INV-2026-0099').map((h) => h.serviceRunId)).toEqual(['run_8f2a']);
    expect(s.search('INV-2026-0042').map((h) => h.serviceRunId)).toEqual(['run_9c1d']);
    integrity(s);
    expect(counts()).toEqual({ f: 10, fields: 10, d: 6, docs: 6 });
  });
});

describe('014: shared folders (issue 15)', () => {
  /** A store at 011 with a folder, a batch and two files with their history, written with that version's SQL. */
  const storeAt011 = () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, MIGRATIONS.indexOf(searchWatermark) + 1));
    expect(userVersion(old)).toBe(11);
    old.exec(`
      INSERT INTO folders (id, path, deployment_id, enabled, created_ms, updated_ms) VALUES (3, '/in', 'd1', 1, 1, 1);
      INSERT INTO batches (id, folder_id, name, created_ms) VALUES (5, 3, 'docsync-b', 1);
      INSERT INTO files (id, folder_id, path, size, mtime_ms, sha256, state, original_name, batch_id, created_ms, updated_ms)
        VALUES (41, 3, '/in/a.pdf', 10, 1, 'aa', 'done', 'a.pdf', 5, 1, 2), (42, 3, '/in/b.pdf', 20, 1, 'bb', 'queued', 'b.pdf', NULL, 1, 2);
      INSERT INTO file_events (file_id, from_state, to_state, at_ms) VALUES (41, NULL, 'discovered', 1), (41, 'discovered', 'done', 2), (42, NULL, 'queued', 1);
    `);
    const indexes = old.prepare("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'files' AND type = 'index' ORDER BY name").all();
    old.close();
    return indexes;
  };

  it('a store at 011 with files and history keeps them (same ids), gains the state "elsewhere" and handled_by, and keeps its indexes and references', () => {
    const indexes = storeAt011();
    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    expect(MIGRATIONS.indexOf(sharedFolders)).toBe(13);
    expect(s.files.list().map((f) => [f.id, f.state, f.batchId, f.folderId, f.handledBy])).toEqual([[41, 'done', 5, 3, null], [42, 'queued', null, 3, null]]);
    expect(s.files.history(41).map((e) => e.toState)).toEqual(['discovered', 'done']);
    expect(s.db.prepare("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'files' AND type = 'index' ORDER BY name").all()).toEqual(indexes);
    // The new state is taken, and a state that does not exist is still refused.
    const moved = s.files.transition(42, 'elsewhere');
    s.files.setHandledBy(42, 'scanner-2');
    expect(moved.state).toBe('elsewhere');
    expect(s.files.get(42)).toMatchObject({ state: 'elsewhere', handledBy: 'scanner-2' });
    expect(() => s.files.transition(42, 'lost' as never)).toThrow(/CHECK/);
    expect(s.files.countByState()).toMatchObject({ done: 1, elsewhere: 1 });
    // References still hold both ways: events point at the files, deleting a batch lets go of its files.
    expect(s.db.pragma('foreign_key_check')).toEqual([]);
    expect(() => s.db.prepare("INSERT INTO file_events (file_id, to_state, at_ms) VALUES (999, 'stable', 1)").run()).toThrow(/FOREIGN KEY/);
    s.db.prepare('DELETE FROM batches WHERE id = 5').run();
    expect(s.files.get(41)?.batchId).toBeNull();
    s.db.prepare('DELETE FROM files WHERE id = 41').run();
    expect(s.files.history(41)).toEqual([]);
    // A new file's id follows the old ones.
    expect(s.files.add({ path: '/in/c.pdf', size: 1, mtimeMs: 1, originalName: 'c.pdf' }).id).toBe(43);
  });

  it('the agent id is made once per data home and kept across openings', () => {
    const a = t.open();
    const id = a.share.agentId();
    expect(id).toMatch(/^[A-Za-z0-9._-]+-[0-9a-f]{8}$/);
    expect(a.share.agentId()).toBe(id);
    a.close();
    expect(t.open().share.agentId()).toBe(id);
  });
});

describe('012: search indexes with fewer prefix lengths and no column sizes (issue 14, third round)', () => {
  const ddl = (db: { prepare(sql: string): { get(): unknown } }, name: string) =>
    (db.prepare(`SELECT sql FROM sqlite_master WHERE name = '${name}'`).get() as { sql: string } | undefined)?.sql;

  it('a store at 011 with results indexed and results waiting is made again: every row indexed once, found as before', () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, MIGRATIONS.indexOf(searchPrefixes)));
    expect(ddl(old, 'field_search')).toContain("prefix = '3 4 5 6 7 8 9 10 11 12'");
    const { id: runId } = old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number };
    const results = resultsQueries(old, Date.now, { searchBatchRows: 1e9 });
    results.storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
    results.indexForSearch();
    // The second page waits above the watermark, as after a quit during a download.
    results.storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 5);
    results.stopIndexing();
    expect(old.prepare("SELECT last_id AS n FROM search_watermark WHERE tbl = 'fields'").get()).toEqual({ n: 5 });
    old.close();

    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    // From 019 the indexes are in the search file, made again from the store's rows (search-file.ts).
    s.results.indexForSearch();
    for (const x of ['field_search', 'document_search']) {
      expect(ddl(s.searchDb, x)).toContain("prefix = '3 4 5 6 7 8 10', columnsize = 0");
      expect(ddl(s.searchDb, `${x}_docsize`)).toBeUndefined();
      s.searchDb.prepare(`INSERT INTO ${x} (${x}, rank) VALUES ('integrity-check', 1)`).run();
    }
    expect(s.searchDb.prepare("SELECT k, v FROM field_search_config WHERE k IN ('automerge', 'hashsize') ORDER BY k").all()).toEqual([{ k: 'automerge', v: 16 }, { k: 'hashsize', v: 8388608 }]);
    expect({ f: ftsRows(s.searchDb, 'field_search'), d: ftsRows(s.searchDb, 'document_search') }).toEqual({ f: 10, d: 6 });
    expect(s.searchDb.prepare('SELECT documents_id, fields_id FROM search_state').all()).toEqual([{ documents_id: 6, fields_id: 10 }]);

    // Prefixes with an index of their length (3-8, 10) and without (9, 11): the same hits.
    const found = (q: string) => s.search(q).map((h) => h.snippet);
    expect(found('Bürobedarf')).toEqual(['Müller [Bürobedarf] GmbH', 'Müller [Bürobedarf] GmbH']);
    expect(found('Bürobedar')).toEqual(found('Bürobedarf'));
    expect(found('Bürobe')).toEqual(found('Bürobedarf'));
    expect(found('INV-2026-00')).toEqual(['[INV-2026-0042]', '[INV-2026-0042]']);
    expect(found('INV-2026-004')).toEqual(found('INV-2026-00'));
    // Few matches are still scored (bm25 reads column sizes from the text now).
    expect(s.search('Café').map((h) => h.rank < 0)).toEqual([true, true]);

    // Stored after the migration: indexed above the watermark as before.
    s.results.storeResultsPage(s.runs.addRun({ serviceRunId: 'run_9c1d' }).id, resultsPage(), parseResultsPage(resultsPage()), 0);
    expect(s.search('INV-2026-0042').map((h) => h.serviceRunId)).toEqual(['run_9c1d', 'run_8f2a', 'run_8f2a']);
    expect(ftsRows(s.searchDb, 'field_search')).toBe(15);
  });
});

describe('015: one copy of a run\'s case fields', () => {
  it('a store at 014 that kept every page\'s copy keeps the newest page\'s, per run', () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, MIGRATIONS.indexOf(caseFieldsOnce)));
    const results = resultsQueries(old, Date.now, { searchBatchRows: 1e9 });
    const runs = ['run_8f2a', 'run_9c1d'].map((id) => (old.prepare('INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES (?, 0, 0) RETURNING id').get(id) as { id: number }).id);
    for (const runId of runs) for (const offset of [0, 2, 4]) results.storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), offset);
    // As the code before 015 stored them: each page's copy (case_total, case_due) kept.
    old.exec(`INSERT INTO case_fields (page_id, run_id, idx, name, value, chosen_field, error_msg, valid, failures_json, input_fields_json)
      SELECT p.id, p.run_id, c.idx, c.name, c.value, c.chosen_field, c.error_msg, c.valid, c.failures_json, c.input_fields_json
      FROM result_pages p JOIN case_fields c ON c.run_id = p.run_id WHERE p.file_offset < 4`);
    results.stopIndexing();
    expect(old.prepare('SELECT COUNT(*) FROM case_fields').pluck().get()).toBe(12);
    old.close();

    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    for (const runId of runs) expect(s.results.caseFields(runId).map((c) => c.name)).toEqual(['case_total', 'case_due']);
  });
});

describe('017: one whole copy of a run\'s case_info in its raw pages', () => {
  it('a store at 016 that kept case_info in every page keeps it in the page with the case fields (else the last), null in the others, the rest of each text as received', () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, MIGRATIONS.indexOf(caseInfoOnce)));
    const results = resultsQueries(old, Date.now, { searchBatchRows: 1e9 });
    const runs = ['run_8f2a', 'run_9c1d', 'run_none'].map((id) => (old.prepare('INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES (?, 0, 0) RETURNING id').get(id) as { id: number }).id);
    const [withCases, reviewed, none] = runs as [number, number, number];
    // Texts as a service may send them: compact, and indented (white space kept as received).
    const text = (raw: Record<string, unknown>, indent?: number): string => JSON.stringify(raw, null, indent);
    const store = (runId: number, offset: number, raw: Record<string, unknown>, indent?: number): void => {
      results.storeResultsPage(runId, raw, parseResultsPage(raw), offset, text(raw, indent));
    };
    for (const offset of [0, 2, 4]) store(withCases, offset, resultsPage({ has_more: offset < 4 }), offset === 2 ? 2 : undefined);
    // Re-fetched after a review: the page at offset 0 stored again last, its copy holds the case fields.
    for (const offset of [2, 0]) store(reviewed, offset, resultsPage({ has_more: offset < 2 }));
    for (const offset of [0, 2]) store(none, offset, resultsPage({ case_info: { fields: [] }, has_more: offset < 2 }));
    const before = new Map(old.prepare<[], { id: number; run_id: number; file_offset: number; raw_json: string }>('SELECT id, run_id, file_offset, raw_json FROM result_pages').all().map((r) => [r.id, r]));
    const cases = old.prepare('SELECT * FROM case_fields ORDER BY id').all();
    results.stopIndexing();
    old.close();

    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    const kept = (runId: number, offset: number): boolean => [...before.values()].some((r) => r.run_id === runId && r.file_offset === offset);
    expect(kept(withCases, 4) && kept(reviewed, 0) && kept(none, 2)).toBe(true);
    const whole = new Set(['4', '0', '2'].map((o, i) => `${runs[i]}:${o}`));
    for (const r of s.db.prepare<[], { id: number; run_id: number; file_offset: number; raw_json: string }>('SELECT id, run_id, file_offset, raw_json FROM result_pages').all()) {
      const was = before.get(r.id)!;
      const raw = JSON.parse(was.raw_json) as Record<string, unknown>;
      if (whole.has(`${r.run_id}:${r.file_offset}`)) {
        expect(r.raw_json).toBe(was.raw_json);
      } else {
        // Only the value replaced: the indented page keeps its indentation, the compact one its form.
        const value = r.file_offset === 2 && r.run_id === withCases ? JSON.stringify(raw.case_info, null, 2).replace(/\n/g, '\n  ') : JSON.stringify(raw.case_info);
        expect(was.raw_json).toContain(value);
        expect(r.raw_json).toBe(was.raw_json.replace(value, 'null'));
        expect(JSON.parse(r.raw_json)).toEqual({ ...raw, case_info: null });
      }
    }
    // The case fields themselves untouched (015's copy), and still read.
    expect(s.db.prepare('SELECT * FROM case_fields ORDER BY id').all()).toEqual(cases);
    expect(s.results.caseFields(withCases).map((c) => c.name)).toEqual(['case_total', 'case_due']);
    expect(s.results.caseFields(reviewed).map((c) => c.name)).toEqual(['case_total', 'case_due']);
  });
});

describe('018: results pages kept deflated', () => {
  it('pages stored as text before 018 still read back; pages stored after are deflated; both side by side in one run', () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, MIGRATIONS.indexOf(rawPagesDeflated)));
    const results = resultsQueries(old, Date.now, { searchBatchRows: 1e9 });
    const runId = (old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number }).id;
    const first = resultsPage({ has_more: true, case_info: null });
    const text = JSON.stringify(first, null, 2);
    results.storeResultsPage(runId, first, parseResultsPage(first), 0, text);
    results.stopIndexing();
    expect(old.prepare('SELECT raw_json FROM result_pages').pluck().get()).toBe(text);
    old.close();

    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    const last = resultsPage();
    s.results.storeResultsPage(runId, last, parseResultsPage(last), 2, JSON.stringify(last));
    expect(s.db.prepare('SELECT file_offset, raw_json, raw_deflated IS NULL AS text FROM result_pages ORDER BY file_offset').all())
      .toEqual([{ file_offset: 0, raw_json: text, text: 1 }, { file_offset: 2, raw_json: '', text: 0 }]);
    expect(s.results.rawPages(runId)).toEqual([{ fileOffset: 0, raw: first }, { fileOffset: 2, raw: last }]);
  });
});

describe('019: the search indexes in a file of their own (issue 14, sixth round)', () => {
  const names = (db: { prepare(sql: string): { all(): unknown[] } }, type: string) =>
    (db.prepare(`SELECT name FROM main.sqlite_master WHERE type = '${type}' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);

  it('a store at 018 with results indexed and waiting keeps them; its indexes go to the search file, which indexes every row once', () => {
    const old = openDatabase(t.path);
    migrate(old, MIGRATIONS.slice(0, MIGRATIONS.indexOf(searchFile)));
    const runId = (old.prepare("INSERT INTO runs (service_run_id, created_ms, updated_ms) VALUES ('run_8f2a', 0, 0) RETURNING id").get() as { id: number }).id;
    const results = resultsQueries(old, Date.now, { searchBatchRows: 1e9 });
    results.storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
    results.indexForSearch();
    results.storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 5);
    results.stopIndexing();
    expect(names(old, 'table')).toContain('field_search');
    old.close();
    expect(existsSync(searchFileOf(t.path))).toBe(false);

    const s = t.open();
    expect(userVersion(s.db)).toBe(MIGRATIONS.length);
    const tables = names(s.db, 'table');
    for (const gone of ['field_search', 'document_search', 'search_watermark']) expect(tables).not.toContain(gone);
    expect(names(s.db, 'view')).not.toContain('field_search_content');
    expect(names(s.db, 'trigger').filter((n) => n.includes('search'))).toEqual(
      ['documents_search_delete', 'documents_search_update', 'fields_search_delete', 'fields_search_update', 'result_files_search_update']);
    expect(s.db.prepare('SELECT id FROM store_identity').pluck().all()).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/)]);
    expect(existsSync(searchFileOf(t.path))).toBe(true);

    s.results.indexForSearch();
    for (const x of ['field_search', 'document_search']) s.searchDb.prepare(`INSERT INTO ${x} (${x}, rank) VALUES ('integrity-check', 1)`).run();
    expect({ f: ftsRows(s.searchDb, 'field_search'), d: ftsRows(s.searchDb, 'document_search') }).toEqual({ f: 10, d: 6 });
    expect(s.search('INV-2026-0042').map((h) => h.snippet)).toEqual(['[INV-2026-0042]', '[INV-2026-0042]']);

    // A change to a stored row is logged in the store, applied to the search file, and the log emptied.
    s.db.prepare("UPDATE documents SET class_name = 'Quittung' WHERE class_name = 'Receipt'").run();
    expect(s.db.prepare("SELECT tbl, count(*) AS n FROM search_changes GROUP BY tbl").all()).toEqual([{ tbl: 'documents', n: 2 }]);
    expect(s.search('Quittung').map((h) => h.className)).toEqual(['Quittung', 'Quittung']);
    expect(s.search('Receipt')).toEqual([]);
    expect(s.db.prepare('SELECT count(*) FROM search_changes').pluck().get()).toBe(0);
  });

  it("a store's identity is made once and kept; two stores have different ones", () => {
    const id = (x: Store) => x.db.prepare('SELECT id FROM store_identity').pluck().get();
    const a = t.open();
    const first = id(a);
    a.close();
    expect(id(t.open())).toBe(first);
    const u = tempStore();
    try {
      expect(id(u.open())).not.toBe(first);
    } finally {
      u.cleanup();
    }
  });
});

describe('schema: never a credential', () => {
  it('no table or column is named like token, secret, password, credential or api key (the store and its search file)', () => {
    const s = t.open();
    const names: string[] = [];
    for (const db of [s.db, s.searchDb]) {
      const tables = db.prepare<[], { name: string }>("SELECT name FROM main.sqlite_master WHERE type IN ('table', 'view')").all();
      expect(tables.length).toBeGreaterThan(db === s.db ? 10 : 2);
      for (const { name } of tables) {
        names.push(name);
        for (const c of db.prepare<[], { name: string }>(`SELECT name FROM main.pragma_table_info('${name.replace(/'/g, "''")}')`).all()) names.push(`${name}.${c.name}`);
      }
    }
    expect(names).toContain('files.sha256');
    expect(names).toContain('search_state.fields_id');
    expect(names.filter((n) => /token|secret|passw|credential|api_?key|bearer|auth/i.test(n))).toEqual([]);
  });

  it('every table in 001 carries a doc comment', async () => {
    const { readFile } = await import('node:fs/promises');
    const sql = await readFile(new URL('../../../../electron/engine/store/migrations/001-initial.ts', import.meta.url), 'utf8');
    const tables = [...sql.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]);
    expect(tables.length).toBeGreaterThan(10);
    for (const name of tables) expect(sql, name).toMatch(new RegExp(`--[^\\n]*\\n(\\s*--[^\\n]*\\n)*\\s*CREATE TABLE ${name} `));
  });
});
