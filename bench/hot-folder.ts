// Hot-folder throughput (issue 4): 10,000 files of 20 KB dropped into a watched folder, timed until
// every file is uploaded and its run complete against the sandbox (own process, no page delay);
// files/s and the engine's peak RSS. Baseline in the same run: the same files uploaded by
// `xargs -P 8 curl` into one batch (upload only, no runs), as a ratio.
//   npm run bench:hot-folder [-- --files 10000]
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../electron/engine/engine.js';
import { ServiceClient } from '../electron/engine/service/index.js';
import { openStore, STORE_FILE } from '../electron/engine/store/index.js';
import { createBatch, run, startSandboxProcess, timed, TOKEN } from './lib.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const count = arg('files', 10_000);
const root = await mkdtemp(join(tmpdir(), 'docsync-bench-hot-'));
const sb = await startSandboxProcess(['--page-delay-ms', '0', '--job-delay-ms', '10']);
const client = new ServiceClient({ baseUrl: sb.url, token: TOKEN });
const store = openStore(join(root, 'home', STORE_FILE));
const engine = new Engine({ store, client, home: join(root, 'home'), poll: { initialMs: 200, maxMs: 2000 } });
try {
  const src = join(root, 'src');
  await mkdir(src);
  const names = Array.from({ length: count }, (_, i) => `scan-${String(i).padStart(5, '0')}.txt`);
  // Unique content per file (the engine skips duplicates by sha256).
  for (const n of names) await writeFile(join(src, n), `INVOICE\nInvoice Number: ${n}\n${randomBytes(10_200).toString('hex')}`);

  const batch = await createBatch(sb.url, 'curl-baseline');
  const script = `curl -sS -o /dev/null -w '%{http_code}\\n' -T "${src}/$1" -H 'Authorization: Bearer ${TOKEN}' '${sb.url}/v2/batches/${batch}/files/'"$1"`;
  const curl = await timed(() => run('xargs', ['-P', '8', '-n', '1', 'sh', '-c', script, 'sh'], names.join('\n')));
  if (curl.value.stdout.split('\n').filter((l) => l === '204').length !== count) throw new Error('curl baseline failed');

  const inbox = join(root, 'inbox');
  await mkdir(inbox);
  await engine.start();
  await engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', stabilityMs: 500, rescanIntervalMs: 60_000, batching: { quietMs: 2000, maxFiles: 500, maxBytes: 1 << 30 } });
  const t0 = performance.now();
  // "Dropped": moved in, as a scanner or a person's file manager does.
  await run('sh', ['-c', `mv "${src}"/* "${inbox}"/`]);
  // When the last file reached each stage: where the time goes.
  const reached: Record<string, number> = {};
  for (;;) {
    const c = store.files.countByState();
    const at = (performance.now() - t0) / 1000;
    const rows = Object.values(c).reduce((a, b) => a + b, 0);
    const past = { queued: rows >= count ? rows - c.discovered - c.stable : 0, uploaded: c.uploaded + c.running + c.done + c.failed, running: c.running + c.done + c.failed, finished: c.done + c.failed + c.skipped };
    for (const [k, v] of Object.entries(past)) if (v >= count && reached[k] === undefined) reached[k] = at;
    if (past.finished >= count) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const ms = performance.now() - t0;
  const c = store.files.countByState();
  console.log(`hot folder: ${count.toLocaleString('en')} files of 20 KB, dropped in at once`);
  console.log(`  engine, until every run completed: ${(ms / 1000).toFixed(1)} s = ${(count / (ms / 1000)).toFixed(0)} files/s (done ${c.done}, failed ${c.failed}, skipped ${c.skipped}; ${store.runs.listRuns().length} runs)`);
  console.log(`  xargs -P 8 curl, upload only:      ${(curl.ms / 1000).toFixed(1)} s = ${(count / (curl.ms / 1000)).toFixed(0)} files/s; ratio engine/curl ${(curl.ms / ms).toFixed(2)}`);
  console.log(`  all files past each stage at: ${Object.entries(reached).map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}`);
  console.log(`  engine process peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  await engine.stop();
  client.close();
  store.close();
  await sb.stop();
  await rm(root, { recursive: true, force: true });
}
