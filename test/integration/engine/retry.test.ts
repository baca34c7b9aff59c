// A failed file that a person fixes and retries is judged by its new run alone (found by the UI
// tests: the old run's ERROR fields used to fail the retried file again).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { engineEnv, FAST_FOLDER, type EngineEnv } from '../../helpers/engine.js';
import { corruptPdf, invoicePdf } from '../../helpers/pdf-fixtures.js';
import { waitUntil } from '../../helpers/wait.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

it('retry after fixing the file: done, with outputs from the new run only; both runs keep their results', async () => {
  env = await engineEnv();
  const e = env;
  const inbox = e.dir('inbox');
  const out = e.dir('out');
  await mkdir(inbox, { recursive: true });
  await e.engine.start();
  await e.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, outputDir: out });
  await writeFile(join(inbox, 'scan.pdf'), await corruptPdf());
  await waitUntil(() => e.engine.store.files.countByState().failed === 1, 'the corrupt file failed');
  const [file] = e.engine.store.files.list({ state: 'failed' });

  await writeFile(join(inbox, 'scan.pdf'), await invoicePdf({ invoiceNumber: 'INV-9', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$9.00', vendor: 'Nine' }));
  await e.engine.retryFile(file!.id);
  await waitUntil(() => e.engine.store.files.get(file!.id)?.state === 'done', 'the retried file is done');
  expect(e.engine.store.files.get(file!.id)?.error).toBeNull();
  const runs = new Set(e.engine.store.results.resultsOfFile(file!.id).map((r) => r.runId));
  expect(runs.size).toBe(2);
  const json = JSON.parse(await readFile(join(out, 'scan.json'), 'utf8')) as { documents: { fields: { name: string; value: string }[] }[] }[];
  expect(json).toHaveLength(1);
  expect(json[0]?.documents[0]?.fields.find((f) => f.name === 'invoice_number')?.value).toBe('INV-9');
});

it('a file that cannot be retried or cancelled is named by its name, and its folder when another file has the same name (issue 12)', async () => {
  env = await engineEnv();
  const e = env;
  const a = e.dir('march');
  const b = e.dir('april');
  await mkdir(a, { recursive: true });
  await mkdir(b, { recursive: true });
  await e.engine.start();
  await e.engine.addFolder({ path: a, deployment: 'sandbox-invoices', ...FAST_FOLDER });
  await writeFile(join(a, 'only.pdf'), await invoicePdf({ invoiceNumber: 'INV-1', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$1.00', vendor: 'One' }));
  await waitUntil(() => e.engine.store.files.countByState().done === 1, 'the first file is done');
  const [only] = e.engine.store.files.list({ state: 'done' });
  await expect(e.engine.retryFile(only!.id)).rejects.toThrow(/^"only\.pdf" is done; only a failed file can be retried$/);

  await e.engine.addFolder({ path: b, deployment: 'sandbox-invoices', ...FAST_FOLDER });
  await writeFile(join(b, 'only.pdf'), await invoicePdf({ invoiceNumber: 'INV-2', invoiceDate: 'May 2, 2026', dueDate: 'May 31, 2026', total: '$2.00', vendor: 'Two' }));
  await waitUntil(() => e.engine.store.files.countByState().done === 2, 'the second file is done');
  await expect(e.engine.retryFile(only!.id)).rejects.toThrow(`"only.pdf" in ${a} is done; only a failed file can be retried`);
  expect(() => e.engine.cancelFile(only!.id)).toThrow(`"only.pdf" in ${a} is done; only a file waiting for upload can be cancelled`);
});
