/**
 * Which run events deserve a desktop notification, and their wording. Pure: a run is announced
 * once per final (or review) status, however often the engine re-sends it (results stored, ...).
 */
import { runOutcome } from '../../shared/ui/messages.js';
import type { RunView } from '../../shared/ui/views.js';

export interface NotificationText {
  title: string;
  body: string;
  /** Failures ask for attention (urgency on Linux, no silent flag). */
  urgent: boolean;
}

const files = (n: number): string => `${n.toLocaleString('en-US')} ${n === 1 ? 'file' : 'files'}`;
const what = (r: RunView): string => r.deploymentId ?? r.appId ?? 'the service';
/** The service's message, cut to one short line. */
const reason = (msg: string | null): string => {
  const line = (msg ?? '').split('\n')[0]?.trim() ?? '';
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
};

export function runNotification(r: RunView): NotificationText | null {
  switch (r.status) {
    case 'COMPLETE':
      // Partial failure is not success.
      if (r.failed > 0) return { title: 'Run finished with failed files', body: `${runOutcome(r)} by ${what(r)}.`, urgent: true };
      return { title: 'Run complete', body: `${files(r.files)} processed by ${what(r)}.`, urgent: false };
    case 'FAILED':
      return { title: 'Run failed', body: `${files(r.files)} in ${what(r)}: ${reason(r.msg) || 'the service did not say why'}`, urgent: true };
    case 'STOPPED_AT_CHECKPOINT':
      return { title: 'Run waiting for review', body: `${files(r.files)} in ${what(r)} need a person to review them.`, urgent: false };
    case 'CANCELLED':
      return { title: 'Run cancelled', body: `${files(r.files)} in ${what(r)}${reason(r.msg) ? `: ${reason(r.msg)}` : ''}`, urgent: false };
    default:
      return null;
  }
}

/** Remembers which (run, status) pairs were announced; bounded so a long session stays small. */
export class RunAnnouncer {
  readonly #seen = new Set<string>();
  constructor(private readonly limit = 5000) {}

  /** The notification for this event, or null when there is nothing new to say. */
  next(r: RunView): NotificationText | null {
    const text = runNotification(r);
    if (!text) return null;
    // The service says COMPLETE before DocSync has finished the run's files: their outcome comes later.
    if (r.status === 'COMPLETE' && r.done + r.failed < r.files) return null;
    const key = `${r.id}:${r.status}`;
    if (this.#seen.has(key)) return null;
    this.#seen.add(key);
    if (this.#seen.size > this.limit) this.#seen.delete(this.#seen.values().next().value as string);
    return text;
  }
}
