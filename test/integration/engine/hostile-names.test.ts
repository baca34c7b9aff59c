// A service that names its run `../../../x` and its post-processed PDFs `..`, `CON\0.pdf` and two
// `invoice.pdf`s differing in case (issue 26, item 3): the real engine, a real sandbox behind a scripted
// server on 127.0.0.1 that sends those names, a real data home. Nothing may appear outside
// the home's artifacts folder; the results are stored and every PDF is downloaded under a safe name.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localName } from '../../../electron/engine/config/local-names.js';
import { Engine } from '../../../electron/engine/engine.js';
import { ServiceClient } from '../../../electron/engine/service/index.js';
import { openStore, STORE_FILE, type Store } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { hostileService, type HostileService } from '../../helpers/hostile-service.js';
import { numberedInvoice } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

const RUN_ID = '../../../x';
const PDFS = ['svc-drive/a/Invoice.pdf', 'svc-drive/b/invoice.pdf', 'svc-drive/c/..', 'svc-drive/d/..\\..\\CON.pdf', 'svc-drive/e/x\u0000.pdf'];

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Every path below `dir` (folders with a trailing /), `skip` left out. */
async function tree(dir: string, skip: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    if (p === skip || p.startsWith(`${skip}/`)) continue;
    out.push(relative(dir, p) + (e.isDirectory() ? '/' : ''));
  }
  return out.sort();
}

describe('a service that sends hostile names', () => {
  it('creates nothing outside the artifacts folder, stores the results and downloads each PDF under its own safe name', async () => {
    const sb: RunningSandbox = await sandbox();
    const svc: HostileService = await hostileService(sb.url, { runIds: [RUN_ID], pdfPaths: PDFS });
    // The data home sits three levels down, as ~/.config/DocSync does: `../../../x` from its
    // artifacts/<service>/ would land beside it, among the user's own files.
    const outer = await mkdtemp(join(tmpdir(), 'docsync-hostile-'));
    const home = join(outer, 'user', 'config', 'DocSync');
    const inbox = join(outer, 'user', 'scans');
    await mkdir(inbox, { recursive: true });
    for (let i = 1; i <= PDFS.length; i++) await writeFile(join(inbox, `inv-${i}.pdf`), await numberedInvoice(i));
    const store: Store = openStore(join(home, STORE_FILE));
    const client = new ServiceClient({ baseUrl: svc.url, token: 'admin-token', retry: { limit: 4, baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 2000 } });
    const engine = new Engine({ store, client, home, poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } });
    close = async () => {
      await engine.stop();
      client.close();
      store.close();
      await svc.close();
      await sb.close();
      await rm(outer, { recursive: true, force: true });
    };
    const before = await tree(outer, home);

    await engine.start();
    const rows = await engine.uploadFiles([inbox], { type: 'deployment', id: 'sandbox-invoices' }, { postProcessPdf: true });
    expect(rows).toHaveLength(PDFS.length);
    const settled = await waitUntil(() => store.files.countByState().done === PDFS.length, 'every file done', 20_000).then(() => null, (e: Error) => e);

    // Nothing outside the data home changed, and inside it nothing outside artifacts/ came from the service.
    expect(await tree(outer, home)).toEqual(before);
    const runDir = localName(RUN_ID);
    expect(runDir).toMatch(/^x~[0-9a-f]{10}$/);
    const [service, ...more] = await readdir(join(home, 'artifacts'));
    expect(more).toEqual([]);
    expect(await readdir(join(home, 'artifacts', service as string))).toEqual([runDir]);
    expect(settled).toBeNull();

    // The run answered under its hostile id; its results are stored and every PDF is its own file.
    expect([...svc.runIds.values()]).toEqual([RUN_ID]);
    expect([...svc.pdfPaths.values()].sort()).toEqual([...PDFS].sort());
    const [run] = store.runs.listRuns();
    expect(run?.serviceRunId).toBe(RUN_ID);
    expect(run?.resultsStoredMs).not.toBeNull();
    const artifacts = store.results.artifactsOfRun(run!.id);
    expect(artifacts.map((a) => a.servicePath).sort()).toEqual([...PDFS].sort());
    const dir = join(home, 'artifacts', service as string, runDir);
    const byService = Object.fromEntries(artifacts.map((a) => [a.servicePath, relative(dir, a.localPath)]));
    expect(byService['svc-drive/c/..']).toBe('file');
    expect(byService['svc-drive/d/..\\..\\CON.pdf']).toBe('_CON.pdf');
    expect(byService['svc-drive/e/x\u0000.pdf']).toBe('x_.pdf');
    // The two invoice PDFs differ only in case: two files, also where names ignore case.
    expect([byService['svc-drive/a/Invoice.pdf'], byService['svc-drive/b/invoice.pdf']].sort()).toEqual(['Invoice.pdf', 'invoice (2).pdf'].sort());
    expect((await readdir(dir)).sort()).toEqual(Object.values(byService).sort());
    const bytes = await Promise.all(artifacts.map((a) => readFile(a.localPath)));
    for (const b of bytes) expect(b.subarray(0, 5).toString()).toBe('%PDF-');
    expect(new Set(bytes.map((b) => b.toString('base64'))).size).toBe(PDFS.length);
    expect(artifacts.every((a) => a.complete)).toBe(true);
  });
});
