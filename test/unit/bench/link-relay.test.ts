// The benchmarks' link emulator (bench/link-relay.ts): bytes intact and in order, the delay and the
// shared rate cap as lower bounds (a relay can only be slower than its link under load, so these do
// not flake), and a fast sender held back instead of buffered. Measured rates belong in bench:link.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLink, type Link } from '../../../bench/link-relay.js';

let server: Server | undefined;
let link: Link | undefined;
const accepted = new Set<Socket>();
afterEach(async () => {
  await link?.close();
  // A socket that never reads never sees its peer go: closed here, or the server's close waits for it.
  for (const s of accepted) s.destroy();
  accepted.clear();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  link = server = undefined;
});

/** A server that echoes (or, `sink`, swallows) what it gets. */
async function target(mode: 'echo' | 'sink' | 'stall'): Promise<number> {
  server = createServer((s) => {
    accepted.add(s);
    if (mode === 'echo') s.pipe(s);
    else if (mode === 'sink') s.resume();
    // 'stall': never reads.
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

const open = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });

/** Sends `data` in uneven writes and reads back as many bytes. */
async function echo(port: number, data: Buffer): Promise<Buffer> {
  const s = await open(port);
  const got: Buffer[] = [];
  let n = 0;
  const done = new Promise<void>((r) => s.on('data', (d: Buffer) => (got.push(d), (n += d.length) >= data.length && r())));
  for (let i = 0, k = 1; i < data.length; i += k * 7919, k = (k % 13) + 1) s.write(data.subarray(i, i + k * 7919));
  await done;
  s.destroy();
  return Buffer.concat(got);
}

describe('link relay', () => {
  it('carries the bytes of several connections at once intact and in order, both ways', async () => {
    link = await startLink({ targetPort: await target('echo'), rttMs: 20, upBps: 200e6, downBps: 200e6 });
    const sent = [0, 1, 2, 3].map(() => randomBytes(1_500_000));
    const back = await Promise.all(sent.map((d) => echo(link!.port, d)));
    back.forEach((b, i) => expect(b.equals(sent[i] as Buffer)).toBe(true));
    expect(link.stats()).toMatchObject({ up: 6_000_000, down: 6_000_000, connections: 4 });
  });

  it('delays: a connection and one exchange take at least two round trips (handshake, then request and answer)', async () => {
    link = await startLink({ targetPort: await target('echo'), rttMs: 100, upBps: 0, downBps: 0 });
    const t0 = performance.now();
    const back = await echo(link.port, Buffer.from('ping'));
    expect(back.toString()).toBe('ping');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(195);
  });

  it('one cap shared by all connections: two senders together take as long as their sum at the rate', async () => {
    link = await startLink({ targetPort: await target('sink'), rttMs: 0, upBps: 8e6, downBps: 8e6 });
    const each = 256 * 1024;
    const t0 = performance.now();
    await Promise.all([0, 1].map(async () => {
      const s = await open(link!.port);
      await new Promise<void>((r) => s.end(randomBytes(each), r));
    }));
    while (link.stats().up < 2 * each) await new Promise((r) => setTimeout(r, 10));
    // 512 KiB at 8 Mbit/s is 0.52 s; a cap per connection would let both through in half that.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(0.95 * ((2 * each * 8) / 8e6) * 1000);
  });

  it('holds a fast sender back when the far side does not read, instead of keeping its stream', async () => {
    link = await startLink({ targetPort: await target('stall'), rttMs: 10, upBps: 0, downBps: 0 });
    const s = await open(link.port);
    const chunk = Buffer.alloc(1024 * 1024);
    let taken = 0;
    const t0 = performance.now();
    // Write while the socket takes it; it stops once the relay stops reading (the kernel's buffers fill).
    while (performance.now() - t0 < 2000 && taken < 64 * chunk.length) {
      if (s.write(chunk)) taken += chunk.length;
      else await Promise.race([new Promise((r) => s.once('drain', r)), new Promise((r) => setTimeout(r, 200))]);
    }
    s.destroy();
    // Without backpressure all 64 MiB would pass into the relay's memory; with it, its window and the kernel's buffers.
    expect(taken).toBeLessThan(40 * chunk.length);
  });
});
