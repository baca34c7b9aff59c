/**
 * The search file: the store's full-text indexes (FTS5) in a database of their own beside it,
 * `docsync-search.db` for `docsync.db` (migration 019). It holds only what can be made again from
 * the store, so a file of another schema, of another store (store_identity), or not readable as a
 * database is made again, empty, and filled as the indexing catches up (search-units.ts).
 *
 * The indexes as migration 012 made them (tokenizer, prefix indexes, columnsize = 0, automerge,
 * hashsize), except that `field_search` keeps its own copy of the text: FTS5 reads external content
 * only from its own database, and snippets need the text.
 */
import { rmSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from './db.js';
import { privateDatabaseAt } from '../config/private-files.js';
import { registerJoinedWords } from './joined-words.js';

/** The search file's schema version (its own user_version). */
export const SEARCH_SCHEMA = 1;

/** The search file of the store at `storePath`. */
export function searchFileOf(storePath: string): string {
  const ext = extname(storePath);
  return join(dirname(storePath), `${basename(storePath, ext)}-search${ext}`);
}

/**
 * Connection settings for the search file, as the store's (open.ts): the engine's connection and the
 * worker's, which runs this from its text (nothing from outside the function).
 *
 * A page cache of 2 MB (SQLite's own default), not better-sqlite3's 16 MB: that was the engine's
 * third 16 MB cache (the store's, this file's, the store attached here), filled by each indexing
 * unit, and 13-15 MB of malloc heap that stayed (bench:hot-folder, 50,000 files). Search p95 over
 * 1,000,000 fields went from about 6.4 to 7.7 ms with 0.5 MB (bench:store).
 */
export function searchConnection(db: Db, busyTimeoutMs: number): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  db.pragma('cache_size = -2000');
}

/**
 * Attaches the store at `storePath` as `store` to a search file's connection, with the same 2 MB
 * cache (an attached file takes better-sqlite3's default, not the connection's): units read only
 * the rows they index, and searches the rows they show. Runs in the worker from its text, as above.
 */
export function attachStore(db: Db, storePath: string): void {
  db.prepare('ATTACH DATABASE ? AS store').run(storePath);
  db.pragma('store.cache_size = -2000');
}

const SCHEMA = `
  -- The watermark: the last field and document ids indexed, the last search_changes seq applied, and
  -- the store these are of (its store_identity). One row.
  CREATE TABLE search_state (
    store_id     TEXT NOT NULL,
    fields_id    INTEGER NOT NULL,
    documents_id INTEGER NOT NULL,
    changes_seq  INTEGER NOT NULL
  ) STRICT;
  CREATE VIRTUAL TABLE field_search USING fts5(
    value, name, joined, tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4 5 6 7 8 10', columnsize = 0
  );
  CREATE VIRTUAL TABLE document_search USING fts5(
    class_name, file_name, joined, tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4 5 6 7 8 10', columnsize = 0
  );
  INSERT INTO field_search (field_search, rank) VALUES ('automerge', 16);
  INSERT INTO document_search (document_search, rank) VALUES ('automerge', 16);
  INSERT INTO field_search (field_search, rank) VALUES ('hashsize', 8388608);
  INSERT INTO document_search (document_search, rank) VALUES ('hashsize', 8388608);
`;

/** Whether `e` is SQLite's answer for a file that is not a database, or a damaged one: the search file is then made again. */
export function unreadable(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT'));
}

/** Deletes the search file of the store at `storePath` (with its WAL), to be made again. */
export function removeSearchFile(storePath: string): void {
  const path = searchFileOf(storePath);
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
}

/**
 * Opens the search file of the store `store` (at `storePath`, migrated), making it again when it is
 * not this store's, or is ahead of it, and attaches the store as `store`: the connection searches
 * (search.ts reads the store's tables through it) and catches up (search-units.ts). A file that is
 * not readable throws (`unreadable`): the caller deletes it and opens again (open.ts).
 *
 * Ahead of the store: a watermark past the store's last change logged (`search_changes`' sequence,
 * which only grows), or, with no change waiting, past its last field or document. That is a store
 * file restored from an older copy of itself beside a newer search file: the index would hold rows
 * the store no longer has, under ids it will give again.
 */
export function openSearchFile(store: Db, storePath: string, busyTimeoutMs: number): Db {
  const now = store.prepare<[], { id: string; seq: number; f: number; d: number }>(
    `SELECT (SELECT id FROM store_identity) AS id, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'search_changes'), 0) AS seq,
       coalesce((SELECT max(id) FROM fields), 0) AS f, coalesce((SELECT max(id) FROM documents), 0) AS d`).get()!;
  privateDatabaseAt(searchFileOf(storePath));
  const db = new Database(searchFileOf(storePath));
  try {
    searchConnection(db, busyTimeoutMs);
    registerJoinedWords(db);
    // Made again (emptied) unless it is this store's, at this schema, not ahead of it; in one
    // transaction, as another process with the same store may open it at the same moment.
    db.transaction(() => {
      const at = db.pragma('user_version', { simple: true }) === SEARCH_SCHEMA
        ? db.prepare<[], { store_id: string; fields_id: number; documents_id: number; changes_seq: number }>('SELECT * FROM search_state').get()
        : undefined;
      const current = at !== undefined && at.store_id === now.id && at.changes_seq <= now.seq
        && (at.changes_seq < now.seq || (at.fields_id <= now.f && at.documents_id <= now.d));
      if (current) return;
      db.exec(`DROP TABLE IF EXISTS field_search; DROP TABLE IF EXISTS document_search; DROP TABLE IF EXISTS search_state; ${SCHEMA}`);
      // Changes logged before now are of rows not in this index: every row is indexed as new.
      db.prepare('INSERT INTO search_state (store_id, fields_id, documents_id, changes_seq) VALUES (?, 0, 0, ?)').run(now.id, now.seq);
      db.pragma(`user_version = ${SEARCH_SCHEMA}`);
    }).immediate();
    attachStore(db, storePath);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}
