/**
 * What the tray says: one state, a short label for the menu and a tooltip. Pure, so the wording
 * is unit tested without a desktop.
 */
import { ACTIVE_STATES } from '../../shared/file-states.js';
import type { ConnectionState, StatusView } from '../../shared/ui/views.js';

export type TrayState = 'starting' | 'idle' | 'syncing' | 'paused' | 'errors' | 'offline';

export interface TrayLabel {
  state: TrayState;
  /** The status line at the top of the tray menu. */
  label: string;
  tooltip: string;
  /** The pause/resume menu item's text. */
  toggle: 'Pause syncing' | 'Resume syncing';
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * Priority: paused (nothing moves until resumed) > offline or signed out (nothing can move) > syncing > errors
 * > idle. Failed files are mentioned alongside syncing so they are not hidden while work goes on.
 */
export function trayLabel(status: StatusView | null, connection: ConnectionState | null = null): TrayLabel {
  if (!status) return { state: 'starting', label: 'Starting…', tooltip: 'DocSync: starting', toggle: 'Pause syncing' };
  const active = ACTIVE_STATES.reduce((n, s) => n + (status.counts[s] ?? 0), 0);
  const failed = status.counts.failed ?? 0;
  const errors = failed > 0 ? plural(failed, 'error') : '';
  const review = status.reviewWaiting > 0 ? `${plural(status.reviewWaiting, 'run')} waiting for review` : '';
  const extra = (...parts: string[]): string => parts.filter(Boolean).map((p) => `, ${p}`).join('');
  const toggle = status.paused ? 'Resume syncing' : 'Pause syncing';
  let state: TrayState;
  let label: string;
  if (status.paused) {
    state = 'paused';
    label = `Paused${active ? ` (${plural(active, 'file')} waiting)` : ''}${extra(errors)}`;
  } else if (connection && connection.kind !== 'online' && connection.kind !== 'connecting') {
    state = 'offline';
    const why = connection.kind === 'offline' ? 'Offline' : connection.kind === 'refused' ? 'Service refused access' : 'Not signed in';
    label = `${why}${active ? ` (${plural(active, 'file')} waiting)` : ''}${extra(errors)}`;
  } else if (active > 0) {
    state = 'syncing';
    label = `Syncing ${plural(active, 'file')}${extra(errors)}`;
  } else if (failed > 0) {
    state = 'errors';
    label = `${plural(failed, 'file')} failed`;
  } else {
    state = 'idle';
    label = 'Up to date';
  }
  label += extra(review);
  return { state, label, tooltip: `DocSync: ${label}`, toggle };
}
