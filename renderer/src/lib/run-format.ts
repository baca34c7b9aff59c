/** How runs and results read on screen: status badges, durations, confidences. Pure. */
import { runOutcome } from '../../../shared/ui/messages.js';
import type { RunStatus, RunView } from '../../../shared/ui/views.js';

export type Tone = 'ok' | 'busy' | 'wait' | 'bad' | 'muted';

export interface StatusBadge {
  label: string;
  tone: Tone;
}

/**
 * A run stopped at a checkpoint waits for a person's review: that is not an error. A completed run
 * with failed files is not a success either: it says how many failed.
 */
export function runBadge(run: Pick<RunView, 'status' | 'reviewWaiting'> & Partial<Pick<RunView, 'failed'>>): StatusBadge {
  if (run.reviewWaiting || run.status === 'STOPPED_AT_CHECKPOINT') return { label: 'waiting for review', tone: 'wait' };
  if (run.status === 'COMPLETE' && run.failed) return { label: `${run.failed} failed`, tone: 'bad' };
  return statusBadge(run.status);
}

/** A run's files as people count them: "6 files", or "4 of 6 done, 2 failed" once some failed or while not all are done. */
export function runFiles(run: Pick<RunView, 'status' | 'files' | 'done' | 'failed'>): string {
  if (run.failed > 0 || (run.status === 'COMPLETE' && run.done < run.files)) return runOutcome(run);
  return `${run.files.toLocaleString()} file${run.files === 1 ? '' : 's'}`;
}

export function statusBadge(status: RunStatus | null): StatusBadge {
  switch (status) {
    case 'COMPLETE':
      return { label: 'complete', tone: 'ok' };
    case 'RUNNING':
      return { label: 'running', tone: 'busy' };
    case 'FAILED':
      return { label: 'failed', tone: 'bad' };
    case 'CANCELLED':
      return { label: 'cancelled', tone: 'muted' };
    case 'PAUSED':
      return { label: 'paused', tone: 'wait' };
    case 'STOPPED_AT_CHECKPOINT':
      return { label: 'waiting for review', tone: 'wait' };
    default:
      return { label: 'starting', tone: 'busy' };
  }
}

/** What a run ran: its deployment, else its app, else a dash. */
export function runTarget(run: Pick<RunView, 'deploymentId' | 'appId'>): string {
  if (run.deploymentId) return run.deploymentId;
  if (run.appId) return `app ${run.appId}`;
  return '—';
}

/** Still going: its duration grows with the clock. */
export function runIsActive(run: Pick<RunView, 'status' | 'finishMs'>): boolean {
  return run.finishMs === null && (run.status === null || run.status === 'RUNNING');
}

/** Start to finish; for a run still going, start to now. Null when it has not started. */
export function runDurationMs(run: Pick<RunView, 'startMs' | 'finishMs' | 'status' | 'createdMs'>, nowMs: number): number | null {
  const start = run.startMs ?? (runIsActive(run) ? run.createdMs : null);
  if (start === null) return null;
  const end = run.finishMs ?? (runIsActive(run) ? nowMs : null);
  if (end === null) return null;
  return Math.max(0, end - start);
}

/** "850 ms", "42 s", "3 min 05 s", "2 h 07 min". */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, '0')} min`;
}

/** 0..1 as a whole percentage; "—" when unknown. */
export function formatConfidence(c: number | null): string {
  if (c === null || !Number.isFinite(c)) return '—';
  const pct = c <= 1 ? c * 100 : c;
  return `${Math.round(Math.min(100, Math.max(0, pct)))} %`;
}

/** Low confidence deserves a second look; the threshold is where people usually start checking. */
export function confidenceTone(c: number | null): Tone {
  if (c === null || !Number.isFinite(c)) return 'muted';
  const v = c <= 1 ? c : c / 100;
  if (v >= 0.9) return 'ok';
  if (v >= 0.6) return 'wait';
  return 'bad';
}

/** A local date and time, short: today shows only the time (with seconds when asked, to tell runs apart). */
export function formatWhen(ms: number | null, nowMs: number = Date.now(), seconds = false): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const now = new Date(nowMs);
  const time = d.toLocaleTimeString(undefined, seconds ? { hour: '2-digit', minute: '2-digit', second: '2-digit' } : { hour: '2-digit', minute: '2-digit' });
  if (d.toDateString() === now.toDateString()) return time;
  const sameYear = d.getFullYear() === now.getFullYear();
  const date = d.toLocaleDateString(undefined, sameYear ? { month: 'short', day: 'numeric' } : { year: 'numeric', month: 'short', day: 'numeric' });
  return `${date} ${time}`;
}

/**
 * When a run was made, always with its date (a time alone does not tell today's runs from
 * yesterday's) and seconds (to tell runs of one minute apart); the year only when it is not this one.
 */
export function formatRunWhen(ms: number | null, nowMs: number = Date.now()): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const sameYear = d.getFullYear() === new Date(nowMs).getFullYear();
  const date = d.toLocaleDateString(undefined, sameYear ? { month: 'short', day: 'numeric' } : { year: 'numeric', month: 'short', day: 'numeric' });
  return `${date}, ${d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`;
}

/** The last part of a path (either separator), for tree labels. */
export function baseName(path: string | null): string {
  if (!path) return 'Dropped in by hand';
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/**
 * A document's pages as people read them: the service's page_numbers already count from 1, so
 * they are shown as they are. Long: "page 2", "pages 2–3", "no pages"; short: "p. 2", "pp. 2–3", "".
 */
export function formatPages(pageNumbers: readonly number[], style: 'long' | 'short' = 'long'): string {
  const first = pageNumbers[0];
  const last = pageNumbers[pageNumbers.length - 1];
  if (first === undefined || last === undefined) return style === 'long' ? 'no pages' : '';
  const one = style === 'long' ? 'page' : 'p.';
  const many = style === 'long' ? 'pages' : 'pp.';
  return pageNumbers.length === 1 ? `${one} ${first}` : `${many} ${first}–${last}`;
}
