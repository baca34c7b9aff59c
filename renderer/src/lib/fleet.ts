/**
 * How the agents of a shared folder (issue 15) read on the Hot folders and Activity screens: when
 * each last gave a sign of life, and what that means for its files, in words (not only colour).
 * Pure: the caller passes the clock.
 */
import type { FleetAgentView } from '../../../shared/ui/views.js';
import type { ShareSettings } from '../../../shared/hot-folder.js';
import { formatDuration } from './format.js';

export type AgentTone = 'self' | 'ok' | 'late' | 'stale';

export interface AgentLine {
  /** "3 s ago", "1 min 5 s ago", "not seen yet". */
  seen: string;
  /** A word or two for the status column: "This computer", "Working", "Late", "Stopped answering". */
  status: string;
  /** What the status means for its files; empty when nothing needs saying. */
  detail: string;
  tone: AgentTone;
}

/** "3 s ago"; under a second "just now" (clocks of one machine, a heartbeat can be a few ms ahead). */
export function seenAgo(ms: number | null, nowMs: number): string {
  if (ms === null) return 'not seen yet';
  const d = nowMs - ms;
  return d < 1000 ? 'just now' : `${formatDuration(d)} ago`;
}

/** One agent's row. `share` gives the lease (after how long its files are taken over) and the heartbeat. */
export function agentLine(a: FleetAgentView, share: Pick<ShareSettings, 'leaseMs' | 'heartbeatMs'>, nowMs: number): AgentLine {
  const seen = seenAgo(a.lastHeartbeatMs, nowMs);
  const lease = formatDuration(share.leaseMs);
  if (a.self) return { seen, status: 'This computer', detail: '', tone: 'self' };
  if (a.stale) {
    const detail = a.inFlight > 0
      ? `Its files are taken over after ${lease} without a sign of life: the other agents are taking them over.`
      : `No sign of life for longer than ${lease}; it holds no files.`;
    return { seen, status: 'Stopped answering', detail, tone: 'stale' };
  }
  // Two heartbeats missed: say so before the lease runs out, and when its files would go.
  const silentMs = a.lastHeartbeatMs === null ? null : nowMs - a.lastHeartbeatMs;
  if (silentMs !== null && silentMs > 2 * share.heartbeatMs) {
    const left = Math.max(0, share.leaseMs - silentMs);
    return { seen, status: 'Late', detail: `Its files are taken over after ${lease} without a sign of life (in ${formatDuration(Math.max(1000, left))}).`, tone: 'late' };
  }
  return { seen, status: a.inFlight > 0 ? 'Working' : 'Ready', detail: '', tone: 'ok' };
}

/**
 * The fleet's heading: "Shared as “north” with 2 other agents". `agents` counts this one too.
 */
export function fleetTitle(name: string, agents: number): string {
  const others = Math.max(0, agents - 1);
  return `Shared as “${name}” with ${others === 0 ? 'no other agent yet' : others === 1 ? '1 other agent' : `${others} other agents`}`;
}

/** File details of a file another agent handles: who (null: not known yet), and what happens if it stops. */
export function handledByText(name: string | null, leaseMs: number | null, stale: boolean): string {
  const after = leaseMs === null ? 'the time the folder allows' : formatDuration(leaseMs);
  const who = name === null ? 'Another DocSync agent sharing this folder' : `${name}, another DocSync agent sharing this folder,`;
  if (stale) return `${who} stopped answering: its files are being taken over.`;
  return `${who} is processing it. If ${name ?? 'that agent'} gives no sign of life for ${after}, an agent still running takes the file over and processes it.`;
}
