// Distance and the uplink (issue 27): DocSync through an emulated link (bench/link-relay.ts: a one-way
// delay each way, one rate cap per direction shared by every connection), each figure beside a
// baseline sent through the same link in the same run. The sandbox runs in its own process at its
// default delays; the link sits between it and everything measured.
//   npm run bench:link [-- --rtt 0,50,150] [--rate 20,100] [--only one,small,large] [--runs 3] [--small 500] [--large-mb 200]
// one:   one invoice, drop to done: `docsync upload --wait` (its own process, as a person runs it) and a
//        hot-folder drop (an engine in this process); baseline: the same run straight through the
//        client at the same link (create batch, PUT, start, poll every 50 ms, results). The calls each
//        made are counted from the sandbox's audit log; the target is 1 s + the sandbox's own time
//        (the run's finish less its start, as the service records them) + 6 round trips.
// small: 500 files of 20 KiB, `docsync upload` (engine in this process, until every file is uploaded
//        and its run started), against `xargs -P 8 curl -T` into a batch: files/s, target ratio >= 1.
// large: one 200 MB file, the client's multipart upload against `curl -T` (one PUT): the share of
//        the link's rate each used, target >= 0.9.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from '../electron/engine/engine.js';
import { ServiceClient } from '../electron/engine/service/index.js';
import { openStore, STORE_FILE, type FileState } from '../electron/engine/store/index.js';
import { createBatch, randomFile, run, startSandboxProcess, timed, TOKEN } from './lib.js';
import { startLink, type Link } from './link-relay.js';

const list = (name: string, dflt: string): string[] => {
  const i = process.argv.indexOf(`--${name}`);
  return (i === -1 ? dflt : (process.argv[i + 1] as string)).split(',').filter(Boolean);
};
const num = (name: string, dflt: number): number => Number(list(name, String(dflt))[0]);
const rtts = list('rtt', '0,50,150').map(Number);
const rates = list('rate', '20,100').map(Number);
const only = new Set(list('only', 'one,small,large'));
const runs = num('runs', 3);
const smallCount = num('small', 500);
const largeBytes = num('large-mb', 200) * 1e6;
const DEPLOYMENT = 'sandbox-invoices';
const CLI = fileURLToPath(new URL('../electron/cli/main.js', import.meta.url));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const invoice = (n: number): string =>
  `INVOICE\nInvoice Number: INV-${n}\nInvoice Date: 2026-03-01\nDue Date: 2026-03-31\nVendor: Vendor ${n}\nTotal: $${n}.50\n${randomBytes(16).toString('hex')}\n`;

const root = await mkdtemp(join(tmpdir(), 'docsync-bench-link-'));
const sb = await startSandboxProcess();
const sbPort = Number(new URL(sb.url).port);
/** Reads the service directly, not through the link. */
const direct = new ServiceClient({ baseUrl: sb.url, token: TOKEN });

/** The sandbox's audit log since `sinceMs` (oldest first), without the bench's own audit reads. */
async function callsSince(sinceMs: number): Promise<{ method: string; path: string }[]> {
  const res = await fetch(`${sb.url}/v1/auditlogs`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ start_time: String(sinceMs), size: 1000 }) });
  const rows = ((await res.json()) as { data: { results: { method: string; path: string }[] } }).data.results;
  return rows.reverse().filter((r) => r.path !== '/v1/auditlogs');
}
const shortCalls = (calls: { method: string; path: string }[]): string =>
  calls.map((c) => `${c.method} ${c.path.replace(/run_[0-9a-f]+/, '{run}').replace(/\/batches\/\d+/, '/batches/{id}').replace(/files\/[^/]+$/, 'files/{name}')}`).join(', ');

/** The run's own time on the service (finish less start), ms. */
async function serviceMs(runId: string): Promise<number> {
  const r = await direct.getRun(runId);
  return r.finish_timestamp && r.start_timestamp ? (r.finish_timestamp - r.start_timestamp) / 1e6 : NaN;
}

