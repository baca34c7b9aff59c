import type { Db } from '../db.js';

/**
 * 019: the search indexes move to a database file of their own beside the store, filled by a
 * worker thread (search-file.ts, search-units.ts, search-worker.ts; issue 14, sixth round). Storing
 * results and indexing them then hold different write locks and run on different cores: at
 * 1,000,000 fields indexing was about half of ingest, on the thread and the lock that store pages.
 *
 * Here the store drops its indexes, their view and triggers, and the watermark (which moves to the
 * search file, with the index, so both change in one transaction). It gains:
 * - `store_identity`: a random id the search file records, so a search file is never read against
 *   another store (a store file restored or copied without it): the file is made again instead.
 * - `search_changes`: a log of field and document rows deleted or changed, which the indexing reads
 *   to take their old words out and put their new ones in. Triggers fill it: the search file is
 *   another database, which a trigger cannot reach. Rows stored anew need no log: their ids are
 *   above the search file's watermark. AUTOINCREMENT: the search file holds the last seq applied,
 *   so a seq is never given twice, even after the log is emptied.
 *
 * The search file is made and filled by the first open after this: the store's results become
 * searchable again as it catches up, and a search before then catches up first, as before.
 */
export function searchFile(db: Db): void {
  db.exec(`
    DROP TRIGGER IF EXISTS fields_search_delete;
    DROP TRIGGER IF EXISTS fields_search_update;
    DROP TRIGGER IF EXISTS documents_search_delete;
    DROP TRIGGER IF EXISTS documents_search_update;
    DROP TRIGGER IF EXISTS result_files_search_update;
    DROP TABLE IF EXISTS field_search;
    DROP TABLE IF EXISTS document_search;
    DROP VIEW IF EXISTS field_search_content;
    DROP TABLE IF EXISTS search_watermark;

    -- This store's random id, recorded by its search file (search-file.ts). One row.
    CREATE TABLE store_identity (id TEXT NOT NULL) STRICT;
    INSERT INTO store_identity (id) VALUES (lower(hex(randomblob(16))));

    -- Rows whose words the search file must take out or write again (search-units.ts).
    CREATE TABLE search_changes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      tbl TEXT NOT NULL CHECK (tbl IN ('fields', 'documents')),
      id  INTEGER NOT NULL
    );
    CREATE TRIGGER fields_search_delete AFTER DELETE ON fields BEGIN
      INSERT INTO search_changes (tbl, id) VALUES ('fields', old.id);
    END;
    CREATE TRIGGER fields_search_update AFTER UPDATE OF value, name ON fields BEGIN
      INSERT INTO search_changes (tbl, id) VALUES ('fields', new.id);
    END;
    CREATE TRIGGER documents_search_delete AFTER DELETE ON documents BEGIN
      INSERT INTO search_changes (tbl, id) VALUES ('documents', old.id);
    END;
    CREATE TRIGGER documents_search_update AFTER UPDATE OF class_name ON documents BEGIN
      INSERT INTO search_changes (tbl, id) VALUES ('documents', new.id);
    END;
    CREATE TRIGGER result_files_search_update AFTER UPDATE OF original_file_name ON result_files BEGIN
      INSERT INTO search_changes (tbl, id) SELECT 'documents', id FROM documents WHERE result_file_id = new.id;
    END;
  `);
}
