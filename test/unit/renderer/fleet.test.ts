// How a shared folder's agents read (renderer/src/lib/fleet.ts): when each last gave a sign of life,
// and what its state means for its files, in words.
import { describe, expect, it } from 'vitest';
import type { FleetAgentView } from '../../../shared/ui/views.js';
import { agentLine, fleetTitle, handledByText, seenAgo } from '../../../renderer/src/lib/fleet.js';

const NOW = 10_000_000;
const share = { leaseMs: 60_000, heartbeatMs: 5000 };
const agent = (o: Partial<FleetAgentView> = {}): FleetAgentView => ({ id: 'b-1', name: 'scan-2', host: 'scan-2.local', lastHeartbeatMs: NOW - 3000, inFlight: 4, self: false, stale: false, ...o });

describe('fleet', () => {
  it('says when an agent last gave a sign of life, in seconds', () => {
    expect(seenAgo(NOW - 3000, NOW)).toBe('3 s ago');
    expect(seenAgo(NOW - 75_000, NOW)).toBe('1 min 15 s ago');
    expect(seenAgo(NOW + 5, NOW)).toBe('just now');
    expect(seenAgo(null, NOW)).toBe('not seen yet');
  });

  it('marks this computer, and a live agent as working or ready', () => {
    expect(agentLine(agent({ self: true }), share, NOW)).toEqual({ seen: '3 s ago', status: 'This computer', detail: '', tone: 'self' });
    expect(agentLine(agent(), share, NOW)).toMatchObject({ status: 'Working', tone: 'ok', detail: '' });
    expect(agentLine(agent({ inFlight: 0 }), share, NOW)).toMatchObject({ status: 'Ready', tone: 'ok' });
  });

  it('says a silent agent is late, and when its files are taken over', () => {
    const late = agentLine(agent({ lastHeartbeatMs: NOW - 20_000 }), share, NOW);
    expect(late).toEqual({ seen: '20 s ago', status: 'Late', detail: 'Its files are taken over after 1 min without a sign of life (in 40 s).', tone: 'late' });
    // Two heartbeats are allowed to pass unremarked.
    expect(agentLine(agent({ lastHeartbeatMs: NOW - 10_000 }), share, NOW).tone).toBe('ok');
  });

  it('says a stale agent stopped answering and that its files are taken over', () => {
    expect(agentLine(agent({ stale: true, lastHeartbeatMs: NOW - 65_000 }), share, NOW)).toEqual({
      seen: '1 min 5 s ago', status: 'Stopped answering', tone: 'stale',
      detail: 'Its files are taken over after 1 min without a sign of life: the other agents are taking them over.',
    });
    expect(agentLine(agent({ stale: true, inFlight: 0, lastHeartbeatMs: null }), share, NOW)).toMatchObject({ seen: 'not seen yet', detail: 'No sign of life for longer than 1 min; it holds no files.' });
  });

  it('titles the fleet by its share and the other agents', () => {
    expect(fleetTitle('north', 1)).toBe('Shared as “north” with no other agent yet');
    expect(fleetTitle('north', 2)).toBe('Shared as “north” with 1 other agent');
    expect(fleetTitle('north', 3)).toBe('Shared as “north” with 2 other agents');
  });

  it('says who handles a file and what happens if it stops', () => {
    expect(handledByText('scan-2', 45_000, false)).toBe('scan-2, another DocSync agent sharing this folder, is processing it. If scan-2 gives no sign of life for 45 s, an agent still running takes the file over and processes it.');
    expect(handledByText(null, 60_000, false)).toBe('Another DocSync agent sharing this folder is processing it. If that agent gives no sign of life for 1 min, an agent still running takes the file over and processes it.');
    expect(handledByText('scan-2', 60_000, true)).toBe('scan-2, another DocSync agent sharing this folder, stopped answering: its files are being taken over.');
  });
});
