import type { Db } from '../db.js';

/**
 * 007: subfolders of a hot folder that its last scan could not read (permissions), so the folder
 * list (the app's folder cards, `docsync folders list`, another process) can say which. Kept apart
 * from `folders`: writing them must not touch `folders.updated_ms`, which restarts the folder's watcher.
 */
export function folderProblems(db: Db): void {
  db.exec(`
    CREATE TABLE folder_unreadable (
      folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
      path TEXT NOT NULL,
      seen_ms INTEGER NOT NULL,
      PRIMARY KEY (folder_id, path)
    ) WITHOUT ROWID;
  `);
}
