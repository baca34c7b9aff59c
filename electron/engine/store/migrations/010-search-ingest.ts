import type { Db } from '../db.js';

/**
 * 010: results are indexed for search one page at a time (issue 14, bench/store.ts).
 *
 * - The insert triggers of `fields` and `documents` go: storeResultsPage indexes a page's rows
 *   with one INSERT ... SELECT per index (search-index.ts). A trigger made each field row an FTS5
 *   segment of its own (FTS5 writes its pending terms at every statement savepoint, and a
 *   statement that fires a trigger opens one), which cost more than all the rest of storing it.
 *   The delete and update triggers stay: those are rare, and row by row is right for them.
 * - FTS5 merges its segments once 16 of a size have gathered instead of 4 (`automerge`): with a
 *   segment per page, merging was a tenth of ingest; searches read at most 15 segments per level.
 *
 * The indexes keep their columns, tokenizer and prefix indexes (3 to 12 characters): without
 * prefix indexes, ingest was about a third faster but a prefix shared by many words took 0.3 to
 * 1 s to search over a million fields ("invoice", "INV-0", "scan"). Nothing is re-indexed:
 * every stored result stays searchable as it was.
 */
export function searchIngest(db: Db): void {
  db.exec(`
    DROP TRIGGER IF EXISTS fields_search_insert;
    DROP TRIGGER IF EXISTS documents_search_insert;
    INSERT INTO field_search (field_search, rank) VALUES ('automerge', 16);
    INSERT INTO document_search (document_search, rank) VALUES ('automerge', 16);
  `);
}