async function one(link: Link, rtt: number): Promise<void> {
  const src = join(root, `one-${rtt}-${link.port}`);
  await mkdir(src, { recursive: true });
  // Baseline: the fewest calls one file needs, one after another, on a fresh client (its connection included).
  const base: number[] = [];
  const baseSvc: number[] = [];
  for (let i = 0; i < runs; i++) {
    const p = join(src, `direct-${i}.txt`);
    await writeFile(p, invoice(i));
    const c = new ServiceClient({ baseUrl: link.url, token: TOKEN });
    let runId = '';
    const t = await timed(async () => {
      const { id } = await c.createBatch({ name: `direct-${rtt}-${i}-${Date.now()}` });
      await c.putBatchFile(id, `direct-${i}.txt`, p);
      runId = (await c.startDeploymentRun(DEPLOYMENT, { batch_id: id })).id;
      for (let r = await c.getRun(runId); r.status !== 'COMPLETE'; r = await c.getRun(runId)) await sleep(50);
      for await (const page of c.iterateResults(runId, { include_source_info: true })) void page;
    });
    c.close();
    base.push(t.ms);
    baseSvc.push(await serviceMs(runId));
  }

  // `docsync upload --wait`, its own process each time, one data home (so the target is proven after the first).
  const home = join(src, 'home');
  const env = { ...process.env, DOCSYNC_HOME: home, DOCSYNC_URL: link.url, DOCSYNC_TOKEN: TOKEN };
  const cli: { ms: number; svc: number; calls: { method: string; path: string }[] }[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const p = join(src, `cli-${i}.txt`);
    await writeFile(p, invoice(100 + i));
    const since = Date.now();
    const t = await timed(() => run(process.execPath, [CLI, 'upload', p, '--deployment', DEPLOYMENT, '--wait', '--json'], undefined, env));
    if (t.value.code !== 0) throw new Error(`docsync upload: ${t.value.stderr}`);
    const row = (JSON.parse(t.value.stdout) as { state: string; serviceRunId: string }[])[0]!;
    if (row.state !== 'done') throw new Error(`docsync upload: ${row.state}`);
    const made = await callsSince(since);
    cli.push({ ms: t.ms, svc: await serviceMs(row.serviceRunId), calls: made });
  }

  // A hot-folder drop, engine in this process (its connection idle between drops, as a quiet office's is).
  const inbox = join(src, 'inbox');
  await mkdir(inbox);
  const store = openStore(join(src, 'hot-home', STORE_FILE));
  const client = new ServiceClient({ baseUrl: link.url, token: TOKEN });
  const engine = new Engine({ store, client, home: join(src, 'hot-home') });
  const seen = new Map<string, Partial<Record<FileState, number>>>();
  engine.on('file', ({ file }) => {
    const m = seen.get(file.originalName) ?? {};
    m[file.state] ??= performance.now();
    seen.set(file.originalName, m);
  });
  const hot: { ms: number; svc: number; calls: { method: string; path: string }[]; waitedMs: number }[] = [];
  try {
    await engine.start();
    await engine.addFolder({ path: inbox, deployment: DEPLOYMENT });
    for (let i = 0; i < runs; i++) {
      const name = `scan-${i}.txt`;
      await writeFile(join(src, name), invoice(200 + i));
      await sleep(1000);
      const since = Date.now();
      const t0 = performance.now();
      await rename(join(src, name), join(inbox, name));
      while (seen.get(name)?.done === undefined && seen.get(name)?.failed === undefined) await sleep(5);
      const m = seen.get(name)!;
      if (m.done === undefined) throw new Error(`${name} failed`);
      const f = store.files.list().find((x) => x.originalName === name)!;
      const r = store.runs.runForBatch(f.batchId as number)!;
      // The engine's own waits before the first call: stability (500 ms) and the batch's quiet time (1 s).
      const made = await callsSince(since);
      hot.push({ ms: m.done - t0, svc: await serviceMs(r.serviceRunId), calls: made, waitedMs: (m.uploading ?? m.done) - t0 });
    }
  } finally {
    await engine.stop();
    client.close();
    store.close();
  }

  const svc = median(baseSvc);
  const target = 1000 + svc + 6 * rtt;
  const later = cli.slice(1);
  console.log(`  one file, drop to done (medians of ${runs}; sandbox's own time per run ${s(svc)}; target ${s(target)} = 1 s + sandbox + 6 RTT)`);
  console.log(`    baseline, straight through the client: ${s(median(base))} (${s(median(base) - svc)} beyond the sandbox's time)`);
  console.log(`    docsync upload --wait, first upload to the target: ${s(cli[0]!.ms)}, ${cli[0]!.calls.length} calls: ${shortCalls(cli[0]!.calls)}`);
  console.log(`    docsync upload --wait, target proven: ${s(median(later.map((x) => x.ms)))} (process start included), ${median(later.map((x) => x.calls.length))} calls: ${shortCalls(later[0]!.calls)} -- ${median(later.map((x) => x.ms - x.svc + svc)) <= target ? 'met' : 'NOT met'}`);
  console.log(`    hot-folder drop: ${s(median(hot.map((x) => x.ms)))} of which ${s(median(hot.map((x) => x.waitedMs)))} before the first upload (stability, batch quiet time), ${median(hot.map((x) => x.calls.length))} calls: ${shortCalls(hot[0]!.calls)}; beyond those waits ${s(median(hot.map((x) => x.ms - x.waitedMs)))}`);
}

