// Crash safety (issue 4, "Crash safety"): "kill -9 of the engine at any moment, then a restart, must
// lose no file and upload no content twice". A real engine process (the compiled engine, see
// test/helpers/engine-child.mjs) is killed with SIGKILL at seeded random moments while it works
// through a few hundred files; a last process finishes the work. The sandbox lives in this process,
// so it outlives every kill, and the checks go through its own HTTP API and the engine's store.
//
// Seed: CRASH_SEED=<n> npx vitest run test/integration/engine/crash.test.ts (the seed is in the test name).
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, STORE_FILE, type Store } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { seededRandom } from '../../../shared/seeded-random.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { buildCliIfNeeded } from '../../helpers/build-cli.js';
import { startEngineProcess } from '../../helpers/engine-process.js';

const SEED = Number(process.env.CRASH_SEED ?? 20260301);
const KILLS = 15;
const SMALL = 296;
const LARGE = 4; // > 10 MiB each: multipart (sandbox part size 64 KiB, so ~170 parts per file)
const LARGE_EVERY = (SMALL + LARGE) / LARGE;
const WAVES = [0, 3, 6, 9, 12]; // files are added before these spawns (the engine is down then)
const TOTAL_BUDGET_MS = 85_000;

interface Made {
  name: string;
  invoice: string;
  sha: string;
  size: number;
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');


let sb: RunningSandbox;
let root: string;
let inbox: string;
let outputs: string;
let home: string;
let child: ChildProcess | undefined;
let stderr = '';
const made: Made[] = [];

async function makeFiles(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    const invoice = `INV-${SEED}-${String(i).padStart(4, '0')}`;
    let text = invoiceText({ invoiceNumber: invoice, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: `$${i}.50`, vendor: `Vendor ${i % 17}` });
    // Trailing blank padding makes no lines for the service, but makes the file multipart-sized.
    if (i % LARGE_EVERY === LARGE_EVERY - 1) text += `${' '.repeat(10 * 1024 * 1024 + 300 * 1024 + i)}\n`;
    const bytes = Buffer.from(text);
    const name = `inv-${String(i).padStart(4, '0')}.txt`;
    await writeFile(join(inbox, name), bytes);
    made.push({ name, invoice, sha: sha256(bytes), size: bytes.length });
  }
}

async function startChild(): Promise<ChildProcess> {
  const folder = {
    path: inbox, deployment: 'sandbox-invoices', outputDir: outputs,
    stabilityMs: 150, rescanIntervalMs: 1000, batching: { quietMs: 300, maxFiles: 25, maxBytes: 1024 * 1024 * 1024 },
  };
  const p = await startEngineProcess({ home, url: sb.url, folder }, { onStderr: (t) => (stderr = (stderr + t).slice(-20_000)) });
  child = p.child;
  return p.child;
}

