/**
 * Opens the local store: one SQLite database (better-sqlite3) in the data directory, in WAL mode
 * with foreign keys on, migrated to the latest schema. Plain Node: no electron import.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from './db.js';
import { shareQueries, type ShareQueries } from './share.js';
import { registerJoinedWords } from './joined-words.js';
import { browseQueries, type BrowseQueries } from './browse.js';
import { foldersQueries, type FoldersQueries } from './folders.js';
import { filesQueries, type FilesQueries } from './files.js';
import { migrate } from './migrate.js';
import type { Migration } from './migrations/index.js';
import { resultsQueries, type ResultsQueries } from './results.js';
import { runsQueries, type RunsQueries } from './runs.js';
import { searchQueries, type SearchQueries } from './search.js';
import { servicesQueries, type ServicesQueries } from './services.js';

/** The database's file name inside the data directory. */
export const STORE_FILE = 'docsync.db';

export interface Store {
  readonly db: Db;
  readonly path: string;
  readonly services: ServicesQueries;
  readonly folders: FoldersQueries;
  readonly files: FilesQueries;
  readonly runs: RunsQueries;
  readonly results: ResultsQueries;
  readonly search: SearchQueries['search'];
  readonly browse: BrowseQueries;
  /** Shared folders: this data home's agent id, the last look at each folder's agents. */
  readonly share: ShareQueries;
  /** Runs `fn` in one (IMMEDIATE) transaction; calls to the query modules inside it join it. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export interface OpenOptions {
  /** Milliseconds a writer waits for another connection's lock; default 5000. */
  busyTimeoutMs?: number;
  /** Clock (Unix ms) for the timestamps the store writes; default Date.now. */
  now?: () => number;
  /** Fields stored before they are indexed for search together (results.ts); default SEARCH_BATCH_ROWS. */
  searchBatchRows?: number;
  /** Milliseconds without a page stored before what waits is indexed anyway; default 1000. */
  searchIdleMs?: number;
  /** For tests: the migrations to apply (default: all). */
  migrations?: readonly Migration[];
}

/** Opens the raw database with the store's connection settings, without migrating. */
export function openDatabase(path: string, o: Pick<OpenOptions, 'busyTimeoutMs'> = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(o.busyTimeoutMs ?? 5000))}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    registerJoinedWords(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Opens (creating when needed) the store at `path` and migrates it to the latest schema. */
export function openStore(path: string, o: OpenOptions = {}): Store {
  const db = openDatabase(path, o);
  try {
    migrate(db, o.migrations);
  } catch (e) {
    db.close();
    throw e;
  }
  const now = o.now ?? Date.now;
  const results = resultsQueries(db, now, { searchBatchRows: o.searchBatchRows, searchIdleMs: o.searchIdleMs });
  const search = searchQueries(db).search;
  try {
    // Rows stored but not yet indexed when the store last closed (or the app stopped) are indexed now.
    results.indexForSearch();
  } catch (e) {
    db.close();
    throw e;
  }
  // One wrapper for every call: better-sqlite3 builds a wrapper with its own statements per
  // db.transaction(), which the group commit (one savepoint per write) paid for every file and step.
  const inTransaction = db.transaction((fn: () => unknown) => fn());
  return {
    db,
    path,
    services: servicesQueries(db, now),
    folders: foldersQueries(db, now),
    files: filesQueries(db, now),
    runs: runsQueries(db, now),
    results,
    // A search first indexes what was stored since the last indexing: it never misses a stored row.
    search: (...a) => {
      results.indexForSearch();
      return search(...a);
    },
    browse: browseQueries(db),
    share: shareQueries(db, now),
    transaction: <T>(fn: () => T): T => inTransaction.immediate(fn) as T,
    close: () => {
      results.stopIndexing();
      if (db.open) db.close();
    },
  };
}
