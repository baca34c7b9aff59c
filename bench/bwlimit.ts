// Bandwidth limit benchmark (issue 27, section 3): is the rate on the wire within 5 % of the limit
// over 60 s, and do parallel transfers share it?
//   npm run bench:bwlimit [-- --rate 2M --seconds 60 --parallel 4]
// A sandbox process, and between it and the client a relay that counts the bytes crossing it each
// way, per second: what the office's line would carry (HTTP headers included), not what the
// limiter believes it let through. Uploads: `parallel` multipart uploads at once, each sending two
// parts at a time, limited to RATE:off. Downloads: `parallel` downloads of one file at once, limited
// to off:RATE. Each phase runs `seconds` and is then cut off; the rate is the bytes in the window
// over its length, and each transfer's share is what its own progress counted.
import { setMaxListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient } from '../electron/engine/service/index.js';
import { engineBandwidth } from '../electron/engine/service/bandwidth.js';
import { formatRate, parseBwLimit, parseRate } from '../shared/bwlimit.js';
import { createBatch, randomFile, startSandboxProcess, TOKEN } from './lib.js';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : (process.argv[i + 1] as string);
}
const rateSpec = arg('rate', '2M');
const seconds = Number(arg('seconds', '60'));
const parallel = Number(arg('parallel', '4'));
const rate = parseRate(rateSpec) as number;

/** Bytes crossing the relay, per direction, counted from `reset()`. */
interface Counter {
  up: number;
  down: number;
  reset(): void;
}

function relay(target: URL): Promise<{ server: Server; url: string; count: Counter }> {
  const count: Counter = { up: 0, down: 0, reset() { this.up = 0; this.down = 0; } };
  const sockets = new Set<Socket>();
  const server = createServer((c) => {
    const s = connect(Number(target.port), target.hostname);
    sockets.add(c).add(s);
    c.on('data', (b: Buffer) => (count.up += b.length));
    s.on('data', (b: Buffer) => (count.down += b.length));
    c.pipe(s).pipe(c);
    const end = (): void => {
      c.destroy();
      s.destroy();
    };
    c.on('error', end).on('close', end);
    s.on('error', end).on('close', end);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const port = (server.address() as { port: number }).port;
    resolve({ server, url: `http://127.0.0.1:${port}`, count });
  }));
}

/** Runs `work(i, signal, add)` in `parallel` lanes for `seconds`, sampling the counter every 10 s. */
async function phase(name: string, way: 'up' | 'down', count: Counter, work: (signal: AbortSignal, add: (n: number) => void) => Promise<void>): Promise<void> {
  const ac = new AbortController();
  // Every lane's requests and waits listen to this one signal.
  setMaxListeners(1000, ac.signal);
  const lanes = Array.from({ length: parallel }, () => 0);
  count.reset();
  const started = performance.now();
  const windows: number[] = [];
  let last = 0;
  const tick = setInterval(() => {
    windows.push(count[way] - last);
    last = count[way];
  }, 10_000);
  const runs = lanes.map((_, i) => work(ac.signal, (n) => (lanes[i] = (lanes[i] as number) + n)).catch((e: Error) => {
    if (!ac.signal.aborted) throw e;
  }));
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const bytes = count[way];
  const secs = (performance.now() - started) / 1000;
  clearInterval(tick);
  ac.abort();
  await Promise.all(runs);
  const measured = bytes / secs;
  const off = ((measured - rate) / rate) * 100;
  const total = lanes.reduce((a, x) => a + x, 0);
  console.log(`${name}: ${(bytes / 1048576).toFixed(1)} MiB in ${secs.toFixed(1)} s = ${formatRate(measured)} (${(measured / 1048576).toFixed(3)} MiB/s) against ${formatRate(rate)}: ${off >= 0 ? '+' : ''}${off.toFixed(2)} %`);
  console.log(`  10 s windows: ${windows.map((w) => (w / 10 / 1048576).toFixed(3)).join(', ')} MiB/s`);
  console.log(`  share of each of the ${parallel} transfers: ${lanes.map((l) => `${((100 * l) / total).toFixed(1)} %`).join(', ')}`);
}

const dir = await mkdtemp(join(tmpdir(), 'docsync-bench-bw-'));
const sb = await startSandboxProcess(['--part-size', String(4 * 1024 * 1024)]);
const r = await relay(new URL(sb.url));
// A connection for every part in flight: parts waiting for one of the client's connections would
// not be in the bucket's queue, and the shares would be the connection pool's, not the limit's.
const client = new ServiceClient({ baseUrl: r.url, token: TOKEN, concurrency: parallel * 2 + 2 });
try {
  const big = join(dir, 'big.bin');
  // Larger than a lane can send in the time, so every lane is busy to the end.
  const size = Math.ceil((rate * seconds * 1.5) / parallel / 1048576) * 1048576 + 4 * 1048576;
  await randomFile(big, size);
  console.log(`limit ${rateSpec} (${formatRate(rate)}), ${seconds} s per phase, ${parallel} transfers at once; file ${(size / 1048576).toFixed(0)} MiB`);

  engineBandwidth.set(parseBwLimit(`${rateSpec}:off`), 'flag');
  await phase('uploads', 'up', r.count, async (signal, add) => {
    const batch = await createBatch(sb.url, `bw-${Math.random()}`);
    let sent = 0;
    await client.uploadMultipart(batch, 'big.bin', big, {
      concurrency: 2, signal,
      onProgress: (p) => {
        add(p.sent - sent);
        sent = p.sent;
      },
    });
  });

  engineBandwidth.set(null);
  await client.writeFile('svc-drive/bench/big.bin', big);
  engineBandwidth.set(parseBwLimit(`off:${rateSpec}`), 'flag');
  let lane = 0;
  await phase('downloads', 'down', r.count, async (signal, add) => {
    const dest = join(dir, `down-${lane++}.bin`);
    let got = 0;
    await client.downloadFile('svc-drive/bench/big.bin', dest, {
      signal,
      onProgress: (n) => {
        add(n - got);
        got = n;
      },
    });
  });
} finally {
  engineBandwidth.set(null);
  engineBandwidth.close();
  client.close();
  r.server.close();
  await sb.stop();
  await rm(dir, { recursive: true, force: true });
}
