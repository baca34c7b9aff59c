/**
 * 002: full-text search over results. One FTS5 row per extracted field (rowid = fields.id) and one
 * per document (rowid = -documents.id, so a document without fields is still found by class or
 * file name). Kept in sync by triggers on fields and documents; rows already stored are indexed.
 */
import type { Db } from '../db.js';

export function search(db: Db): void {
  db.exec(`
    -- Search index over field values, field names, class names and file names. The UNINDEXED
    -- columns say where a hit belongs (local ids).
    CREATE VIRTUAL TABLE search_index USING fts5(
      value, name, class_name, file_name,
      field_id UNINDEXED, document_id UNINDEXED, result_file_id UNINDEXED, run_id UNINDEXED,
      tokenize = 'unicode61 remove_diacritics 2'
    );

    CREATE TRIGGER fields_search_insert AFTER INSERT ON fields BEGIN
      INSERT INTO search_index (rowid, value, name, class_name, file_name, field_id, document_id, result_file_id, run_id)
      SELECT new.id, new.value, new.name, d.class_name, rf.original_file_name, new.id, d.id, rf.id, rf.run_id
      FROM documents d JOIN result_files rf ON rf.id = d.result_file_id WHERE d.id = new.document_id;
    END;
    CREATE TRIGGER fields_search_delete AFTER DELETE ON fields BEGIN
      DELETE FROM search_index WHERE rowid = old.id;
    END;
    CREATE TRIGGER fields_search_update AFTER UPDATE OF value, name ON fields BEGIN
      UPDATE search_index SET value = new.value, name = new.name WHERE rowid = new.id;
    END;

    CREATE TRIGGER documents_search_insert AFTER INSERT ON documents BEGIN
      INSERT INTO search_index (rowid, value, name, class_name, file_name, field_id, document_id, result_file_id, run_id)
      SELECT -new.id, NULL, NULL, new.class_name, rf.original_file_name, NULL, new.id, rf.id, rf.run_id
      FROM result_files rf WHERE rf.id = new.result_file_id;
    END;
    CREATE TRIGGER documents_search_delete AFTER DELETE ON documents BEGIN
      DELETE FROM search_index WHERE rowid = -old.id;
    END;
    CREATE TRIGGER documents_search_update AFTER UPDATE OF class_name ON documents BEGIN
      UPDATE search_index SET class_name = new.class_name WHERE rowid = -new.id OR (document_id = new.id AND rowid > 0);
    END;

    INSERT INTO search_index (rowid, value, name, class_name, file_name, field_id, document_id, result_file_id, run_id)
      SELECT f.id, f.value, f.name, d.class_name, rf.original_file_name, f.id, d.id, rf.id, rf.run_id
      FROM fields f JOIN documents d ON d.id = f.document_id JOIN result_files rf ON rf.id = d.result_file_id;
    INSERT INTO search_index (rowid, value, name, class_name, file_name, field_id, document_id, result_file_id, run_id)
      SELECT -d.id, NULL, NULL, d.class_name, rf.original_file_name, NULL, d.id, rf.id, rf.run_id
      FROM documents d JOIN result_files rf ON rf.id = d.result_file_id;
  `);
}
