/**
 * Files per state for the UI's status, without counting every file each time (GROUP BY state over
 * 100,000 files takes 15 ms and more, and the status is asked after every burst of changes). One exact
 * count, then kept up to date from file_events: files.add and files.transition write an event in the
 * same transaction as every change of files.state, in this process or another one. When the number
 * of files disagrees with the sum (rows written without an event), or the log grew a lot, it counts again.
 */
import { FILE_STATES, zeroCounts, type FileState } from '../../../shared/file-states.js';
import type { Db } from './db.js';

/** Past this many new events a recount is cheaper than replaying them. */
const REPLAY_MAX = 20_000;

export function stateCounter(db: Db): () => Record<FileState, number> {
  const lastEvent = db.prepare<[], { id: number }>('SELECT coalesce(max(id), 0) AS id FROM file_events');
  const byState = db.prepare<[], { state: FileState; n: number }>('SELECT state, count(*) AS n FROM files GROUP BY state');
  const since = db.prepare<[number], { id: number; from_state: FileState | null; to_state: FileState }>(
    'SELECT id, from_state, to_state FROM file_events WHERE id > ? ORDER BY id');
  const fileCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM files');
  let counts: Record<FileState, number> | null = null;
  let seen = 0;

  const recount = (): Record<FileState, number> => {
    seen = lastEvent.get()!.id;
    const out = zeroCounts();
    for (const r of byState.all()) out[r.state] = r.n;
    return out;
  };
  const replay = (c: Record<FileState, number>): boolean => {
    if (lastEvent.get()!.id - seen > REPLAY_MAX) return false;
    for (const e of since.iterate(seen)) {
      if (e.from_state) c[e.from_state]--;
      c[e.to_state]++;
      seen = e.id;
    }
    return FILE_STATES.every((s) => c[s] >= 0) && FILE_STATES.reduce((n, s) => n + c[s], 0) === fileCount.get()!.n;
  };
  // One read transaction: the counts and the last event seen belong to the same snapshot.
  const current = db.transaction((): Record<FileState, number> => {
    if (!counts || !replay(counts)) counts = recount();
    return { ...counts };
  });
  return current;
}
