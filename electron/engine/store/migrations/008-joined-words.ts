import type { Db } from '../db.js';

/**
 * 008: words with punctuation inside are also indexed joined (joined-words.ts): "INV-30" finds
 * "INV-3003" and "1,250" finds "1250". Both search tables get a third column, `joined`, computed
 * by the SQL function `joined_words` (registered on every open, open.ts); it is NULL for text
 * without such words, so plain values add no postings. FTS5 cannot add a column, so both indexes
 * are made again: field_search over a view that adds the joined column to `fields` (external
 * content: snippets and 'rebuild' read the text from there), document_search with its own copy.
 * Triggers as in 004, with the joined column.
 */
export function joinedWordsSearch(db: Db): void {
  db.exec(`
    DROP TRIGGER fields_search_insert;
    DROP TRIGGER fields_search_delete;
    DROP TRIGGER fields_search_update;
    DROP TRIGGER documents_search_insert;
    DROP TRIGGER documents_search_delete;
    DROP TRIGGER documents_search_update;
    DROP TRIGGER result_files_search_update;
    DROP TABLE field_search;
    DROP TABLE document_search;

    CREATE VIEW field_search_content AS SELECT id, value, name, joined_words(value) AS joined FROM fields;
    CREATE VIRTUAL TABLE field_search USING fts5(
      value, name, joined, content = 'field_search_content', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4 5 6 7 8 9 10 11 12'
    );
    CREATE VIRTUAL TABLE document_search USING fts5(
      class_name, file_name, joined,
      tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4 5 6 7 8 9 10 11 12'
    );

    CREATE TRIGGER fields_search_insert AFTER INSERT ON fields BEGIN
      INSERT INTO field_search (rowid, value, name, joined) VALUES (new.id, new.value, new.name, joined_words(new.value));
    END;
    CREATE TRIGGER fields_search_delete AFTER DELETE ON fields BEGIN
      INSERT INTO field_search (field_search, rowid, value, name, joined) VALUES ('delete', old.id, old.value, old.name, joined_words(old.value));
    END;
    CREATE TRIGGER fields_search_update AFTER UPDATE OF value, name ON fields BEGIN
      INSERT INTO field_search (field_search, rowid, value, name, joined) VALUES ('delete', old.id, old.value, old.name, joined_words(old.value));
      INSERT INTO field_search (rowid, value, name, joined) VALUES (new.id, new.value, new.name, joined_words(new.value));
    END;

    CREATE TRIGGER documents_search_insert AFTER INSERT ON documents BEGIN
      INSERT INTO document_search (rowid, class_name, file_name, joined)
      SELECT new.id, new.class_name, rf.original_file_name, joined_words(concat_ws(' ', new.class_name, rf.original_file_name)) FROM result_files rf WHERE rf.id = new.result_file_id;
    END;
    CREATE TRIGGER documents_search_delete AFTER DELETE ON documents BEGIN
      DELETE FROM document_search WHERE rowid = old.id;
    END;
    CREATE TRIGGER documents_search_update AFTER UPDATE OF class_name ON documents BEGIN
      UPDATE document_search SET class_name = new.class_name, joined = joined_words(concat_ws(' ', new.class_name, file_name)) WHERE rowid = new.id;
    END;
    CREATE TRIGGER result_files_search_update AFTER UPDATE OF original_file_name ON result_files BEGIN
      UPDATE document_search SET file_name = new.original_file_name, joined = joined_words(concat_ws(' ', class_name, new.original_file_name))
      WHERE rowid IN (SELECT id FROM documents WHERE result_file_id = new.id);
    END;

    INSERT INTO field_search (field_search) VALUES ('rebuild');
    INSERT INTO document_search (rowid, class_name, file_name, joined)
      SELECT d.id, d.class_name, rf.original_file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name))
      FROM documents d JOIN result_files rf ON rf.id = d.result_file_id;
  `);
}
