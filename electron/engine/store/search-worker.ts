/**
 * Indexing for search in a worker thread (migration 019): the engine stores a results page and
 * tells the worker, which indexes into the search file (search-file.ts) on its own connection, on the
 * machine's other core, under the search file's write lock, not the store's. A unit starts once
 * `batchRows` fields wait, and what is left once storing pauses for `idleMs`. A search does not wait
 * for the worker: it catches up on the engine's own connection first (the two take turns on the
 * search file's lock, and the watermark says what either has done).
 *
 * The worker starts when storing is sustained (two units due by size within 5 s) or at open with a
 * unit's worth waiting; until then, and if it cannot start or dies, the engine indexes on its own
 * thread, when storing pauses or a unit's worth waits, as before 019.
 *
 * Why an eval'd worker: the app (electron-vite bundle), the command line (tsc) and the tests (from
 * source) each build the engine differently, and share no file a worker could load. The worker runs
 * the text of the same functions the engine runs (each uses nothing from outside itself), and
 * better-sqlite3 from the path the engine resolves.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';
import { joinedWordsModule } from './joined-words.js';
import { attachStore, searchConnection, searchFileOf } from './search-file.js';
import { searchUnits } from './search-units.js';

export interface SearchIndexing {
  /** A page was stored: index once enough waits, or when storing pauses. */
  stored(): void;
  /** Indexes everything that waits, now, on the engine's connection (a search does this first). */
  catchUp(): void;
  /** Stops the worker, waiting for the unit in progress (the store closing). */
  close(): void;
}

export interface SearchIndexingOptions {
  storePath: string;
  batchRows: number;
  idleMs: number;
  busyTimeoutMs: number;
  /** False: index on the engine's thread only (tests compare both). */
  worker: boolean;
}

interface WorkerData { sqlite: string; searchPath: string; storePath: string; batchRows: number; idleMs: number; busyTimeoutMs: number; flags: SharedArrayBuffer }
type Port = { on(e: 'message', f: (m: unknown) => void): void; postMessage(m: unknown): void; close(): void };
/** flags[STOP] set by the engine: no unit after the one in progress. flags[CLOSED] set by the worker once its connection is closed. */
const STOP = 0;
const CLOSED = 1;
/** Two units due by size this close together (ms): storing is sustained, and the worker starts. */
const SUSTAINED_MS = 5000;

/** The worker's body; runs from its text (nothing from outside the function, constants included). */
function workerMain(port: Port, data: WorkerData, Database: new (path: string) => Db, words: ReturnType<typeof joinedWordsModule>,
  connect: typeof searchConnection, attach: typeof attachStore, units: typeof searchUnits): void {
  const flags = new Int32Array(data.flags);
  const closed = (): void => {
    Atomics.store(flags, 1, 1);
    Atomics.notify(flags, 1);
  };
  let db: Db;
  let u: ReturnType<typeof searchUnits>;
  try {
    db = new Database(data.searchPath);
    connect(db, data.busyTimeoutMs);
    attach(db, data.storePath);
    db.function('joined_words', { deterministic: true }, words.sqlJoinedWords);
    u = units(db, data.batchRows);
  } catch (e) {
    closed();
    throw e;
  }
  let idle: ReturnType<typeof setTimeout> | undefined;
  const work = (all: boolean): void => {
    try {
      while (Atomics.load(flags, 0) === 0 && (all ? u.pending() : u.pendingFields() >= data.batchRows)) u.unit();
    } catch (e) {
      // Left waiting (a lock held past the busy timeout, a full disk): the next page, pause or search catches up.
      port.postMessage({ failed: e instanceof Error ? e.message : String(e) });
    }
  };
  port.on('message', (m) => {
    clearTimeout(idle);
    if (m === 'stop') {
      db.close();
      closed();
      port.close();
      return;
    }
    work(false);
    idle = setTimeout(() => work(true), data.idleMs);
  });
}

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(${workerMain.toString()})(parentPort, workerData, require(workerData.sqlite), (${joinedWordsModule.toString()})(),
  ${searchConnection.toString()}, ${attachStore.toString()}, ${searchUnits.toString()});
