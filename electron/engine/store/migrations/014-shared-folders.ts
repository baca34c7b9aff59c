import type { Db } from '../db.js';

/**
 * 014, shared hot folders (issue 15):
 * - `files.state` may be 'elsewhere': another agent of the folder's share handles the file.
 *   SQLite cannot change a CHECK in place, so the table is rebuilt as its documentation says
 *   ("Making Other Kinds Of Table Schema Changes"): new table, rows copied with their ids, old
 *   table dropped, new one renamed, then its indexes and triggers created again from their stored
 *   SQL. migrate() turns foreign keys off around it and checks them before the commit.
 * - `files.handled_by`: the name of the agent that holds the file's content.
 * - `agent`: this data home's agent id, stable across restarts (one row, created on first use).
 * - `share_agents`: each shared folder's agents as the running engine last saw them (for
 *   `docsync status` in another process).
 */
export function sharedFolders(db: Db): void {
  const kept = db
    .prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE tbl_name = 'files' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name")
    .all()
    .map((r) => r.sql);
  db.exec(`
    CREATE TABLE files_new (
      id            INTEGER PRIMARY KEY,
      folder_id     INTEGER REFERENCES folders(id) ON DELETE SET NULL,
      path          TEXT    NOT NULL,
      size          INTEGER NOT NULL,
      mtime_ms      INTEGER NOT NULL,
      sha256        TEXT,
      state         TEXT    NOT NULL CHECK (state IN ('discovered','stable','queued','uploading','uploaded','running','done','failed','skipped','elsewhere')),
      original_name TEXT    NOT NULL,
      safe_name     TEXT,
      batch_id      INTEGER REFERENCES batches(id) ON DELETE SET NULL,
      service_path  TEXT,
      error         TEXT,
      created_ms    INTEGER NOT NULL,
      updated_ms    INTEGER NOT NULL,
      handled_by    TEXT
    ) STRICT;
    INSERT INTO files_new (id, folder_id, path, size, mtime_ms, sha256, state, original_name, safe_name, batch_id, service_path, error, created_ms, updated_ms)
      SELECT id, folder_id, path, size, mtime_ms, sha256, state, original_name, safe_name, batch_id, service_path, error, created_ms, updated_ms FROM files;
    DROP TABLE files;
    ALTER TABLE files_new RENAME TO files;

    CREATE TABLE agent (
      only INTEGER PRIMARY KEY CHECK (only = 1),
      id   TEXT NOT NULL
    ) STRICT;

    CREATE TABLE share_agents (
      folder_id         INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
      agent_id          TEXT    NOT NULL,
      name              TEXT    NOT NULL,
      host              TEXT    NOT NULL,
      last_heartbeat_ms INTEGER,
      in_flight         INTEGER NOT NULL,
      is_self           INTEGER NOT NULL CHECK (is_self IN (0, 1)),
      stale             INTEGER NOT NULL CHECK (stale IN (0, 1)),
      seen_ms           INTEGER NOT NULL,
      PRIMARY KEY (folder_id, agent_id)
    ) STRICT, WITHOUT ROWID;
  `);
  for (const sql of kept) db.exec(sql);
}
