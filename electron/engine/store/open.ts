/**
 * Opens the local store: one SQLite database (better-sqlite3) in the data directory, in WAL mode
 * with foreign keys on, migrated to the latest schema. Plain Node: no electron import.
 */
import Database from 'better-sqlite3';
import { privateDatabaseAt } from '../config/private-files.js';
import type { Db } from './db.js';
import { shareQueries, type ShareQueries } from './share.js';
import { registerJoinedWords } from './joined-words.js';
import { browseQueries, type BrowseQueries } from './browse.js';
import { foldersQueries, type FoldersQueries } from './folders.js';
import { filesQueries, type FilesQueries } from './files.js';
import { migrate } from './migrate.js';
import type { Migration } from './migrations/index.js';
import { resultsQueries, type ResultsQueries } from './results.js';
import { openSearchFile, removeSearchFile, unreadable } from './search-file.js';
import { SEARCH_BATCH_ROWS } from './search-units.js';
import { searchIndexing } from './search-worker.js';
import { runsQueries, type RunsQueries } from './runs.js';
import { searchQueries, type SearchQueries } from './search.js';
import { servicesQueries, type ServicesQueries } from './services.js';

/** The database's file name inside the data directory. */
export const STORE_FILE = 'docsync.db';

export interface Store {
  readonly db: Db;
  /** The search file's connection (search-file.ts), with this store attached as `store`. */
  readonly searchDb: Db;
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
  /** Fields stored before they are indexed for search together (search-units.ts); default SEARCH_BATCH_ROWS. */
  searchBatchRows?: number;
  /** Milliseconds without a page stored before what waits is indexed anyway; default 1000. */
  searchIdleMs?: number;
  /** False: index for search on the engine's thread, not a worker thread (search-worker.ts); default true. */
  searchWorker?: boolean;
  /** For tests: the migrations to apply (default: all). */
  migrations?: readonly Migration[];
}

/** WAL pages between automatic checkpoints (see openDatabase). */
export const WAL_CHECKPOINT_PAGES = 10_000;

/** Opens the raw database with the store's connection settings, without migrating. */
export function openDatabase(path: string, o: Pick<OpenOptions, 'busyTimeoutMs'> = {}): Db {
  if (path !== ':memory:') privateDatabaseAt(path);
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(o.busyTimeoutMs ?? 5000))}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // A checkpoint every 10,000 WAL pages (about 40 MB), not SQLite's 1,000: the hot folder's small
    // commits rewrite the same few pages, and a checkpoint copies each page once however often it
    // was rewritten; with 1,000 the checkpoints inside commits were a third of the commits' cost
    // (bench:hot-folder profile, issue 14). Durability is the same (WAL, synchronous = NORMAL).
    db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    // After a checkpoint the WAL is cut back to 64 MB: a results page's long transaction can grow it far past that.
    db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
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
  const now = o.now ?? Date.now;
  const busyTimeoutMs = o.busyTimeoutMs ?? 5000;
  // The search file's connection, search and indexing (search-file.ts). Rows stored but not yet
  // indexed when the store last closed (or the app stopped) are indexed from now, and before any search.
  const openSearch = () => {
    const searchDb = openSearchFile(db, path, busyTimeoutMs);
    try {
      return {
        db: searchDb,
        search: searchQueries(searchDb).search,
        indexing: searchIndexing(searchDb, db, {
          storePath: path, batchRows: o.searchBatchRows ?? SEARCH_BATCH_ROWS, idleMs: o.searchIdleMs ?? 1000, busyTimeoutMs, worker: o.searchWorker ?? true,
        }),
      };
    } catch (e) {
      searchDb.close();
      throw e;
    }
  };
  // A search file that is not a database or is damaged is made again, empty, and filled from the
  // store: at open, or when a search finds the damage (the search then waits for the whole index).
  const remade = () => {
    removeSearchFile(path);
    return openSearch();
  };
  let side: ReturnType<typeof openSearch>;
  try {
    migrate(db, o.migrations);
    try {
      side = openSearch();
    } catch (e) {
      if (!unreadable(e)) throw e;
      side = remade();
    }
  } catch (e) {
    db.close();
    throw e;
  }
  const storedResults = resultsQueries(db, now);
  const results: ResultsQueries = {
    ...storedResults,
    storeResultsPage: (...a) => {
      const out = storedResults.storeResultsPage(...a);
      side.indexing.stored();
      return out;
    },
    indexForSearch: () => side.indexing.catchUp(),
  };
  const closeSearch = (): void => {
    side.indexing.close();
    if (side.db.open) side.db.close();
  };
  // One wrapper for every call: better-sqlite3 builds a wrapper with its own statements per
  // db.transaction(), which the group commit (one savepoint per write) paid for every file and step.
  const inTransaction = db.transaction((fn: () => unknown) => fn());
  return {
    db,
    get searchDb() {
      return side.db;
    },
    path,
    services: servicesQueries(db, now),
    folders: foldersQueries(db, now),
    files: filesQueries(db, now),
    runs: runsQueries(db, now),
    results,
    // A search first indexes what was stored since the last indexing: it never misses a stored row.
    search: (...a) => {
      try {
        side.indexing.catchUp();
        return side.search(...a);
      } catch (e) {
        if (!unreadable(e)) throw e;
        closeSearch();
        side = remade();
        side.indexing.catchUp();
        return side.search(...a);
      }
    },
    browse: browseQueries(db),
    share: shareQueries(db, now),
    transaction: <T>(fn: () => T): T => inTransaction.immediate(fn) as T,
    close: () => {
      closeSearch();
      if (db.open) db.close();
    },
  };
}
