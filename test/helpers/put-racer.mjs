// One racing client process for the sandbox's conditional-create test
// (test/integration/sandbox/conditional-create.test.ts). Usage:
//   node put-racer.mjs '<json>'  with json = { base, token, puts: [{ path, body }] }
// Opens its connections first (one HEAD per PUT, so no PUT waits for a socket), prints `ready`,
// waits for a line on stdin (the parent releases every racer at once), then sends every PUT at
// once with `If-None-Match: *` and prints one JSON line: [{ path, body, status }].
import { createInterface } from 'node:readline';
import { Agent, request } from 'node:http';

const cfg = JSON.parse(process.argv[2] ?? '{}');
const url = new URL(cfg.base);
// Keep-alive sockets, as many as PUTs: each PUT goes out on its own warmed connection.
const agent = new Agent({ keepAlive: true, maxSockets: cfg.puts.length });

function send(method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: url.hostname, port: url.port, method, path, headers: { Authorization: `Bearer ${cfg.token}`, ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

await Promise.all(cfg.puts.map(() => send('HEAD', '/v2/files/svc-drive')));
process.stdout.write('ready\n');
await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
const results = await Promise.all(
  cfg.puts.map(async (p) => ({
    path: p.path,
    body: p.body,
    status: await send('PUT', p.path, p.body, { 'If-None-Match': '*', 'Content-Type': 'application/octet-stream', 'Content-Length': String(Buffer.byteLength(p.body)) }),
  })),
);
process.stdout.write(`${JSON.stringify(results)}\n`);
agent.destroy();
