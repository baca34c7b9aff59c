/** The request watch shared by uploads and pooled GETs (service/request-watch.ts), over a real loopback socket. */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchRequest } from '../../../../electron/engine/service/request-watch.js';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('watchRequest', () => {
  it('a signal already aborted rejects as cancelled, and the destroyed request raises no error of its own', async () => {
    const stray: unknown[] = [];
    const onUncaught = (e: unknown): void => void stray.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const ctl = new AbortController();
      ctl.abort();
      const cleaned: string[] = [];
      const req = request({ host: '127.0.0.1', port, method: 'GET', path: '/' });
      const outcome = new Promise((resolve, reject) => {
        const w = watchRequest(req, { signal: ctl.signal, responseMs: 1000 }, () => cleaned.push('clean'), reject);
        if (!w.settled) req.end(() => resolve('sent'));
      });
      await expect(outcome).rejects.toMatchObject({ name: 'BodySendError', kind: 'aborted', sent: false, message: 'cancelled by the caller' });
      // The socket's "hang up" comes a tick or two after the destroy.
      await new Promise((r) => setTimeout(r, 100));
      expect([cleaned, stray]).toEqual([['clean'], []]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
