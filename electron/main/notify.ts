/**
 * Native notifications when a run completes, fails, is cancelled or waits for review (from the
 * core's `run` events; wording in notify-text.ts). Clicking one brings the window forward.
 */
import { Notification } from 'electron';
import type { RunView } from '../../shared/ui/views.js';
import type { CorePort } from './core-port.js';
import { log } from './log.js';
import { RunAnnouncer } from './notify-text.js';

export function startRunNotifications(core: CorePort, onClick: () => void): () => void {
  if (!Notification.isSupported()) {
    log('info', 'desktop notifications are not supported here; runs are shown in the window only');
    return () => {};
  }
  const announcer = new RunAnnouncer();
  // Kept referenced until closed: a collected Notification loses its click handler (Windows).
  const live = new Set<Notification>();
  const onRun = (run: RunView): void => {
    const text = announcer.next(run);
    if (!text) return;
    const n = new Notification({ title: text.title, body: text.body, urgency: text.urgent ? 'critical' : 'normal', silent: !text.urgent });
    live.add(n);
    // Some Linux notification daemons never report "closed": keep only the latest few.
    if (live.size > 20) {
      const oldest = live.values().next().value as Notification;
      live.delete(oldest);
    }
    n.on('click', onClick);
    n.on('close', () => live.delete(n));
    n.show();
  };
  core.events.on('run', onRun);
  return () => {
    core.events.off('run', onRun);
    for (const n of live) n.close();
    live.clear();
  };
}
