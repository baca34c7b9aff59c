/**
 * The shell's log: one line per event on stderr (seen in a terminal, `npm start`, and captured by
 * the e2e test). Only URLs already redacted and one-line messages go here, never a token.
 */
import { shown } from '../../shared/shown.js';

export type Level = 'info' | 'warn' | 'error';

export function log(level: Level, msg: string): void {
  // Names in messages are escaped: a file name cannot forge a line of its own (issue 26).
  const line = shown(msg.split('\n')[0] ?? '');
  process.stderr.write(`${new Date().toISOString()} ${level} [desktop] ${line}\n`);
}

/** An error as one line for the UI or the log. */
export function oneLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return (msg.split('\n')[0] ?? '').trim() || 'unknown error';
}
