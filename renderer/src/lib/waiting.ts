/**
 * Why a file that is not finished waits, and for how long, in the user's words ("waiting for more
 * files (8 s)", "offline: uploads when the service is back"). Pure: the row passes the clock.
 */
import type { ConnectionState, FileView } from '../../../shared/ui/views.js';
import { formatDuration } from './run-format.js';

export interface WaitContext {
  paused: boolean;
  connection: ConnectionState;
  nowMs: number;
}

const SENDING = ['discovered', 'stable', 'queued', 'uploading'];

/** Null when the file is not waiting (moving, finished) or there is nothing to say. */
export function waitingText(
  f: Pick<FileView, 'state' | 'batchId' | 'reviewWaiting' | 'reviewSinceMs' | 'batchClosesMs' | 'updatedMs'> & Partial<Pick<FileView, 'handledBy'>>, c: WaitContext,
): string | null {
  // Shared folders: another agent works on it, whatever this one's pause or connection.
  if (f.state === 'elsewhere') return f.handledBy ? `With another agent: ${f.handledBy}` : 'With another agent';
  // From when the run was first seen waiting; the file's own time (its run's start) only if that is unknown.
  if (f.state === 'running') return f.reviewWaiting ? `waiting for review (${since(f.reviewSinceMs ?? f.updatedMs, c.nowMs)})` : null;
  if (!SENDING.includes(f.state)) return null;
  if (c.paused) return 'paused: goes on when you resume';
  const conn = c.connection;
  if (conn.kind === 'offline') return `offline: uploads when the service is back (${since(conn.sinceMs, c.nowMs)})`;
  if (conn.kind === 'refused') return 'not signed in: uploads once you sign in again';
  if (conn.kind === 'none') return 'not signed in: uploads once you sign in';
  if (f.state === 'uploading') return null;
  if (f.state === 'discovered' || f.state === 'stable') return 'checking the file is complete';
  if (f.batchId === null && f.batchClosesMs !== null) {
    return `waiting for more files (${Math.max(1, Math.ceil((f.batchClosesMs - c.nowMs) / 1000))} s)`;
  }
  return `waiting to upload (${since(f.updatedMs, c.nowMs)})`;
}

/** "for 42 s", "for 3 min 05 s". */
function since(fromMs: number, nowMs: number): string {
  return `for ${formatDuration(Math.max(1000, nowMs - fromMs))}`;
}

/** A row needs a ticking clock while its text counts. */
export const counts = (text: string | null): boolean => text !== null && /\(/.test(text);
