/**
 * Adds stored documents and fields to the search indexes: one INSERT ... SELECT per table per
 * results page (migration 010 dropped the insert triggers that did it row by row).
 *
 * Why not a trigger: an INSERT that fires a trigger opens a statement savepoint, and FTS5 writes
 * its pending terms to disk at every savepoint, so each field row became an index segment of its
 * own, later merged again (over a third of ingest time, measured with perf on bench/store.ts).
 * One statement per page leaves FTS5 one segment per page.
 */
import type { Db } from './db.js';

export interface SearchIndexer {
  /** Indexes these documents (ids just stored) by class and file name. */
  documents(ids: readonly number[]): void;
  /** Indexes these fields (ids just stored) by value and name. */
  fields(ids: readonly number[]): void;
}

/**
 * The indexer for `db`'s schema. A store at a version before 010 (opened by the migration tests)
 * still has triggers that index each row, or no search index at all: nothing to do then.
 */
export function searchIndexer(db: Db): SearchIndexer {
  const has = (type: string, name: string): boolean =>
    db.prepare<[string, string]>('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?').get(type, name) !== undefined;
  if (!has('table', 'field_search') || has('trigger', 'fields_search_insert')) return { documents: () => {}, fields: () => {} };

  const docs = db.prepare<[string]>(
    `INSERT INTO document_search (rowid, class_name, file_name, joined)
     SELECT d.id, d.class_name, rf.original_file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name))
     FROM documents d JOIN result_files rf ON rf.id = d.result_file_id WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.id`);
  const fields = db.prepare<[string]>(
    `INSERT INTO field_search (rowid, value, name, joined)
     SELECT id, value, name, joined_words(value) FROM fields WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`);
  return {
    documents: (ids) => {
      if (ids.length) docs.run(JSON.stringify(ids));
    },
    fields: (ids) => {
      if (ids.length) fields.run(JSON.stringify(ids));
    },
  };
}
