/**
 * What the store keeps for shared hot folders (issue 15): this data home's agent id (table `agent`),
 * and the last look at each shared folder's agents (`share_agents`), written by the running engine
 * so `docsync status` in another process can print them.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FleetAgent } from '../share/api.js';
import type { Db } from './db.js';

/** One agent of a shared folder as the running engine last saw it; `seenMs`: when it looked. */
export interface StoredAgent extends FleetAgent {
  folderId: number;
  seenMs: number;
}

interface RawAgent {
  folder_id: number; agent_id: string; name: string; host: string; last_heartbeat_ms: number | null; in_flight: number; is_self: number; stale: number; seen_ms: number;
}

export function shareQueries(db: Db, now: () => number = Date.now) {
  const get = db.prepare<[], { id: string }>('SELECT id FROM agent WHERE only = 1');
  // OR IGNORE: two processes on one data home may both make one; the first stored wins and both read it.
  const put = db.prepare<[string]>('INSERT OR IGNORE INTO agent (only, id) VALUES (1, ?)');
  const clear = db.prepare<[number]>('DELETE FROM share_agents WHERE folder_id = ?');
  const insert = db.prepare<[number, string, string, string, number | null, number, number, number, number]>(
    'INSERT INTO share_agents (folder_id, agent_id, name, host, last_heartbeat_ms, in_flight, is_self, stale, seen_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const all = db.prepare<[], RawAgent>('SELECT * FROM share_agents ORDER BY folder_id, is_self DESC, name');
  const revive = db.prepare<[number]>('UPDATE batches SET deleted_ms = NULL WHERE id = ?');
  const batchNamed = db.prepare<[string], { id: number }>('SELECT id FROM batches WHERE name = ? ORDER BY id DESC LIMIT 1');
  const inWork = db.prepare<[number, string, number], { id: number }>(
    "SELECT id FROM files WHERE folder_id = ? AND sha256 = ? AND id != ? AND state IN ('queued', 'uploading', 'uploaded', 'running') LIMIT 1");
  const waiting = db.prepare<[number, string], { id: number }>("SELECT id FROM files WHERE folder_id = ? AND sha256 = ? AND state = 'elsewhere' ORDER BY id");
  const setFleet = db.transaction((folderId: number, agents: readonly FleetAgent[]) => {
    clear.run(folderId);
    const t = now();
    for (const a of agents) insert.run(folderId, a.id, a.name, a.host, a.lastHeartbeatMs === null ? null : Math.round(a.lastHeartbeatMs), Math.round(a.inFlight), a.self ? 1 : 0, a.stale ? 1 : 0, t);
  });
  return {
    /** `<host>-<8 hex>`: readable in the share's records, unique even when two machines share a host name. */
    agentId(): string {
      const cur = get.get();
      if (cur) return cur.id;
      const host = hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40) || 'agent';
      put.run(`${host}-${randomBytes(4).toString('hex')}`);
      return (get.get() as { id: string }).id;
    },
    /** Replaces a folder's agents with the engine's latest look. */
    setFleet: (folderId: number, agents: readonly FleetAgent[]): void => setFleet.immediate(folderId, agents),
    /** Every shared folder's agents as last stored, this agent first in each folder. */
    fleet(): StoredAgent[] {
      return all.all().map((r) => ({
        folderId: r.folder_id, id: r.agent_id, name: r.name, host: r.host, lastHeartbeatMs: r.last_heartbeat_ms, inFlight: r.in_flight,
        self: r.is_self === 1, stale: r.stale === 1, seenMs: r.seen_ms,
      }));
    },
    /** Another file of the folder with this content is on its way through this agent (queued to running). */
    contentInWork(folderId: number, sha256: string, exceptId: number): boolean {
      return inWork.get(folderId, sha256, exceptId) !== undefined;
    },
    /** Files of the folder with this content that wait for another agent (state 'elsewhere'). */
    waitingElsewhere(folderId: number, sha256: string): number[] {
      return waiting.all(folderId, sha256).map((r) => r.id);
    },
    /** This store's batch of that (unique) name, if it has one. */
    batchNamed(name: string): number | undefined {
      return batchNamed.get(name)?.id;
    },
    /** A batch given up earlier (another agent took it) is this agent's again: it was taken back over. */
    reviveBatch(batchId: number): void {
      revive.run(batchId);
    },
  };
}

export type ShareQueries = ReturnType<typeof shareQueries>;
