import type { Db } from '../db.js';

/**
 * 011: results are indexed for search in large units, not a page at a time (issue 14, second
 * round; search-index.ts). `search_watermark` holds, per indexed table, the last id indexed:
 * every row at or below it is in the index, none above. Everything stored so far was indexed
 * (010), so both start at the table's last id.
 *
 * The delete and update triggers change only rows already indexed (an external-content index told
 * to delete a row it never held is corrupted). A delete also lowers the watermark to the table's
 * last id when the rows at the end go: SQLite gives the next row the last id + 1, which would
 * otherwise fall at or below the watermark and never be indexed.
 */
export function searchWatermark(db: Db): void {
  db.exec(`
    -- Per search index, the last row id of the table it indexes that is in the index (search-index.ts).
    CREATE TABLE search_watermark (
      tbl     TEXT PRIMARY KEY CHECK (tbl IN ('fields', 'documents')),
      last_id INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;
    INSERT INTO search_watermark (tbl, last_id) VALUES
      ('fields', coalesce((SELECT max(id) FROM fields), 0)),
      ('documents', coalesce((SELECT max(id) FROM documents), 0));

    DROP TRIGGER fields_search_delete;
    DROP TRIGGER fields_search_update;
    DROP TRIGGER documents_search_delete;

    CREATE TRIGGER fields_search_delete AFTER DELETE ON fields BEGIN
      INSERT INTO field_search (field_search, rowid, value, name, joined)
        SELECT 'delete', old.id, old.value, old.name, joined_words(old.value)
        WHERE old.id <= (SELECT last_id FROM search_watermark WHERE tbl = 'fields');
      UPDATE search_watermark SET last_id = coalesce((SELECT max(id) FROM fields), 0)
        WHERE tbl = 'fields' AND last_id > coalesce((SELECT max(id) FROM fields), 0);
    END;
    CREATE TRIGGER fields_search_update AFTER UPDATE OF value, name ON fields
      WHEN old.id <= (SELECT last_id FROM search_watermark WHERE tbl = 'fields') BEGIN
      INSERT INTO field_search (field_search, rowid, value, name, joined) VALUES ('delete', old.id, old.value, old.name, joined_words(old.value));
      INSERT INTO field_search (rowid, value, name, joined) VALUES (new.id, new.value, new.name, joined_words(new.value));
    END;

    -- document_search keeps its own text: deleting (or updating, whose triggers stay) a row it does not hold changes nothing.
    CREATE TRIGGER documents_search_delete AFTER DELETE ON documents BEGIN
      DELETE FROM document_search WHERE rowid = old.id;
      UPDATE search_watermark SET last_id = coalesce((SELECT max(id) FROM documents), 0)
        WHERE tbl = 'documents' AND last_id > coalesce((SELECT max(id) FROM documents), 0);
    END;
  `);
}
