import type { Db } from '../db.js';

/**
 * 012: smaller search indexes, cheaper to fill (issue 14, third round; bench/README.md).
 *
 * - Prefix indexes for 3 to 8 characters and 10 (a whole word of that length as typed), not 3 to
 *   12. A prefix of 9, 11 or 12 characters is read from the index's words instead: FTS5 merges the
 *   postings of every word it starts, which costs in proportion to how many rows hold such words
 *   (a word in 100,000 of 1,000,000 fields: 12-26 ms; bench/README.md). Each prefix length
 *   left out is one posting less per long word stored.
 * - `columnsize = 0`: FTS5 no longer stores each row's column sizes (a row of its own per field).
 *   bm25 reads them from the text of the rows it scores, and search scores at most BROAD_MATCHES
 *   rows (search.ts): broader queries come newest first, unscored. A scored query costs more
 *   ("125" over 1,000,000 fields: 8-13 ms, was 2-5).
 * - `hashsize` 8 MB, not 1 MB: FTS5 holds the words of what it indexes in memory up to this size,
 *   then writes them as a segment. At 1 MB a unit of 20,000 fields (search-index.ts) became
 *   several segments, merged again later; at 8 MB it is about one. Memory: up to 8 MB per index
 *   while indexing.
 *
 * FTS5 cannot change prefix or columnsize of an existing table: both indexes are made again from
 * what is stored, once (6 s of CPU for the bench's million fields), and the watermark moves to
 * the last rows.
 */
export function searchPrefixes(db: Db): void {
  db.exec(`
    DROP TABLE field_search;
    DROP TABLE document_search;
    CREATE VIRTUAL TABLE field_search USING fts5(
      value, name, joined, content = 'field_search_content', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4 5 6 7 8 10', columnsize = 0
    );
    CREATE VIRTUAL TABLE document_search USING fts5(
      class_name, file_name, joined,
      tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4 5 6 7 8 10', columnsize = 0
    );
    INSERT INTO field_search (field_search, rank) VALUES ('automerge', 16);
    INSERT INTO document_search (document_search, rank) VALUES ('automerge', 16);
    INSERT INTO field_search (field_search, rank) VALUES ('hashsize', 8388608);
    INSERT INTO document_search (document_search, rank) VALUES ('hashsize', 8388608);

    INSERT INTO field_search (field_search) VALUES ('rebuild');
    INSERT INTO document_search (rowid, class_name, file_name, joined)
      SELECT d.id, d.class_name, rf.original_file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name))
      FROM documents d JOIN result_files rf ON rf.id = d.result_file_id;
    UPDATE search_watermark SET last_id = coalesce(CASE tbl WHEN 'fields' THEN (SELECT max(id) FROM fields) ELSE (SELECT max(id) FROM documents) END, 0);
  `);
}