`;

/** Indexing for the store `store`, whose search file's connection (search-file.ts) is `db`. */
export function searchIndexing(db: Db, store: Db, o: SearchIndexingOptions): SearchIndexing {
  const clearLog = store.prepare<[number]>('DELETE FROM search_changes WHERE seq <= ?');
  const units = searchUnits(db, o.batchRows, (seq) => void clearLog.run(seq));
  const flags = new Int32Array(new SharedArrayBuffer(8));
  let worker: Worker | undefined;
  let failedToStart = !o.worker;
  const start = (): void => {
    if (worker !== undefined || failedToStart) return;
    try {
      const data: WorkerData = {
        sqlite: createRequire(import.meta.url).resolve('better-sqlite3'), searchPath: searchFileOf(o.storePath), storePath: o.storePath,
        batchRows: o.batchRows, idleMs: o.idleMs, busyTimeoutMs: o.busyTimeoutMs, flags: flags.buffer as SharedArrayBuffer,
      };
      // A small young generation: the worker's garbage is a string or two per row indexed, collected
      // young; V8's default semi-spaces grow larger than it needs (3 MB less RSS storing 80,000 fields).
      const w = new Worker(SOURCE, { eval: true, workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
      // It never keeps the process alive: what waits is indexed at the next open or search.
      w.unref();
      const gone = (): void => {
        if (worker === w) worker = undefined;
        failedToStart = true;
      };
      w.on('error', gone);
      w.on('exit', gone);
      // A unit that failed leaves its rows waiting; nothing to do here.
      w.on('message', () => undefined);
      worker = w;
    } catch {
      failedToStart = true;
    }
  };

  // On the engine's thread (no worker): a unit once enough waits, the rest when storing pauses.
  let idle: NodeJS.Timeout | undefined;
  const catchUpQuietly = (): void => {
    // A failure (the store closed, a lock held elsewhere) leaves the rows waiting for the next search or open.
    try {
      if (db.open) units.catchUp();
    } catch {
      // as said
    }
  };
  /** `due`: a unit's worth waits (read once per page, by `stored`). */
  const inThread = (due: boolean): void => {
    if (due) catchUpQuietly();
    clearTimeout(idle);
    idle = setTimeout(catchUpQuietly, o.idleMs).unref();
  };

  // The worker starts when storing is sustained: a unit's worth waits again within
  // SUSTAINED_MS of the last time (a large run's results, 1,000,000 fields in bench:store), or at
  // open (an upgraded store). Then indexing competes with storing, and a core of its own pays for its
  // memory: a thread, its isolate and its malloc arena, about 50 MB at the peak of bench:hot-folder
  // (10,000 files, 250 MB against 213 without; a worker from the first unit, measured while its
  // connection kept 16 MB page caches). Results that come slower, as the hot folder's runs do, are
  // indexed on the engine's thread, as before 019.
  let lastDue = Number.NEGATIVE_INFINITY;
  const stored = (): void => {
    const due = worker === undefined && units.pendingFields() >= o.batchRows;
    if (due) {
      const now = performance.now();
      if (now - lastDue <= SUSTAINED_MS) start();
      lastDue = now;
    }
    if (worker === undefined) inThread(due);
    else {
      clearTimeout(idle);
      worker.postMessage(0);
    }
  };
  if (units.pendingFields() >= o.batchRows) start();
  if (units.pending()) stored();
  return {
    stored,
    catchUp: () => {
      clearTimeout(idle);
      units.catchUp();
    },
    close: () => {
      clearTimeout(idle);
      const w = worker;
      if (w === undefined) return;
      worker = undefined;
      Atomics.store(flags, STOP, 1);
      w.postMessage('stop');
      try {
        // The unit in progress ends first (at most a busy timeout more when it waits for a lock).
        Atomics.wait(flags, CLOSED, 0, o.busyTimeoutMs + 5000);
      } catch {
        // Atomics.wait not allowed on this thread: the worker stops as soon as it can.
      }
      void w.terminate();
    },
  };
}
