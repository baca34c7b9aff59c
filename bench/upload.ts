// Upload benchmark (issue 3): the client against curl, same sandbox, same run, as ratios.
//   npm run bench:upload [-- --size-mb 1024 --small 2000]
// 1) one large file: client multipart (default settings) vs `curl -T` as one PUT;
//    reports both throughputs, the ratio and the client's peak RSS.
// 2) many small files: client (default concurrency) vs `xargs -P 8 curl`, as a ratio.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ServiceClient } from '../electron/engine/service/index.js';
import { createBatch, mbps, randomFile, run, startSandboxProcess, timed, TOKEN } from './lib.js';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
}

const sizeMb = arg('size-mb', 1024);
const smallCount = arg('small', 2000);
const dir = await mkdtemp(join(tmpdir(), 'docsync-bench-files-'));
const sb = await startSandboxProcess();
const client = new ServiceClient({ baseUrl: sb.url, token: TOKEN });
try {
  const big = join(dir, 'big.bin');
  const bytes = sizeMb * 1024 * 1024;
  await randomFile(big, bytes);

  // Alternate the two and flush dirty pages before each (`sync`): the sandbox writes every upload to
  // disk, and whichever ran second would otherwise pay for the first one's writeback.
  const rounds = arg('rounds', 3);
  const curlMs: number[] = [];
  const clientMs: number[] = [];
  let peakRssMb = 0;
  for (let r = 0; r < rounds; r++) {
    await run('sync', []);
    const curlBatch = await createBatch(sb.url, `curl-big-${r}`);
    const curl = await timed(() =>
      run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-T', big, '-H', `Authorization: Bearer ${TOKEN}`, `${sb.url}/v2/batches/${curlBatch}/files/big.bin`]),
    );
    if (curl.value.stdout !== '204') throw new Error(`curl PUT failed: ${curl.value.stdout} ${curl.value.stderr}`);
    curlMs.push(curl.ms);

    await run('sync', []);
    const clientBatch = (await client.createBatch({ name: `client-big-${r}` })).id;
    const up = await timed(() => client.uploadMultipart(clientBatch, 'big.bin', big));
    peakRssMb = process.resourceUsage().maxRSS / 1024;
    const meta = await client.statPath(`svc-drive/workspaces/personal-admin/batches/${clientBatch}/big.bin`);
    if (meta?.size !== bytes) throw new Error(`uploaded size ${meta?.size} != ${bytes}`);
    clientMs.push(up.ms);
    // Keep the sandbox's disk use to one copy of each.
    for (const b of [curlBatch, clientBatch]) await client.deleteBatch(b);
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const curlMbps = mbps(bytes, median(curlMs));
  const clientMbps = mbps(bytes, median(clientMs));
  console.log(`large file: ${sizeMb} MiB, median of ${rounds} alternating rounds`);
  console.log(`  curl -T (one PUT):       ${curlMbps.toFixed(1)} MB/s (runs: ${curlMs.map((m) => (m / 1000).toFixed(2)).join(', ')} s)`);
  console.log(`  client multipart:        ${clientMbps.toFixed(1)} MB/s (runs: ${clientMs.map((m) => (m / 1000).toFixed(2)).join(', ')} s)`);
  console.log(`  ratio client/curl:       ${(clientMbps / curlMbps).toFixed(2)}   (target >= 0.9)`);
  console.log(`  client peak RSS:         ${peakRssMb.toFixed(0)} MB (target < 200 MB)`);
  await rm(big, { force: true });

  const small = join(dir, 'small');
  await import('node:fs/promises').then((fs) => fs.mkdir(small));
  const names: string[] = [];
  for (let i = 0; i < smallCount; i++) {
    const name = `f${String(i).padStart(5, '0')}.bin`;
    await writeFile(join(small, name), randomBytes(20 * 1024));
    names.push(name);
  }
  const curlSmallBatch = await createBatch(sb.url, 'curl-small');
  const script = `curl -sS -o /dev/null -w '%{http_code}\\n' -T "${small}/$1" -H 'Authorization: Bearer ${TOKEN}' '${sb.url}/v2/batches/${curlSmallBatch}/files/'"$1"`;
  const curlSmall = await timed(() => run('xargs', ['-P', '8', '-n', '1', 'sh', '-c', script, 'sh'], names.join('\n')));
  const ok = curlSmall.value.stdout.split('\n').filter((l) => l === '204').length;
  if (ok !== smallCount) throw new Error(`xargs curl: ${ok}/${smallCount} succeeded`);

  const clientSmallBatch = (await client.createBatch({ name: 'client-small' })).id;
  const clientSmall = await timed(() => Promise.all(names.map((n) => client.putBatchFile(clientSmallBatch, n, join(small, n)))));
  const curlRate = smallCount / (curlSmall.ms / 1000);
  const clientRate = smallCount / (clientSmall.ms / 1000);
  console.log(`small files: ${smallCount} x 20 KiB`);
  console.log(`  xargs -P 8 curl:         ${curlRate.toFixed(0)} files/s (${(curlSmall.ms / 1000).toFixed(2)} s)`);
  console.log(`  client (default conc.):  ${clientRate.toFixed(0)} files/s (${(clientSmall.ms / 1000).toFixed(2)} s)`);
  console.log(`  ratio client/curl:       ${(clientRate / curlRate).toFixed(2)}`);
} finally {
  client.close();
  await sb.stop();
  await rm(dir, { recursive: true, force: true });
}
