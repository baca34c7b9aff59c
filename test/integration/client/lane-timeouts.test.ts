/**
 * A lane's own timeouts (ServiceClient.lane) and what a shared folder makes of them: a look at the
 * other agents' heartbeats whose answer stops halfway is given up after two heartbeats (5 s at
 * least), not after the client's minute of silence. A scripted server (wire-server.ts) sends the
 * half answer: neither the sandbox nor the service does that on purpose.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinServiceShare } from '../../../electron/engine/pipeline/shared-folder.js';
import { lookTimeoutMs } from '../../../electron/engine/share/heartbeat.js';
import { ServiceClient } from '../../../electron/engine/service/index.js';
import type { ShareAgent } from '../../../electron/engine/share/protocol.js';
import { failure } from './env.js';
import { json, wireServer, type WireServer } from './wire-server.js';

let srv: WireServer;
const clients: ServiceClient[] = [];
beforeEach(async () => {
  srv = await wireServer();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await srv.close();
});

const client = (): ServiceClient => {
  const c = new ServiceClient({ baseUrl: srv.url, token: 'tok-123', retry: { limit: 2, baseDelayMs: 5, maxDelayMs: 20 } });
  clients.push(c);
  return c;
};

/** Headers and the first bytes of a 100-byte body, then silence. */
const stall = (_q: unknown, res: import('node:http').ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '100' });
  res.write('{"agent":');
};

describe('a lane with timeouts of its own', () => {
  it('gives up an answer that stops halfway after its own idle time, and the next call on it works', async () => {
    let n = 0;
    srv.route('GET *', (q, res) => (++n === 1 ? stall(q, res) : res.writeHead(200, { 'content-type': 'application/octet-stream' }).end('whole')));
    const parent = client();
    const lane = parent.lane(1, { limit: 0 }, { responseMs: 300, idleMs: 300 });
    clients.push(lane);
    const f = await failure(() => lane.readFile('svc-drive/x/beat.json'));
    expect(f.kind).toBe('timeout');
    expect((await lane.readFile('svc-drive/x/beat.json')).data.toString()).toBe('whole');
  });

  it('never waits longer than the client it came from, and leaves that client as it was', () => {
    const parent = client();
    const lane = parent.lane(2, undefined, { responseMs: 3_600_000, idleMs: 1_000 });
    clients.push(lane);
    expect(lane.config.timeouts).toEqual({ ...parent.config.timeouts, idleMs: 1_000 });
    expect(parent.config.timeouts.idleMs).toBe(60_000);
  });
});

describe('a shared folder\'s look at a heartbeat whose answer stalls', () => {
  it('ends after the look timeout, not the client\'s minute', async () => {
    const base = 'svc-drive/coord/office';
    srv.route('GET *', (q, res) => {
      const path = decodeURIComponent(new URL(q.url ?? '/', 'http://x').pathname);
      if (path.endsWith(`${base}/agents`)) return json(res, 200, { nodes: [{ name: 'other.json', full_path: `${base}/agents/other.json` }] });
      if (path.endsWith(`${base}/agents/other.json`)) return stall(q, res);
      json(res, 404, { message: 'nothing here' });
    });
    const share = (await joinServiceShare({
      folderId: 1, folderPath: '/nowhere', agentId: 'me', agentName: 'me', client: client(),
      settings: { name: 'office', coordinationFolder: 'svc-drive/coord', leaseMs: 2_000, heartbeatMs: 400 },
    })) as ShareAgent;
    expect(lookTimeoutMs(400)).toBe(5_000);
    // Without the lane's timeouts this look waits out the client's 60 s idle time, past the test's 20 s.
    await share.look();
    expect(srv.seen.filter((s) => s.path.includes('/agents/other.json')).length).toBe(1);
    await share.stop?.();
  }, 20_000);
});
