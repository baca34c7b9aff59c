/**
 * Local files seen (table `files`), their state history (`file_events`) and multipart upload
 * sessions with their parts (`multipart_sessions`, `uploaded_parts`).
 */
import { FILE_STATES, zeroCounts, type FileState } from '../../../shared/file-states.js';
import type { Db } from './db.js';

export { FILE_STATES, type FileState };

export interface FileRow {
  id: number;
  folderId: number | null;
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string | null;
  state: FileState;
  originalName: string;
  safeName: string | null;
  batchId: number | null;
  servicePath: string | null;
  error: string | null;
  createdMs: number;
  updatedMs: number;
  /** Shared folders (issue 15): the name of the agent that holds this file's content, when another agent handles it. */
  handledBy: string | null;
}

export interface FileEvent {
  id: number;
  fileId: number;
  fromState: FileState | null;
  toState: FileState;
  atMs: number;
  error: string | null;
}

export interface NewFile {
  folderId?: number | null;
  path: string;
  size: number;
  mtimeMs: number;
  sha256?: string | null;
  originalName: string;
  /** Default 'discovered'. */
  state?: FileState;
}

/** One file's change of state (transitionMany). */
export interface StateChange {
  fileId: number;
  to: FileState;
  /** Stored on the file too; cleared when omitted. */
  error?: string | null;
}

export interface MultipartSession {
  id: number;
  fileId: number;
  sessionId: string;
  servicePath: string;
  partSize: number;
  fileSize: number;
  mtimeMs: number;
  createdMs: number;
  completedMs: number | null;
  abortedMs: number | null;
  /** The service holding the session (services.id). */
  serviceId: number | null;
  parts: UploadedPart[];
}

export interface UploadedPart {
  partNum: number;
  partId: string;
  size: number;
  atMs: number;
}

interface Raw {
  id: number; folder_id: number | null; path: string; size: number; mtime_ms: number; sha256: string | null; state: FileState;
  original_name: string; safe_name: string | null; batch_id: number | null; service_path: string | null; error: string | null;
  created_ms: number; updated_ms: number; handled_by: string | null;
}
interface RawEvent { id: number; file_id: number; from_state: FileState | null; to_state: FileState; at_ms: number; error: string | null }
interface RawSession {
  id: number; file_id: number; service_id: number | null; session_id: string; service_path: string; part_size: number; file_size: number; mtime_ms: number;
  created_ms: number; completed_ms: number | null; aborted_ms: number | null;
}
interface RawPart { part_num: number; part_id: string; size: number; at_ms: number }

const row = (r: Raw): FileRow => ({
  id: r.id, folderId: r.folder_id, path: r.path, size: r.size, mtimeMs: r.mtime_ms, sha256: r.sha256, state: r.state,
  originalName: r.original_name, safeName: r.safe_name, batchId: r.batch_id, servicePath: r.service_path, error: r.error,
  createdMs: r.created_ms, updatedMs: r.updated_ms, handledBy: r.handled_by ?? null,
});
const event = (r: RawEvent): FileEvent => ({ id: r.id, fileId: r.file_id, fromState: r.from_state, toState: r.to_state, atMs: r.at_ms, error: r.error });
/** fs.Stats.mtimeMs is fractional; the store keeps whole milliseconds. */
const ms = (n: number): number => Math.floor(n);

export class UnknownFileError extends Error {
  override name = 'UnknownFileError';
}

