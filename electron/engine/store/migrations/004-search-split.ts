import type { Db } from '../db.js';

/**
 * 004: search index split in two, replacing 002's `search_index`, which copied the class and file
 * name onto every field row (a million field rows meant a million postings for "invoice" and for
 * every file-name token, and search p95 over 100 ms):
 * - `field_search` indexes field values and names (rowid = fields.id). External content: the text
 *   stays in `fields` only and snippets read it from there, so the index holds postings alone.
 * - `document_search` indexes class and file name once per document (rowid = documents.id); a
 *   document is small next to its fields, so it keeps its own copy of the text.
 * Both have prefix indexes for 3 to 12 characters (search-as-you-type prefixes start at 3,
 * search.ts): without one, a prefix query merges the postings of every term it expands to on each
 * query ("number*" over a million fields: 30-60 ms); with one it reads them lazily, like a term.
 * Kept in sync by triggers; rows already stored are indexed here.
 */
export function searchSplit(db: Db): void {
  db.exec(`
    DROP TRIGGER fields_search_insert;
    DROP TRIGGER fields_search_delete;
    DROP TRIGGER fields_search_update;
    DROP TRIGGER documents_search_insert;
    DROP TRIGGER documents_search_delete;
    DROP TRIGGER documents_search_update;
    DROP TABLE search_index;

    -- Field values and names, over the fields table (external content).
    CREATE VIRTUAL TABLE field_search USING fts5(
      value, name, content = 'fields', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4 5 6 7 8 9 10 11 12'
    );
    -- Class name and file name of each document.
    CREATE VIRTUAL TABLE document_search USING fts5(
      class_name, file_name,
      tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4 5 6 7 8 9 10 11 12'
    );

    -- An external-content index is told the old text on delete, so it can remove those postings.
    CREATE TRIGGER fields_search_insert AFTER INSERT ON fields BEGIN
      INSERT INTO field_search (rowid, value, name) VALUES (new.id, new.value, new.name);
    END;
    CREATE TRIGGER fields_search_delete AFTER DELETE ON fields BEGIN
      INSERT INTO field_search (field_search, rowid, value, name) VALUES ('delete', old.id, old.value, old.name);
    END;
    CREATE TRIGGER fields_search_update AFTER UPDATE OF value, name ON fields BEGIN
      INSERT INTO field_search (field_search, rowid, value, name) VALUES ('delete', old.id, old.value, old.name);
      INSERT INTO field_search (rowid, value, name) VALUES (new.id, new.value, new.name);
    END;

    CREATE TRIGGER documents_search_insert AFTER INSERT ON documents BEGIN
      INSERT INTO document_search (rowid, class_name, file_name)
      SELECT new.id, new.class_name, rf.original_file_name FROM result_files rf WHERE rf.id = new.result_file_id;
    END;
    CREATE TRIGGER documents_search_delete AFTER DELETE ON documents BEGIN
      DELETE FROM document_search WHERE rowid = old.id;
    END;
    CREATE TRIGGER documents_search_update AFTER UPDATE OF class_name ON documents BEGIN
      UPDATE document_search SET class_name = new.class_name WHERE rowid = new.id;
    END;
    CREATE TRIGGER result_files_search_update AFTER UPDATE OF original_file_name ON result_files BEGIN
      UPDATE document_search SET file_name = new.original_file_name WHERE rowid IN (SELECT id FROM documents WHERE result_file_id = new.id);
    END;

    INSERT INTO field_search (field_search) VALUES ('rebuild');
    INSERT INTO document_search (rowid, class_name, file_name)
      SELECT d.id, d.class_name, rf.original_file_name FROM documents d JOIN result_files rf ON rf.id = d.result_file_id;
  `);
}
