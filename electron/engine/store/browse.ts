/**
 * Read-only queries for the UI: pages of the queue, per-folder counts, runs with their file counts
 * and the folder -> run tree of stored results. Ordered newest first, as people look at them.
 */
import { zeroCounts, type FileState } from '../../../shared/file-states.js';
import type { RunStatus } from '../../../shared/service/index.js';
import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from './db.js';

export interface QueueFilter {
  states?: FileState[];
  /** A folder id, or 0 for files dropped in by hand (no folder). */
  folderId?: number;
  /** Part of the file name, case-insensitive. */
  name?: string;
}

export interface QueueRow {
  id: number; folderId: number | null; path: string; originalName: string; size: number; state: FileState; error: string | null;
  batchId: number | null; runId: number | null; updatedMs: number;
  /** A running file whose run waits for a person's review. */
  reviewWaiting: boolean;
  /** Since when it waits (runs.review_since_ms), else null. */
  reviewSinceMs: number | null;
  /** Shared folders: the agent that handles the file instead of this one. */
  handledBy: string | null;
}

export interface RunListRow {
  id: number; serviceRunId: string; deploymentId: string | null; appId: string | null; status: RunStatus | null; msg: string | null;
  reviewWaiting: boolean; files: number; done: number; failed: number; folderId: number | null; createdMs: number; startMs: number | null; finishMs: number | null;
  resultsStored: boolean;
  /** The service the run ran on (services.id). */
  serviceId: number | null;
}

export interface TreeRow { folderId: number | null; runId: number; serviceRunId: string; createdMs: number; status: RunStatus | null; files: number; serviceId: number | null; deploymentId: string | null; appId: string | null }