export function filesQueries(db: Db, now: () => number = Date.now) {
  const insert = db.prepare<[number | null, string, number, number, string | null, FileState, string, number, number], Raw>(
    `INSERT INTO files (folder_id, path, size, mtime_ms, sha256, state, original_name, created_ms, updated_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`);
  const insertEvent = db.prepare<[number, FileState | null, FileState, number, string | null]>(
    'INSERT INTO file_events (file_id, from_state, to_state, at_ms, error) VALUES (?, ?, ?, ?, ?)');
  const byId = db.prepare<[number], Raw>('SELECT * FROM files WHERE id = ?');
  const latestByPath = db.prepare<[string], Raw>('SELECT * FROM files WHERE path = ? ORDER BY id DESC LIMIT 1');
  const byState = db.prepare<[FileState], Raw>('SELECT * FROM files WHERE state = ? ORDER BY id');
  const byFolder = db.prepare<[number], Raw>('SELECT * FROM files WHERE folder_id = ? ORDER BY id');
  const byBatch = db.prepare<[number], Raw>('SELECT * FROM files WHERE batch_id = ? ORDER BY id');
  const inBatch = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM files WHERE batch_id = ?');
  const outcomeOfBatch = db.prepare<[number], { n: number; done: number; failed: number }>(
    "SELECT count(*) AS n, coalesce(sum(state = 'done'), 0) AS done, coalesce(sum(state = 'failed'), 0) AS failed FROM files WHERE batch_id = ?");
  const all = db.prepare<[], Raw>('SELECT * FROM files ORDER BY id');
  const counts = db.prepare<[], { state: FileState; n: number }>('SELECT state, count(*) AS n FROM files GROUP BY state');
  const doneBySha = db.prepare<{ sha: string; except: number; service: number | null }, Raw>(
    `SELECT * FROM files f WHERE sha256 = @sha AND state = 'done' AND id != @except
       AND (@service IS NULL OR (SELECT b.service_id FROM batches b WHERE b.id = f.batch_id) = @service) ORDER BY id DESC LIMIT 1`);
  const setState = db.prepare<[FileState, string | null, number, number]>('UPDATE files SET state = ?, error = ?, updated_ms = ? WHERE id = ?');
  const setSeen = db.prepare<[number, number, string | null, number, number]>('UPDATE files SET size = ?, mtime_ms = ?, sha256 = ?, updated_ms = ? WHERE id = ?');
  const setUpload = db.prepare<[string | null, number | null, string | null, number, number]>(
    'UPDATE files SET safe_name = ?, batch_id = ?, service_path = ?, updated_ms = ? WHERE id = ?');
  const placeBatch = db.prepare<{ dir: string; t: number; batch: number }>(
    `UPDATE files SET service_path = @dir || '/' || safe_name, updated_ms = @t
     WHERE batch_id = @batch AND safe_name IS NOT NULL AND state IN ('queued', 'uploading', 'uploaded', 'running') AND service_path IS NOT (@dir || '/' || safe_name)`);
  const namesake = db.prepare<[string, string], { n: number }>('SELECT 1 AS n FROM files WHERE original_name = ? AND path != ? LIMIT 1');
  const setHandler = db.prepare<[string | null, number]>('UPDATE files SET handled_by = ? WHERE id = ?');
  const events = db.prepare<[number], RawEvent>('SELECT * FROM file_events WHERE file_id = ? ORDER BY id');

  const insertSession = db.prepare<[number, string, string, number, number, number, number, number | null], RawSession>(
    `INSERT INTO multipart_sessions (file_id, session_id, service_path, part_size, file_size, mtime_ms, created_ms, service_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`);
  const openSession = db.prepare<[number, number | null], RawSession>(
    'SELECT * FROM multipart_sessions WHERE file_id = ? AND service_id IS ? AND completed_ms IS NULL AND aborted_ms IS NULL ORDER BY id DESC LIMIT 1');
  const abandonSessions = db.prepare<[number, number]>(
    'UPDATE multipart_sessions SET aborted_ms = ? WHERE file_id = ? AND completed_ms IS NULL AND aborted_ms IS NULL');
  const sessionById = db.prepare<[number], RawSession>('SELECT * FROM multipart_sessions WHERE id = ?');
  const parts = db.prepare<[number], RawPart>('SELECT part_num, part_id, size, at_ms FROM uploaded_parts WHERE session_ref = ? ORDER BY part_num');
  const insertPart = db.prepare<[number, number, string, number, number]>(
    `INSERT INTO uploaded_parts (session_ref, part_num, part_id, size, at_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session_ref, part_num) DO UPDATE SET part_id = excluded.part_id, size = excluded.size, at_ms = excluded.at_ms`);
  const completeSession = db.prepare<[number, number]>('UPDATE multipart_sessions SET completed_ms = ? WHERE id = ?');
  const abortSession = db.prepare<[number, number]>('UPDATE multipart_sessions SET aborted_ms = ? WHERE id = ?');

  const session = (r: RawSession): MultipartSession => ({
    id: r.id, fileId: r.file_id, sessionId: r.session_id, servicePath: r.service_path, partSize: r.part_size, fileSize: r.file_size,
    mtimeMs: r.mtime_ms, createdMs: r.created_ms, completedMs: r.completed_ms, abortedMs: r.aborted_ms, serviceId: r.service_id,
    parts: parts.all(r.id).map((p) => ({ partNum: p.part_num, partId: p.part_id, size: p.size, atMs: p.at_ms })),
  });

  const add = db.transaction((f: NewFile): FileRow => {
    const t = now();
    const state = f.state ?? 'discovered';
    const r = insert.get(f.folderId ?? null, f.path, f.size, ms(f.mtimeMs), f.sha256 ?? null, state, f.originalName, t, t)!;
    insertEvent.run(r.id, null, state, t, null);
    return row(r);
  });

  // A change is two statements, not three (a SELECT of the row before): the event reads the state it
  // leaves from the row itself, and the UPDATE returns the row after (issue 14, per-file statements).
  const eventFromRow = db.prepare<[FileState, number, string | null, number], { id: number; from_state: FileState }>(
    'INSERT INTO file_events (file_id, from_state, to_state, at_ms, error) SELECT id, state, ?, ?, ? FROM files WHERE id = ? RETURNING id, from_state');
  const setStateReturning = db.prepare<[FileState, string | null, number, number], Raw>('UPDATE files SET state = ?, error = ?, updated_ms = ? WHERE id = ? RETURNING *');
  const dropEvent = db.prepare<[number]>('DELETE FROM file_events WHERE id = ?');
  const change = (fileId: number, to: FileState, error: string | null): { file: FileRow; from: FileState } => {
    const t = now();
    const ev = eventFromRow.get(to, t, error, fileId);
    if (!ev) throw new UnknownFileError(`no file with id ${fileId} in the store`);
    let after: Raw;
    try {
      after = setStateReturning.get(to, error, t, fileId)!;
    } catch (e) {
      // Refused (a state the schema does not know): its event goes too, also where no savepoint would undo it.
      dropEvent.run(ev.id);
      throw e;
    }
    return { file: row(after), from: ev.from_state };
  };
  const transition = db.transaction((fileId: number, to: FileState, error: string | null = null): FileRow => change(fileId, to, error).file);
  const transitionMany = db.transaction((changes: readonly StateChange[]) => changes.map((c) => change(c.fileId, c.to, c.error ?? null)));
  // A new file's history in one statement: up to 3 steps (discovered, stable, queued), one row each.
  const insertSteps = [1, 2, 3].map((n) => db.prepare(
    `INSERT INTO file_events (file_id, from_state, to_state, at_ms, error) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, NULL)').join(', ')}`));
  const addThrough = db.transaction((f: NewFile, steps: readonly FileState[]): FileRow => {
    const t = now();
    const r = insert.get(f.folderId ?? null, f.path, f.size, ms(f.mtimeMs), f.sha256 ?? null, steps[steps.length - 1] as FileState, f.originalName, t, t)!;
    (insertSteps[steps.length - 1] as (typeof insertSteps)[number]).run(steps.flatMap((s, i) => [r.id, i === 0 ? null : steps[i - 1], s, t]));
    return row(r);
  });

  return {
    /** Records a newly seen file with its first event (null -> state). */
    add: (f: NewFile): FileRow => add.immediate(f),
    /**
     * Records a newly seen file that goes through `steps` (1 to 3 states, e.g. discovered, stable,
     * queued) in the same transaction: one row in the last state, one history row per step as add()
     * and transition() would write them, with the same time. Inside a caller's transaction (the group
     * commit) no savepoint of its own.
     */
    addThrough(f: NewFile, steps: readonly FileState[]): FileRow {
      if (steps.length < 1 || steps.length > 3) throw new Error(`addThrough takes 1 to 3 steps, not ${steps.length}`);
      return db.inTransaction ? addThrough(f, steps) : addThrough.immediate(f, steps);
    },
    get(id: number): FileRow | undefined {
      const r = byId.get(id);
      return r && row(r);
    },
    /** The most recent row for a local path. */
    byPath(path: string): FileRow | undefined {
      const r = latestByPath.get(path);
      return r && row(r);
    },
    /** Whether another path holds a file of the same name: then a message names its folder too. */
    hasNamesake(f: Pick<FileRow, 'originalName' | 'path'>): boolean {
      return namesake.get(f.originalName, f.path) !== undefined;
    },
    list(filter: { state?: FileState; folderId?: number; batchId?: number } = {}): FileRow[] {
      const rs = filter.state !== undefined ? byState.all(filter.state)
        : filter.folderId !== undefined ? byFolder.all(filter.folderId)
          : filter.batchId !== undefined ? byBatch.all(filter.batchId)
            : all.all();
      return rs.filter((r) => (filter.folderId === undefined || r.folder_id === filter.folderId) && (filter.batchId === undefined || r.batch_id === filter.batchId)).map(row);
    },
    /** Number of files in a batch. */
    countInBatch(batchId: number): number {
      return inBatch.get(batchId)?.n ?? 0;
    },
    /** Files of a batch, and how many of them are done and failed (a run's outcome). */
    outcomeOfBatch(batchId: number): { files: number; done: number; failed: number } {
      const r = outcomeOfBatch.get(batchId);
      return { files: r?.n ?? 0, done: r?.done ?? 0, failed: r?.failed ?? 0 };
    },
    /** Number of files in each state (every state present, 0 when none). */
    countByState(): Record<FileState, number> {
      const out = zeroCounts();
      for (const c of counts.all()) out[c.state] = c.n;
      return out;
    },
    /**
     * Another file with the same content that was processed to the end (for duplicate skipping);
     * with `serviceId`, processed by that service (what another service made of it is not its result).
     */
    doneWithSameContent(sha256: string, exceptId = -1, serviceId: number | null = null): FileRow | undefined {
      const r = doneBySha.get({ sha: sha256, except: exceptId, service: serviceId });
      return r && row(r);
    },
    /**
     * Moves a file to state `to` and records the event (from, to, time, error) in the same
     * transaction. `error` is stored on the file too (cleared when omitted). Throws UnknownFileError.
     */
    transition: (fileId: number, to: FileState, error?: string | null): FileRow => transition.immediate(fileId, to, error ?? null),
    /**
     * Several state changes in one transaction (all or none), each with its event as transition()
     * writes it. Returns each file's row after and its state before. Throws UnknownFileError.
     */
    transitionMany: (changes: readonly StateChange[]): { file: FileRow; from: FileState }[] =>
      // One change inside a caller's transaction needs no savepoint: it fails before it writes (unknown file) or not at all.
      changes.length === 1 && db.inTransaction ? [change(changes[0]!.fileId, changes[0]!.to, changes[0]!.error ?? null)] : transitionMany.immediate(changes),
    /**
     * Where every file of a batch waiting to be sent, sent or running goes on the service:
     * `servicePath`/its safe name, for the whole batch in one statement (not one per file before its
     * upload). Also once its run started, when the path was asked for then (uploader.ts, issue 27).
     */
    placeBatch(batchId: number, servicePath: string): number {
      return placeBatch.run({ dir: servicePath, t: now(), batch: batchId }).changes;
    },
    /** Records which agent of the folder's share handles the file (null: none other than this one). */
    setHandledBy(fileId: number, name: string | null): void {
      setHandler.run(name, fileId);
    },
    /** The file's state history, oldest first. */
    history(fileId: number): FileEvent[] {
      return events.all(fileId).map(event);
    },
    /** Records what was seen on disk (size, mtime, hash) at the last look. */
    observe(fileId: number, seen: { size: number; mtimeMs: number; sha256?: string | null }): void {
      const cur = byId.get(fileId);
      if (!cur) throw new UnknownFileError(`no file with id ${fileId} in the store`);
      setSeen.run(seen.size, ms(seen.mtimeMs), seen.sha256 === undefined ? cur.sha256 : seen.sha256, now(), fileId);
    },
    /** Records where the file goes on the service: its safe name, batch and service path. */
    assign(fileId: number, a: { safeName: string | null; batchId: number | null; servicePath: string | null }): void {
      if (setUpload.run(a.safeName, a.batchId, a.servicePath, now(), fileId).changes === 0) throw new UnknownFileError(`no file with id ${fileId} in the store`);
    },

    /** Records a multipart session just opened on service `serviceId` for a file. */
    startMultipart(s: { fileId: number; serviceId?: number | null; sessionId: string; servicePath: string; partSize: number; fileSize: number; mtimeMs: number }): MultipartSession {
      return session(insertSession.get(s.fileId, s.sessionId, s.servicePath, s.partSize, s.fileSize, ms(s.mtimeMs), now(), s.serviceId ?? null)!);
    },
    /** The file's open (neither completed nor aborted) multipart session on service `serviceId`, with the parts already acknowledged. */
    openMultipart(fileId: number, serviceId: number | null = null): MultipartSession | undefined {
      const r = openSession.get(fileId, serviceId);
      return r && session(r);
    },
    multipart(id: number): MultipartSession | undefined {
      const r = sessionById.get(id);
      return r && session(r);
    },
    /** Records a part the service acknowledged (idempotent per part number: a re-sent part replaces it). */
    recordPart(sessionRef: number, p: { partNum: number; partId: string; size: number }): void {
      insertPart.run(sessionRef, p.partNum, p.partId, p.size, now());
    },
    completeMultipart(sessionRef: number): void {
      completeSession.run(now(), sessionRef);
    },
    abortMultipart(sessionRef: number): void {
      abortSession.run(now(), sessionRef);
    },
    /** Gives up every open session of the file, on whatever service (it is uploaded afresh elsewhere). */
    abandonMultipart(fileId: number): void {
      abandonSessions.run(now(), fileId);
    },
  };
}

export type FilesQueries = ReturnType<typeof filesQueries>;
