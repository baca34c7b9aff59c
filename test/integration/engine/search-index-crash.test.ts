// Search index after a crash (issue 14, migrations 011 and 019): results are indexed in units above
// a watermark, by a worker thread into the search file, so a process killed with SIGKILL at any
// moment leaves rows stored but not yet indexed, changes logged but not yet applied, or a unit half
// written; opening the store and catching up must index exactly those, and every stored result must
// then be found once. A real child process (the compiled store, out/cli) stores results pages in a
// loop, some of them again (replacing indexed rows), and is killed at seeded random moments.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openStore } from '../../../electron/engine/store/index.js';
import { searchFileOf } from '../../../electron/engine/store/search-file.js';
import { buildCliIfNeeded, OUT } from '../../helpers/build-cli.js';
import { ftsRows } from '../../helpers/fts-rows.js';
import { seededRandom } from '../../../shared/seeded-random.js';

const SEED = Number(process.env.CRASH_SEED ?? 20261124);
const KILLS = 6;

let dir: string;
beforeAll(async () => {
  await buildCliIfNeeded();
  dir = await mkdtemp(join(tmpdir(), 'docsync-index-crash-'));
}, 120_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The child: stores pages of 5 documents x 10 fields forever, 5 ms apart, every 7th one again at an earlier offset. */
const child = (dbPath: string): string => `
const { openStore } = await import(${JSON.stringify(pathToFileURL(join(OUT, 'electron/engine/store/index.js')).href)});
const { parseResultsPage } = await import(${JSON.stringify(pathToFileURL(join(OUT, 'shared/service/index.js')).href)});
const s = openStore(${JSON.stringify(dbPath)}, { searchBatchRows: 120 });
const run = s.db.prepare("SELECT id FROM runs WHERE service_run_id = 'run_crash'").get()?.id ?? s.runs.addRun({ serviceRunId: 'run_crash' }).id;
let next = s.db.prepare('SELECT coalesce(max(file_offset) + 1, 0) AS n FROM result_pages').get().n;
for (let i = 0; ; i++) {
  const offset = i % 7 === 6 && next > 3 ? next - 3 : next++;
  const files = [0, 1, 2, 3, 4].map((k) => ({ original_file_name: 'crash-' + offset + '-' + k + '.pdf', input_file_path: null,
    documents: [{ class_name: 'Invoice', page_numbers: [1], fields: Array.from({ length: 10 }, (_, f) => ({ field_name: 'field_' + f, value: f === 0 ? 'CR' + offset + 'X' + k + 'Y' + i : 'value ' + f, type: 'TEXT' })) }] }));
  const raw = { id: 'run_crash', status: 'COMPLETE', files, case_info: { fields: [] }, has_more: true };
  s.results.storeResultsPage(run, raw, parseResultsPage(raw), offset);
  process.stdout.write('.');
  // Pages come from the network, a few ms apart: the index worker indexes between them.
  await new Promise((r) => setTimeout(r, 5));
}
`;

/** Runs the child until it has stored `pages` pages (as it reports them), then kills it with SIGKILL. */
async function killAfter(dbPath: string, pages: number): Promise<void> {
  const p = spawn(process.execPath, ['--input-type=module', '-e', child(dbPath)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  await new Promise<void>((resolve, reject) => {
    let seen = 0;
    p.stdout.on('data', (b: Buffer) => {
      seen += b.length;
      if (seen >= pages && p.exitCode === null) p.kill('SIGKILL');
    });
    p.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the child stopped by itself (${code}): ${stderr}`))));
  });
}

describe('search index after kill -9', () => {
  it(`every stored result is indexed once after the store opens again (seed ${SEED})`, async () => {
    const dbPath = join(dir, 'docsync.db');
    const rand = seededRandom(SEED);
    for (let k = 0; k < KILLS; k++) await killAfter(dbPath, 3 + Math.floor(rand() * 25));
    // The child never searched: what its search file holds, its worker indexed in the background.
    const raw = new Database(searchFileOf(dbPath), { readonly: true });
    expect((raw.prepare('SELECT fields_id AS n FROM search_state').get() as { n: number }).n).toBeGreaterThan(0);
    raw.close();

    const s = openStore(dbPath);
    try {
      s.results.indexForSearch();
      // Through the search file's connection, which reads the store's tables too.
      const n = (sql: string) => (s.searchDb.prepare(sql).get() as { n: number }).n;
      // FTS5's own check: each index holds exactly the rows and words of what it indexes.
      for (const t of ['field_search', 'document_search']) s.searchDb.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 1)`).run();
      expect(ftsRows(s.searchDb, 'field_search')).toBe(n('SELECT count(*) AS n FROM fields'));
      expect(ftsRows(s.searchDb, 'document_search')).toBe(n('SELECT count(*) AS n FROM documents'));
      expect(n('SELECT fields_id AS n FROM search_state')).toBe(n('SELECT max(id) AS n FROM fields'));
      // Every change logged was applied (rows left in the log are at or below the seq applied).
      expect(n('SELECT count(*) AS n FROM search_changes WHERE seq > (SELECT changes_seq FROM search_state)')).toBe(0);
      // Pages stored again logged their replaced rows, and those were applied.
      expect(n('SELECT changes_seq AS n FROM search_state')).toBeGreaterThan(0);
      const pages = n('SELECT count(*) AS n FROM result_pages');
      expect(pages).toBeGreaterThan(KILLS);
      // Each page's current values are found once; each page's first field value is one word unique to it.
      const values = s.db.prepare<[], { value: string }>("SELECT value FROM fields WHERE name = 'field_0' ORDER BY id").all().map((r) => r.value);
      expect(values).toHaveLength(pages * 5);
      for (const v of values) expect(s.search(v, 5, { prefix: false }).map((h) => h.value), v).toEqual([v]);
    } finally {
      s.close();
    }
  }, 120_000);
});