/** LIKE with the user's text taken literally. */
const likeArg = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function browseQueries(db: Db) {
  // Filters combine freely, so statements are prepared per distinct SQL text and kept.
  const cache = new Map<string, BetterSqlite3.Statement<unknown[]>>();
  const prepared = (sql: string): BetterSqlite3.Statement<unknown[]> => {
    let st = cache.get(sql);
    if (!st) cache.set(sql, (st = db.prepare<unknown[]>(sql)));
    return st;
  };
  const where = (f: QueueFilter): { sql: string; args: unknown[] } => {
    const parts: string[] = [];
    const args: unknown[] = [];
    if (f.states?.length) {
      parts.push(`f.state IN (${f.states.map(() => '?').join(',')})`);
      args.push(...f.states);
    }
    if (f.folderId === 0) parts.push('f.folder_id IS NULL');
    else if (f.folderId !== undefined) {
      parts.push('f.folder_id = ?');
      args.push(f.folderId);
    }
    if (f.name) {
      parts.push("f.original_name LIKE ? ESCAPE '\\'");
      args.push(likeArg(f.name));
    }
    return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', args };
  };
  const folderStats = db.prepare<[], { folder_id: number; state: FileState; n: number; last: number }>(
    'SELECT folder_id, state, count(*) AS n, max(updated_ms) AS last FROM files WHERE folder_id IS NOT NULL GROUP BY folder_id, state');
  const runCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM runs');
  const runPage = db.prepare<[number, number], {
    id: number; service_run_id: string; deployment_id: string | null; app_id: string | null; status: RunStatus | null; msg: string | null;
    review_waiting: number; files: number; done: number; failed: number; folder_id: number | null; created_ms: number; start_ms: number | null; finish_ms: number | null; results_stored_ms: number | null;
    service_id: number | null;
  }>(`SELECT r.*, b.folder_id, (SELECT count(*) FROM files f WHERE f.batch_id = r.batch_id) AS files,
             (SELECT count(*) FROM files f WHERE f.batch_id = r.batch_id AND f.state = 'done') AS done,
             (SELECT count(*) FROM files f WHERE f.batch_id = r.batch_id AND f.state = 'failed') AS failed
      FROM runs r LEFT JOIN batches b ON b.id = r.batch_id ORDER BY r.id DESC LIMIT ? OFFSET ?`);
  const tree = db.prepare<[], { folder_id: number | null; run_id: number; service_run_id: string; created_ms: number; status: RunStatus | null; files: number; service_id: number | null; deployment_id: string | null; app_id: string | null }>(
    `SELECT b.folder_id, r.id AS run_id, r.service_run_id, r.created_ms, r.status, count(rf.id) AS files, r.service_id, r.deployment_id, r.app_id
       FROM runs r JOIN result_files rf ON rf.run_id = r.id LEFT JOIN batches b ON b.id = r.batch_id
      GROUP BY r.id ORDER BY r.id DESC`);
  const uploading = db.prepare<[], { id: number; path: string; size: number; sent: number | null }>(
    `SELECT f.id, f.path, f.size,
            (SELECT sum(p.size) FROM multipart_sessions s JOIN uploaded_parts p ON p.session_ref = s.id
              WHERE s.file_id = f.id AND s.completed_ms IS NULL AND s.aborted_ms IS NULL) AS sent
       FROM files f WHERE f.state = 'uploading' ORDER BY f.id`);
  const docRun = db.prepare<[number], { run_id: number }>(
    'SELECT rf.run_id FROM documents d JOIN result_files rf ON rf.id = d.result_file_id WHERE d.id = ?');
  const reviewWaiting = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM runs WHERE review_waiting = 1 AND deleted_ms IS NULL');
  // Scrolling asks for page after page of the same filter: its total (a count over every matching
  // file, 5-15 ms with 100,000 files and a filter) is kept until the database changes: a write on
  // this connection (total_changes) or a commit by another one (data_version).
  const changes = db.prepare<[], { n: number }>('SELECT total_changes() AS n');
  const totals = new Map<string, number>();
  let totalsAt = '';

  return {
    /** One window of the queue, newest first, and how many rows match in all. */
    queue(f: QueueFilter, offset: number, limit: number): { total: number; rows: QueueRow[] } {
      const w = where(f);
      const at = `${changes.get()!.n}:${db.pragma('data_version', { simple: true }) as number}`;
      if (at !== totalsAt || totals.size > 50) {
        totals.clear();
        totalsAt = at;
      }
      const key = JSON.stringify([w.sql, w.args]);
      let total = totals.get(key);
      if (total === undefined) {
        total = (prepared(`SELECT count(*) AS n FROM files f ${w.sql}`).get(...w.args) as { n: number }).n;
        totals.set(key, total);
      }
      const raw = prepared(
        `SELECT f.id, f.folder_id, f.path, f.original_name, f.size, f.state, f.error, f.batch_id, f.updated_ms, f.handled_by,
                (SELECT r.id FROM runs r WHERE r.batch_id = f.batch_id ORDER BY r.id DESC LIMIT 1) AS run_id,
                CASE WHEN f.state = 'running' THEN (SELECT r.review_waiting FROM runs r WHERE r.batch_id = f.batch_id ORDER BY r.id DESC LIMIT 1) END AS review_waiting,
                CASE WHEN f.state = 'running' THEN (SELECT r.review_since_ms FROM runs r WHERE r.batch_id = f.batch_id ORDER BY r.id DESC LIMIT 1) END AS review_since_ms
           FROM files f ${w.sql} ORDER BY f.id DESC LIMIT ? OFFSET ?`,
      ).all(...w.args, limit, offset) as {
        id: number; folder_id: number | null; path: string; original_name: string; size: number; state: FileState; error: string | null;
        batch_id: number | null; updated_ms: number; run_id: number | null; review_waiting: number | null; review_since_ms: number | null; handled_by: string | null;
      }[];
      return {
        total,
        rows: raw.map((r) => ({
          id: r.id, folderId: r.folder_id, path: r.path, originalName: r.original_name, size: r.size, state: r.state, error: r.error,
          batchId: r.batch_id, runId: r.run_id, updatedMs: r.updated_ms, reviewWaiting: r.review_waiting === 1,
          reviewSinceMs: r.review_waiting === 1 ? r.review_since_ms : null, handledBy: r.handled_by,
        })),
      };
    },
    /** Per folder: files in each state and the last time one changed. */
    folderStats(): Map<number, { counts: Record<FileState, number>; lastActivityMs: number | null }> {
      const out = new Map<number, { counts: Record<FileState, number>; lastActivityMs: number | null }>();
      for (const r of folderStats.all()) {
        const cur = out.get(r.folder_id) ?? { counts: zeroCounts(), lastActivityMs: null };
        cur.counts[r.state] = r.n;
        cur.lastActivityMs = Math.max(cur.lastActivityMs ?? 0, r.last);
        out.set(r.folder_id, cur);
      }
      return out;
    },
    runs(offset: number, limit: number): { total: number; rows: RunListRow[] } {
      return {
        total: runCount.get()!.n,
        rows: runPage.all(limit, offset).map((r) => ({
          id: r.id, serviceRunId: r.service_run_id, deploymentId: r.deployment_id, appId: r.app_id, status: r.status, msg: r.msg,
          reviewWaiting: r.review_waiting === 1, files: r.files, done: r.done, failed: r.failed, folderId: r.folder_id, createdMs: r.created_ms, startMs: r.start_ms,
          finishMs: r.finish_ms, resultsStored: r.results_stored_ms !== null, serviceId: r.service_id,
        })),
      };
    },
    /** Runs with stored results, newest first, with the folder their batch came from. */
    resultTree(): TreeRow[] {
      return tree.all().map((r) => ({
        folderId: r.folder_id, runId: r.run_id, serviceRunId: r.service_run_id, createdMs: r.created_ms, status: r.status, files: r.files, serviceId: r.service_id,
        deploymentId: r.deployment_id, appId: r.app_id,
      }));
    },
    reviewWaiting: (): number => reviewWaiting.get()!.n,
    /**
     * Uploads in progress as the store knows them, for hosts that do not run the engine (the
     * `status` command): bytes of the multipart parts recorded so far (0 for a single PUT).
     */
    uploads: (): { fileId: number; path: string; sent: number; total: number }[] =>
      uploading.all().map((r) => ({ fileId: r.id, path: r.path, sent: r.sent ?? 0, total: r.size })),
    /** The run a stored document belongs to. */
    runOfDocument: (documentId: number): number | undefined => docRun.get(documentId)?.run_id,
  };
}

export type BrowseQueries = ReturnType<typeof browseQueries>;