async function kill(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise((r) => c.once('exit', r));
  c.kill('SIGKILL');
  await gone;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** What the store shows right now (read-only connection; the engine process is the writer). */
function snapshot(db: Database.Database): string {
  const counts = db.prepare('SELECT state, count(*) AS n FROM files GROUP BY state ORDER BY state').all() as { state: string; n: number }[];
  const runs = db.prepare("SELECT count(*) AS n, sum(status = 'COMPLETE' AND results_stored_ms IS NOT NULL) AS stored FROM runs").get() as { n: number; stored: number | null };
  const mp = db.prepare('SELECT count(*) AS n FROM multipart_sessions WHERE completed_ms IS NULL AND aborted_ms IS NULL').get() as { n: number };
  return `${counts.map((c) => `${c.state}=${c.n}`).join(' ') || 'no files yet'}; runs=${runs.n} stored=${runs.stored ?? 0}; open multipart=${mp.n}`;
}

function unfinished(db: Database.Database): number {
  const all = (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
  const final = (db.prepare("SELECT count(*) AS n FROM files WHERE state IN ('done','failed','skipped')").get() as { n: number }).n;
  return made.length - final + Math.max(0, all - made.length);
}

// ---- service reads, plain HTTP (the service's own API, not DocSync's client) -------------------

async function api<T>(path: string): Promise<T> {
  const res = await fetch(sb.url + path, { headers: { Authorization: 'Bearer admin-token' } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Node { full_path: string; name: string; metadata?: { size?: number } }
interface ServiceRun { id: string; batch_id?: number | null; status?: string; tags?: string[] }

async function batchFiles(batchId: number): Promise<Node[]> {
  const nodes: Node[] = [];
  let token: string | undefined;
  do {
    const page = await api<{ nodes?: Node[]; has_more?: boolean; next_page_token?: string }>(
      `/v2/batches/${batchId}/files?page_size=10${token ? `&start_token=${encodeURIComponent(token)}` : ''}`);
    nodes.push(...(page.nodes ?? []));
    token = page.has_more ? page.next_page_token : undefined;
  } while (token);
  return nodes;
}

async function fileSha(fullPath: string): Promise<string> {
  const res = await fetch(`${sb.url}/v2/files/${fullPath.split('/').map(encodeURIComponent).join('/')}?expect-node-type=file`, { headers: { Authorization: 'Bearer admin-token' } });
  if (res.status !== 200) throw new Error(`GET file ${fullPath}: ${res.status}`);
  return sha256(new Uint8Array(await res.arrayBuffer()));
}

async function allRuns(): Promise<ServiceRun[]> {
  const out: ServiceRun[] = [];
  for (let offset = 0; ; offset += 50) {
    const { runs } = await api<{ runs: ServiceRun[] }>(`/v2/apps/runs?deployment_id=sandbox-invoices&limit=50&offset=${offset}`);
    out.push(...runs);
    if (runs.length < 50) return out;
  }
}

beforeAll(async () => {
  await buildCliIfNeeded();
  sb = await sandbox({ partSize: 64 * 1024, pageDelayMs: 5, jobDelayMs: 20 });
  root = await mkdtemp(join(tmpdir(), 'docsync-crash-'));
  inbox = join(root, 'inbox');
  outputs = join(root, 'outputs');
  home = join(root, 'home');
  await mkdir(inbox, { recursive: true });
}, 180_000);

afterAll(async () => {
  if (child) await kill(child);
  await sb?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe(`crash safety (seed ${SEED}): kill -9 at random moments, then restart`, () => {
  it(`loses no file and puts each file's bytes on the service exactly once, with one run per batch and results stored locally (${KILLS} kills, ${SMALL + LARGE} files)`, async () => {
    const began = Date.now();
    const rnd = seededRandom(SEED);
    const perWave = Math.ceil((SMALL + LARGE) / WAVES.length);
    let db: Database.Database | undefined;
    const kills: string[] = [];
    try {
      for (let k = 0; k < KILLS && Date.now() - began < TOTAL_BUDGET_MS / 2; k++) {
        const wave = WAVES.indexOf(k);
        if (wave >= 0) await makeFiles(wave * perWave, Math.min(SMALL + LARGE, (wave + 1) * perWave));
        const c = await startChild();
        db ??= new Database(join(home, STORE_FILE), { readonly: true, fileMustExist: true });
        const wait = Math.floor(50 + rnd() * 1450);
        await sleep(wait);
        const seen = snapshot(db);
        await kill(c);
        kills.push(`kill ${k + 1} after ${wait} ms: ${seen}`);
      }
      expect(made).toHaveLength(SMALL + LARGE);
      // The last process runs until every file is in a final state.
      await startChild();
      db ??= new Database(join(home, STORE_FILE), { readonly: true, fileMustExist: true });
      const end = began + TOTAL_BUDGET_MS;
      while (unfinished(db) > 0 && Date.now() < end) await sleep(100);
      const last = snapshot(db);
      if (child) await kill(child);
      console.log(`crash test seed ${SEED}:\n  ${kills.join('\n  ')}\n  final: ${last} after ${Date.now() - began} ms`);
      expect(unfinished(db), `files not finished within the budget: ${last}\nengine stderr:\n${stderr}`).toBe(0);
    } finally {
      db?.close();
    }

    // ---- the service: every file's bytes exactly once, one run per non-empty batch ----------------
    const { batches } = await api<{ batches: { id: number; name?: string }[] }>('/v2/batches');
    const where = new Map<string, string[]>(); // sha256 -> full paths holding those bytes
    const filesOf = new Map<number, Node[]>();
    for (const b of batches) {
      const nodes = await batchFiles(b.id);
      filesOf.set(b.id, nodes);
      for (const n of nodes) {
        const sha = await fileSha(n.full_path);
        where.set(sha, [...(where.get(sha) ?? []), n.full_path]);
      }
    }
    const nonEmpty = batches.filter((b) => (filesOf.get(b.id)?.length ?? 0) > 0);
    // Empty batches are allowed (a batch created just before a kill, before its id was recorded);
    // they hold no bytes and get no run.
    console.log(`  service: ${batches.length} batches (${batches.length - nonEmpty.length} empty), ${[...filesOf.values()].flat().length} files`);
    for (const m of made) expect(where.get(m.sha) ?? [], `${m.name}: copies on the service`).toHaveLength(1);
    expect([...filesOf.values()].flat()).toHaveLength(made.length); // nothing else was uploaded

    const runs = await allRuns();
    const byBatch = new Map<number, ServiceRun[]>();
    for (const r of runs) byBatch.set(r.batch_id ?? -1, [...(byBatch.get(r.batch_id ?? -1) ?? []), r]);
    for (const b of nonEmpty) expect(byBatch.get(b.id)?.map((r) => r.id) ?? [], `runs of batch ${b.id} (${b.name})`).toHaveLength(1);
    expect(runs.filter((r) => !nonEmpty.some((b) => b.id === r.batch_id))).toEqual([]);
    expect(runs.filter((r) => r.status !== 'COMPLETE')).toEqual([]);

    // ---- the store: every file done, at the path holding its bytes, with its results ---------------
    const store: Store = openStore(join(home, STORE_FILE));
    try {
      const mp = store.db.prepare('SELECT count(*) AS n, sum(aborted_ms IS NOT NULL) AS aborted, (SELECT count(*) FROM uploaded_parts) AS parts FROM multipart_sessions').get() as { n: number; aborted: number | null; parts: number };
      console.log(`  multipart: ${mp.n} sessions for ${LARGE} large files (${mp.aborted ?? 0} aborted), ${mp.parts} parts recorded`);
      const rows = store.files.list();
      expect(rows).toHaveLength(made.length);
      expect(rows.filter((f) => f.state !== 'done').map((f) => `${f.originalName}: ${f.state} ${f.error ?? ''}`)).toEqual([]);
      for (const r of runs) expect(store.runs.runByServiceId(r.id), `service run ${r.id} recorded locally`).toBeDefined();
      for (const m of made) {
        const f = store.files.byPath(join(inbox, m.name));
        expect(f?.sha256, m.name).toBe(m.sha);
        expect(where.get(m.sha)).toEqual([f?.servicePath]);
        expect(store.files.openMultipart(f!.id), `${m.name}: open multipart session`).toBeUndefined();
        const results = store.results.resultsOfFile(f!.id);
        expect(results, `${m.name}: results`).toHaveLength(1);
        expect(results[0]!.runId).toBe(store.runs.runForBatch(f!.batchId!)?.id);
        const fields = Object.fromEntries(results[0]!.documents.flatMap((d) => d.fields).map((x) => [x.name, x.value]));
        expect(fields.invoice_number, m.name).toBe(m.invoice);
        expect(await readFile(join(outputs, m.name.replace(/\.txt$/, '.json')), 'utf8')).toContain(m.invoice);
      }
    } finally {
      store.close();
    }
  }, 150_000);
});
