// Latency of a single scan (issue 14): one invoice dropped into a hot folder at default settings, timed
// until its results are stored (`done`), 10 drops one after another -> p50/p95 and where the time goes;
// then 250 files dropped at once -> how many runs they formed. Against the built-in sandbox in its own
// process at its default delays (page 200 ms, job 250 ms). Baseline in the same run: the same invoice
// sent straight through the client (create batch, upload, start the run, ask every 50 ms until it is
// complete, read the results), no hot folder: the service's own time for a 1-file run.
//   npm run bench:latency [-- --drops 10 --burst 250]
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../electron/engine/engine.js';
import { ServiceClient } from '../electron/engine/service/index.js';
import { openStore, STORE_FILE } from '../electron/engine/store/index.js';
import type { FileState } from '../electron/engine/store/index.js';
import { run, startSandboxProcess, timed, TOKEN } from './lib.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const drops = arg('drops', 10);
const burst = arg('burst', 250);
const DEPLOYMENT = 'sandbox-invoices';

const invoice = (n: number): string =>
  `INVOICE\nInvoice Number: INV-${n}\nInvoice Date: 2026-03-01\nDue Date: 2026-03-31\nVendor: Vendor ${n}\nTotal: $${n}.50\n${randomBytes(16).toString('hex')}\n`;
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};
const sec = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const root = await mkdtemp(join(tmpdir(), 'docsync-bench-latency-'));
const sb = await startSandboxProcess();
const client = new ServiceClient({ baseUrl: sb.url, token: TOKEN });
const store = openStore(join(root, 'home', STORE_FILE));
// The engine's own defaults throughout: poll policy, folder settings.
const engine = new Engine({ store, client, home: join(root, 'home') });
const load0 = loadavg()[0] as number;
try {
  const src = join(root, 'src');
  await mkdir(src);

  // Baseline: the service's own time for a 1-file run, through the client, no hot folder.
  const base: number[] = [];
  for (let i = 0; i < drops; i++) {
    const p = join(src, `direct-${i}.txt`);
    await writeFile(p, invoice(500 + i));
    const t = await timed(async () => {
      const { id } = await client.createBatch({ name: `direct-${i}` });
      await client.putBatchFile(id, `direct-${i}.txt`, p);
      const started = await client.startDeploymentRun(DEPLOYMENT, { batch_id: id });
      for (;;) {
        const r = await client.getRun(started.id);
        if (r.status === 'COMPLETE') break;
        if (r.status === 'FAILED' || r.status === 'CANCELLED') throw new Error(`direct run ${r.status}`);
        await sleep(50);
      }
      for await (const page of client.iterateResults(started.id, { include_source_info: true })) void page;
    });
    base.push(t.ms);
  }

  const inbox = join(root, 'inbox');
  await mkdir(inbox);
  await engine.start();
  await engine.addFolder({ path: inbox, deployment: DEPLOYMENT });
  // When each file reached each state (ms since its drop).
  const seen = new Map<string, Partial<Record<FileState, number>>>();
  let t0 = 0;
  engine.on('file', ({ file }) => {
    const s = seen.get(file.originalName) ?? {};
    s[file.state] ??= performance.now() - t0;
    seen.set(file.originalName, s);
  });

  const single: number[] = [];
  for (let i = 0; i < drops; i++) {
    const name = `scan-${i}.txt`;
    await writeFile(join(src, name), invoice(i));
    t0 = performance.now();
    // "Dropped": moved in whole, as a scanner's software or a file manager does.
    await rename(join(src, name), join(inbox, name));
    while (seen.get(name)?.done === undefined && seen.get(name)?.failed === undefined) await sleep(5);
    if (seen.get(name)?.done === undefined) throw new Error(`${name} failed: ${store.files.list().find((f) => f.originalName === name)?.error}`);
    single.push(seen.get(name)!.done!);
    await sleep(1000);
  }
  const stage = (k: FileState): number => pct([...Array(drops).keys()].map((i) => seen.get(`scan-${i}.txt`)?.[k] ?? NaN), 50);

  // A burst: `burst` files moved in at once.
  const runsBefore = store.runs.listRuns().length;
  const bsrc = join(root, 'burst');
  await mkdir(bsrc);
  for (let i = 0; i < burst; i++) await writeFile(join(bsrc, `stack-${String(i).padStart(4, '0')}.txt`), invoice(1000 + i));
  const tb = performance.now();
  await run('sh', ['-c', `mv "${bsrc}"/* "${inbox}"/`]);
  for (;;) {
    const c = store.files.countByState();
    if (c.done + c.failed >= drops + burst) break;
    await sleep(100);
  }
  const burstMs = performance.now() - tb;
  const per = new Map<number, number>();
  for (const f of store.files.list()) if (f.originalName.startsWith('stack-') && f.batchId !== null) per.set(f.batchId, (per.get(f.batchId) ?? 0) + 1);
  const sizes = [...per.entries()].sort(([a], [b]) => a - b).map(([, n]) => n);
  const c = store.files.countByState();

  const p50 = pct(single, 50);
  const b50 = pct(base, 50);
  console.log(`latency: a single file dropped into a hot folder (default settings) until its results are stored; sandbox at its default delays`);
  console.log(`  ${drops} drops: p50 ${sec(p50)}, p95 ${sec(pct(single, 95))} (min ${sec(Math.min(...single))}, max ${sec(Math.max(...single))}) -- target p50 <= 4 s: ${p50 <= 4000 ? 'met' : 'NOT met'}`);
  console.log(`  where the time goes (p50 since the drop): stable ${sec(stage('stable'))}, queued ${sec(stage('queued'))}, uploading ${sec(stage('uploading'))}, running ${sec(stage('running'))}, done ${sec(stage('done'))}`);
  console.log(`  baseline, the same 1-file run straight through the client (no hot folder): p50 ${sec(b50)}, p95 ${sec(pct(base, 95))}; ratio hot folder / direct ${(p50 / b50).toFixed(2)}`);
  console.log(`  burst: ${burst} files moved in at once -> ${sizes.length} runs (${sizes.join(' + ')} files) -- target <= 4: ${sizes.length <= 4 ? 'met' : 'NOT met'}; all done after ${sec(burstMs)} (done ${c.done - drops}, failed ${c.failed}); runs in the store ${store.runs.listRuns().length - runsBefore}`);
  console.log(`  load average (1 min) at start ${load0.toFixed(1)}, at end ${(loadavg()[0] as number).toFixed(1)}, on ${(await import('node:os')).cpus().length} cores`);
} finally {
  await engine.stop();
  client.close();
  store.close();
  await sb.stop();
  await rm(root, { recursive: true, force: true });
}
