/**
 * For a store between migrations 011 and 018 (the migration tests open such stores): from 019 the
 * indexes are in a file of their own (search-file.ts, search-units.ts), and this finds nothing to do.
 *
 * Adds stored documents and fields to the search indexes in large units (migration 011): a
 * watermark (`search_watermark`) holds the last documents.id and fields.id indexed, and
 * everything above it is indexed by one INSERT ... SELECT per index once enough rows wait, when
 * storing pauses, before any search and when the store opens. Index and watermark change in one
 * transaction, so after a crash the watermark says what is left.
 *
 * Why in large units: FTS5 writes one segment per statement and merges segments again and again
 * as they gather; a segment per results page (~200 fields) made that merging and the commit of
 * each page's segment the largest part of ingest (bench/README.md, "Store ingest (issue 14)").
 * Why not triggers: a trigger made each row a segment of its own (migration 010).
 */
import type { Db } from './db.js';

export interface SearchIndexer {
  /** Field rows stored but not yet searchable. */
  pending(): number;
  /** Indexes what waits once `batchRows` or more fields do; for the storing transaction. */
  maybeCatchUp(batchRows: number): void;
  /** Indexes every stored row above the watermark (its own transaction, or the caller's). */
  catchUp(): void;
}

/**
 * The indexer for `db`'s schema, or undefined: a store before 011 indexes each row by trigger
 * (before 010), or each page by the code of its own version; a store from 019 has no index in it.
 */
export function searchIndexer(db: Db): SearchIndexer | undefined {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_watermark'").get() === undefined) return undefined;

  const mark = (t: string): string => `(SELECT last_id FROM search_watermark WHERE tbl = '${t}')`;
  const pending = db.prepare<[], { n: number }>(`SELECT coalesce((SELECT max(id) FROM fields), 0) - ${mark('fields')} AS n`);
  const docsPending = db.prepare<[], { n: number }>(`SELECT coalesce((SELECT max(id) FROM documents), 0) - ${mark('documents')} AS n`);
  const docs = db.prepare(
    `INSERT INTO document_search (rowid, class_name, file_name, joined)
     SELECT d.id, d.class_name, rf.original_file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name))
     FROM documents d JOIN result_files rf ON rf.id = d.result_file_id WHERE d.id > ${mark('documents')} ORDER BY d.id`);
  const fields = db.prepare(
    `INSERT INTO field_search (rowid, value, name, joined)
     SELECT id, value, name, joined_words(value) FROM fields WHERE id > ${mark('fields')} ORDER BY id`);
  const advance = db.prepare(
    `UPDATE search_watermark SET last_id = max(last_id, coalesce(CASE tbl WHEN 'fields' THEN (SELECT max(id) FROM fields) ELSE (SELECT max(id) FROM documents) END, 0))`);

  const run = (): void => {
    docs.run();
    fields.run();
    advance.run();
  };
  const inTransaction = db.transaction(run);
  const pendingNow = (): number => pending.get()!.n;
  return {
    pending: pendingNow,
    maybeCatchUp: (batchRows) => {
      if (pendingNow() >= batchRows) run();
    },
    catchUp: () => {
      if (pendingNow() > 0 || docsPending.get()!.n > 0) inTransaction.immediate();
    },
  };
}