async function small(link: Link, rtt: number, rate: number): Promise<void> {
  const dir = join(root, `small-${rtt}-${rate}`);
  await mkdir(dir, { recursive: true });
  const names: string[] = [];
  for (let i = 0; i < smallCount; i++) {
    // Invoices padded to 20 KiB: files the run can read (random bytes would fail as unreadable documents).
    const name = `s-${String(i).padStart(5, '0')}.txt`;
    const text = invoice(1000 + i);
    await writeFile(join(dir, name), (text + 'Notes: a line of text to pad the page.\n'.repeat(600)).slice(0, 20 * 1024));
    names.push(name);
  }
  const batch = await createBatch(sb.url, `curl-small-${rtt}-${rate}`);
  const script = `curl -sS -o /dev/null -w '%{http_code}\\n' -T "${dir}/$1" -H 'Authorization: Bearer ${TOKEN}' '${link.url}/v2/batches/${batch}/files/'"$1"`;
  const curl = await timed(() => run('xargs', ['-P', '8', '-n', '1', 'sh', '-c', script, 'sh'], names.join('\n')));
  if (curl.value.stdout.split('\n').filter((l) => l === '204').length !== smallCount) throw new Error('xargs curl failed');

  // Outside the uploaded folder: its store must not be among the files.
  const home = join(root, `small-home-${rtt}-${rate}`);
  const store = openStore(join(home, STORE_FILE));
  const client = new ServiceClient({ baseUrl: link.url, token: TOKEN });
  const engine = new Engine({ store, client, home });
  try {
    const t = await timed(async () => {
      const rows = await engine.uploadFiles([dir], { type: 'deployment', id: DEPLOYMENT });
      for (const end = Date.now() + 600_000; ; ) {
        if (Date.now() > end) throw new Error(`small files not all uploaded after 10 minutes: ${JSON.stringify(store.files.countByState())}`);
        const c = store.files.countByState();
        // Past their upload: the run's verdict on a file (done or failed) does not matter here.
        if (c.running + c.done + c.failed === rows.length) {
          if (!store.runs.listRuns(1)[0]) throw new Error(`no run started: ${store.files.list({ state: 'failed' })[0]?.error}`);
          return;
        }
        await sleep(20);
      }
    });
    const curlRate = smallCount / (curl.ms / 1000);
    const ours = smallCount / (t.ms / 1000);
    console.log(`  ${smallCount} files of 20 KiB: xargs -P 8 curl ${curlRate.toFixed(1)} files/s (${s(curl.ms)}); docsync upload (until every file is uploaded and the run started) ${ours.toFixed(1)} files/s (${s(t.ms)}); ratio ${(ours / curlRate).toFixed(2)} -- target >= 1.0 ${ours >= curlRate ? 'met' : 'NOT met'}`);
  } finally {
    await engine.stop();
    client.close();
    store.close();
  }
}

async function large(link: Link, rate: number): Promise<void> {
  const file = join(root, 'large.bin');
  await randomFile(file, largeBytes);
  const share = (ms: number): number => (largeBytes * 8) / (ms / 1000) / (rate * 1e6);
  const batch = await createBatch(sb.url, `curl-large-${Date.now()}`);
  const curl = await timed(() => run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-T', file, '-H', `Authorization: Bearer ${TOKEN}`, `${link.url}/v2/batches/${batch}/files/large.bin`]));
  if (curl.value.stdout !== '204') throw new Error(`curl -T: ${curl.value.stdout} ${curl.value.stderr}`);
  const client = new ServiceClient({ baseUrl: link.url, token: TOKEN });
  try {
    const { id } = await client.createBatch({ name: `client-large-${Date.now()}` });
    const t = await timed(() => client.uploadMultipart(id, 'large.bin', file));
    console.log(`  ${largeBytes / 1e6} MB: curl -T ${share(curl.ms).toFixed(2)} of the link (${s(curl.ms)}); client multipart ${share(t.ms).toFixed(2)} (${s(t.ms)}); ratio ${(curl.ms / t.ms).toFixed(2)} -- target >= 0.9 of the link ${share(t.ms) >= 0.9 ? 'met' : 'NOT met'}`);
  } finally {
    client.close();
    await rm(file, { force: true });
  }
}

console.log(`bench:link ${new Date().toISOString().slice(0, 10)}; load ${loadavg()[0]!.toFixed(1)}; sandbox at its default delays`);
try {
  for (const rate of rates) {
    for (const rtt of rtts) {
      const link = await startLink({ targetPort: sbPort, rttMs: rtt, upBps: rate * 1e6, downBps: rate * 1e6 });
      console.log(`link: RTT ${rtt} ms, ${rate} Mbit/s each way (shared by all connections)`);
      try {
        if (only.has('one')) await one(link, rtt);
        if (only.has('small')) await small(link, rtt, rate);
        if (only.has('large')) await large(link, rate);
      } finally {
        await link.close();
      }
    }
  }
  console.log(`load at the end ${loadavg()[0]!.toFixed(1)}`);
} finally {
  direct.close();
  await sb.stop();
  await rm(root, { recursive: true, force: true });
}
