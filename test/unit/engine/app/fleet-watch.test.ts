// Shared folders' fleets reach the UI live (electron/engine/app/fleet-watch.ts): a change of any
// agent (a new heartbeat, a stale mark, files in progress) is told once, no change is not told, and
// nothing is told after stop. The clock is faked (setInterval); the fleets are plain data.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchFleets, type FleetSource } from '../../../../electron/engine/app/fleet-watch.js';
import type { FleetAgent } from '../../../../electron/engine/share/api.js';

const agent = (o: Partial<FleetAgent> = {}): FleetAgent => ({ id: 'b', name: 'scan-2', host: 'h', lastHeartbeatMs: 1000, inFlight: 1, self: false, stale: false, ...o });

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('watchFleets', () => {
  it('tells each change of a shared folder\'s fleet once, and nothing after stop', () => {
    let fleet = [agent()];
    let shared = [7];
    let fail = false;
    const src: FleetSource = {
      sharedFolders: () => {
        if (fail) throw new Error('store closed');
        return shared;
      },
      fleet: (id) => (id === 7 ? fleet : []),
    };
    const changed = vi.fn();
    const stop = watchFleets(src, changed, 1000);
    vi.advanceTimersByTime(3000);
    expect(changed).not.toHaveBeenCalled();

    fleet = [agent({ lastHeartbeatMs: 6000 })];
    vi.advanceTimersByTime(1000);
    expect(changed).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5000);
    expect(changed).toHaveBeenCalledTimes(1);

    fleet = [agent({ lastHeartbeatMs: 6000, stale: true })];
    vi.advanceTimersByTime(1000);
    expect(changed).toHaveBeenCalledTimes(2);

    // A look that fails (the store closing) is skipped, not told, not thrown.
    fail = true;
    vi.advanceTimersByTime(2000);
    expect(changed).toHaveBeenCalledTimes(2);
    fail = false;

    // A folder no longer shared is a change too.
    shared = [];
    vi.advanceTimersByTime(1000);
    expect(changed).toHaveBeenCalledTimes(3);

    stop();
    shared = [7];
    vi.advanceTimersByTime(5000);
    expect(changed).toHaveBeenCalledTimes(3);
  });
});
