// Switching services through DOCSYNC_URL (issue 11): the saved connection names service A, then
// `docsync serve` and `docsync upload` run with DOCSYNC_URL/DOCSYNC_TOKEN pointing at service B,
// all on one data home. Two real sandboxes over HTTP; B accepts only its own token.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnectionSettings } from '../../../electron/engine/config/connection.js';
import { openStore, STORE_FILE, type FileRow, type RunRow, type SearchHit } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import { batchNames, B_TOKEN, secondSandbox } from '../../helpers/second-service.js';
import { sandbox } from '../../helpers/sandbox.js';
import { buildIfNeeded, cliEnv, lineMatching, type Cli } from './cli-env.js';

let a: RunningSandbox;
let b: RunningSandbox;
let cli: Cli;
beforeAll(async () => {
  await buildIfNeeded();
  a = await sandbox();
  b = await secondSandbox();
  cli = await cliEnv();
  // The saved connection (what `docsync login` leaves) names A; its token comes from DOCSYNC_TOKEN.
  await saveConnectionSettings(cli.home, { url: a.url, account: 'default' });
  for (const n of [1, 2, 3]) {
    await writeFile(cli.dir(`inv-${n}.pdf`), await invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: 'March 1, 2026', dueDate: 'March 31, 2026', total: `$${n}.50`, vendor: `Vendor ${n}` }));
  }
}, 120_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await cli?.close();
});

const ON_A = { DOCSYNC_TOKEN: 'admin-token' };
const ON_B = () => ({ DOCSYNC_URL: b.url, DOCSYNC_TOKEN: B_TOKEN });

/** The local batch names of the given files, read from the store the commands wrote. */
function batchesOf(names: string[]): string[] {
  const store = openStore(join(cli.home, STORE_FILE));
  try {
    return names.map((n) => {
      const f = store.files.list().find((x) => x.originalName === n) as FileRow;
      return store.runs.batch(f.batchId!)!.name!;
    }).sort();
  } finally {
    store.close();
  }
}

describe('DOCSYNC_URL points at another service than the saved connection', () => {
  it('upload on A, then serve and upload with DOCSYNC_URL on B: clean batches on B, none stray, A untouched', async () => {
    const first = await cli.run(['upload', 'inv-1.pdf', '--deployment', 'sandbox-invoices', '--wait'], { env: ON_A });
    expect(first.code, first.stderr).toBe(0);

    const inbox = cli.dir('inbox');
    await mkdir(inbox);
    const added = await cli.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--stability', '150', '--quiet', '300', '--rescan', '1000']);
    expect(added.code, added.stderr).toBe(0);
    const { child, exit } = cli.spawn(['serve', '--no-ui'], { env: ON_B() });
    try {
      expect(await lineMatching(child, /^service: /)).toContain(b.url);
      await lineMatching(child, /^engine running$/);
      await writeFile(join(inbox, 'inv-2.pdf'), await invoicePdf({ invoiceNumber: 'INV-2', invoiceDate: 'March 1, 2026', dueDate: 'March 31, 2026', total: '$2.50', vendor: 'Vendor 2' }));
      // Before: "failed ... UNIQUE constraint failed: batches.service_batch_id".
      expect(await lineMatching(child, /^(done|failed) /, 30_000)).toBe(`done     ${join(inbox, 'inv-2.pdf')}`);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await exit).code).toBe(0);

    const third = await cli.run(['upload', 'inv-3.pdf', '--deployment', 'sandbox-invoices', '--wait'], { env: ON_B() });
    expect(third.code, third.stderr).toBe(0);

    expect(await batchNames(b, B_TOKEN)).toEqual(batchesOf(['inv-2.pdf', 'inv-3.pdf']));
    expect(await batchNames(a, 'admin-token')).toEqual(batchesOf(['inv-1.pdf']));
  });

  it('runs, results and search still show A\'s results, each marked with the service it came from', async () => {
    const [fromA, fromB] = [new URL(a.url).origin, new URL(b.url).origin];
    const runs = await cli.json<(RunRow & { origin: string })[]>(['runs']);
    expect(runs.map((r) => [r.status, r.origin])).toEqual([['COMPLETE', fromB], ['COMPLETE', fromB], ['COMPLETE', fromA]]);
    const text = await cli.run(['runs']);
    expect(text.stdout.split('\n')[0]).toMatch(/\bFROM$/);
    expect(text.stdout).toContain(`${runs[2]!.serviceRunId}  `);
    expect(text.stdout.split('\n').find((l) => l.startsWith(runs[2]!.serviceRunId))).toMatch(new RegExp(`${fromA}$`));

    const hit = (await cli.json<(SearchHit & { origin: string })[]>(['search', 'INV-1'])).find((h) => h.value === 'INV-1');
    expect(hit).toMatchObject({ serviceRunId: runs[2]!.serviceRunId, origin: fromA, fileName: 'inv-1.pdf' });
    expect((await cli.run(['search', 'INV-1'])).stdout).toMatch(new RegExp(`inv-1\\.pdf\\s+invoice_number\\s+.*${fromA}`));

    const results = await cli.run(['results', runs[2]!.serviceRunId]);
    expect(results.code, results.stderr).toBe(0);
    expect(results.stdout.split('\n')[0]).toBe(`run ${runs[2]!.serviceRunId} COMPLETE from ${fromA}: 1 file`);
    expect(results.stdout).toMatch(/invoice_number\s+INV-1/);
    expect((await cli.json<{ run: { origin: string } }>(['results', runs[0]!.serviceRunId])).run.origin).toBe(fromB);
  });
});
