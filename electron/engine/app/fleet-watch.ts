/**
 * Shared folders' fleets reach the UI live (issue 15): heartbeats change them with no file moving,
 * so no `file` or `status` event would carry them. The fleets are the share's in-memory view
 * (Engine.fleet), cheap to read: a look every `everyMs` and a call of `changed` when any differs
 * from the last look, which re-sends the folders as a `folders` event.
 */
import type { FleetAgent } from '../share/api.js';

export interface FleetSource {
  /** Ids of the folders that are shared now. */
  sharedFolders(): number[];
  fleet(folderId: number): readonly FleetAgent[];
}

export const FLEET_LOOK_MS = 1000;

/** What of a fleet the UI shows, as one comparable string. */
const signature = (src: FleetSource): string =>
  JSON.stringify(src.sharedFolders().map((id) => [id, src.fleet(id).map((a) => [a.id, a.name, a.host, a.lastHeartbeatMs, a.inFlight, a.self, a.stale])]));

/** Starts looking; returns the stop function. A look that throws (the store closing) is skipped, not fatal. */
export function watchFleets(src: FleetSource, changed: () => void, everyMs = FLEET_LOOK_MS): () => void {
  const read = (): string | null => {
    try {
      return signature(src);
    } catch {
      return null;
    }
  };
  // The UI reads the folders itself when it starts: only later changes are told.
  let last = read();
  const look = (): void => {
    const now = read();
    if (now === null || now === last) return;
    last = now;
    changed();
  };
  const timer = setInterval(look, everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
