/** This data home's agent id for shared hot folders (issue 15): made once, kept for good (table `agent`). */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from './db.js';

export function agentQueries(db: Db) {
  const get = db.prepare<[], { id: string }>('SELECT id FROM agent WHERE only = 1');
  // OR IGNORE: two processes on one data home may both make one; the first stored wins and both read it.
  const put = db.prepare<[string]>('INSERT OR IGNORE INTO agent (only, id) VALUES (1, ?)');
  return {
    /** `<host>-<8 hex>`: readable in the share's records, unique even when two machines share a host name. */
    id(): string {
      const cur = get.get();
      if (cur) return cur.id;
      const host = hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40) || 'agent';
      put.run(`${host}-${randomBytes(4).toString('hex')}`);
      return (get.get() as { id: string }).id;
    },
  };
}

export type AgentQueries = ReturnType<typeof agentQueries>;
