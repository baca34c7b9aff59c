/**
 * Run results through the client (spec 2.8, 4.6): paging over every page with file_offset and
 * has_more (sandbox resultsPageSize 2), the include_* flags, the raw JSON kept beside the typed
 * view, and the post-processed PDF downloaded from the path the results give.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsPage, ServiceClient } from '../../../electron/engine/service/index.js';
import { runSettings } from '../../../electron/engine/pipeline/plan.js';
import { runtimeConfig } from '../../../shared/service/index.js';
import { encryptPdf, invoicePdf, invoiceText, type InvoiceOptions } from '../../helpers/pdf-fixtures.js';
import { clientEnv, failure, type ClientEnv } from './env.js';

const GOOD: InvoiceOptions = { invoiceNumber: 'INV-1', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$80.00', vendor: 'Acme' };
const wait = { initialDelayMs: 10, maxDelayMs: 50, timeoutMs: 20_000 };

let env: ClientEnv;
let client: ServiceClient;
let runId: string;

beforeAll(async () => {
  env = await clientEnv({ resultsPageSize: 2 });
  client = env.client();
  const { id } = await client.createBatch({ name: 'five', workspace: 'team' });
  for (let i = 1; i <= 5; i++) {
    const f = await env.file(`r${i}.txt`, Buffer.from(invoiceText({ ...GOOD, invoiceNumber: `INV-${i}`, total: i === 3 ? 'TBD' : `$${i}0.00` })));
    await client.putBatchFile(id, `r${i}.txt`, f.path);
  }
  const run = await client.startDeploymentRun('sandbox-invoices', { batch_id: id });
  runId = run.id;
  expect((await client.waitForRun(runId, wait)).state).toBe('complete');
});
afterAll(() => env.close());

async function all(flags = {}): Promise<ResultsPage[]> {
  const pages: ResultsPage[] = [];
  for await (const p of client.iterateResults(runId, flags)) pages.push(p);
  return pages;
}

describe('results paging (spec 4.6 rule 5)', () => {
  it('visits every page: file_offset 0, 2, 4 (adding the files received) while has_more', async () => {
    const pages = await all();
    expect(pages.map((p) => p.fileOffset)).toEqual([0, 2, 4]);
    expect(pages.map((p) => p.page.has_more)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.page.files.map((f) => f.original_file_name))).toEqual(['r1.txt', 'r2.txt', 'r3.txt', 'r4.txt', 'r5.txt']);
  });

  it('one page at a given offset', async () => {
    const p = await client.getResults(runId, { file_offset: 4 });
    expect(p.page.files.map((f) => f.original_file_name)).toEqual(['r5.txt']);
    expect(p.page.has_more).toBe(false);
  });

  it('the typed view reads the run level: id, status, ns timestamps, batch, custom keys, case info (from the last page)', async () => {
    const page = (await all()).at(-1)!.page;
    expect(page).toMatchObject({ id: runId, status: 'COMPLETE', keys: { custom: { currency: 'USD' } }, review_completed: false });
    expect(page.start_timestamp).toBeGreaterThan(1e18);
    expect(page.finish_timestamp).toBeGreaterThanOrEqual(page.start_timestamp as number);
    expect(page.case_info.fields.map((f) => f.name)).toContain('invoice_count');
  });

  it('the run\'s case_info, repeated by the service on every page, is read from the last page only; the pages before have it as null', async () => {
    const pages = await all();
    const whole = await Promise.all(pages.map((p) => client.getResults(runId, { file_offset: p.fileOffset })));
    // The service did send it on every page.
    for (const w of whole) expect((w.raw as { case_info: { fields: unknown[] } }).case_info.fields.length).toBeGreaterThan(0);
    expect(pages.map((p) => p.caseInfoElided ?? false)).toEqual([true, true, false]);
    for (const [i, p] of pages.slice(0, -1).entries()) {
      expect((p.raw as { case_info: unknown }).case_info).toBeNull();
      expect(p.page.case_info.fields).toEqual([]);
      // The rest of the text as received: the whole page's with only that value replaced.
      const received = whole[i]!.rawText;
      const value = JSON.stringify((whole[i]!.raw as { case_info: unknown }).case_info);
      expect(received).toContain(`"case_info":${value}`);
      expect(p.rawText).toBe(received.replace(`"case_info":${value}`, '"case_info":null'));
      expect(p.page.files).toEqual(whole[i]!.page.files);
    }
    // The last page whole, as received.
    expect(pages.at(-1)!.rawText).toBe(whole.at(-1)!.rawText);
    expect(pages.at(-1)!.page.case_info).toEqual(whole.at(-1)!.page.case_info);
  });

  it('keeps the raw JSON beside the typed view, file for file', async () => {
    for (const p of await all()) {
      const raw = p.raw as { files: { original_file_name: string; documents: { fields: { field_name: string; value: string }[] }[] }[] };
      expect(raw.files.map((f) => f.original_file_name)).toEqual(p.page.files.map((f) => f.original_file_name));
      const rawField = raw.files[0]?.documents[0]?.fields[0];
      expect(p.page.files[0]?.documents[0]?.fields[0]).toMatchObject({ field_name: rawField?.field_name, value: rawField?.value });
      // The body as received, which the store keeps instead of serialising `raw` again.
      expect(JSON.parse(p.rawText)).toEqual(p.raw);
    }
  });

  it('a field that failed carries its error: a 200 page still, the value of an unparseable total is kept', async () => {
    const pages = await all({ include_validation_results: true });
    const third = pages.flatMap((p) => p.page.files).find((f) => f.original_file_name === 'r3.txt');
    const total = third?.documents[0]?.fields.find((f) => f.field_name === 'total_amount');
    expect(total?.validations?.valid).toBe(false);
    expect(total?.validations?.alerts[0]).toMatchObject({ alert_level: 'FAILURE', blocked: true, locations: [{ field_name: 'total_amount' }] });
  });

  it('404 for the results of an unknown run', async () => {
    expect(await failure(() => client.getResults('run_nope'))).toMatchObject({ kind: 'http', status: 404, operation: 'getResults' });
  });
});

describe('include_* flags (spec 4.6 rule 3)', () => {
  it('without flags the optional blocks are absent', async () => {
    const [p] = await all();
    const doc = p?.page.files[0]?.documents[0];
    const field = doc?.fields[0];
    expect(field?.confidence).toBeUndefined();
    expect(field?.source_coordinates).toBeUndefined();
    expect(field?.edit_history).toBeUndefined();
    expect(field?.validations).toBeUndefined();
    expect(doc?.page_layouts).toBeUndefined();
    expect(doc?.classification_confidence).toBeUndefined();
  });

  it('each flag adds its blocks at document and field level', async () => {
    const [p] = await all({ include_confidence_scores: true, include_source_info: true, include_review_results: true, include_validation_results: true });
    const doc = p?.page.files[0]?.documents[0];
    const field = doc?.fields.find((f) => f.field_name === 'invoice_number');
    expect(field?.value).toBe('INV-1');
    expect(field?.confidence?.model).toBeGreaterThan(0);
    expect(field?.source_coordinates?.[0]?.page_number).toBe(0);
    expect(field?.edit_history).toEqual([]);
    expect(field?.validations?.valid).toBe(true);
    expect(doc?.page_layouts?.[0]?.page_number).toBe(0);
    expect(doc?.validations?.final_result_pass).toBe(true);
    expect(doc?.classification_confidence?.model).toBeGreaterThan(0);
    expect(doc?.review_completed).toBe(false);
  });
});

describe('the service\'s shapes, from the sandbox through the client (issue 11)', () => {
  it('the raw page has them; the typed view reads them without loss', async () => {
    const first = (await all({ include_review_results: true, include_validation_results: true, include_source_info: true })).at(-1);
    const raw = first!.raw as Record<string, any>;
    // As sent: batch_id a string, keys a list, page_numbers from 1, no error_msg or post_processed_pdf_path to say nothing.
    expect(typeof raw.batch_id).toBe('string');
    expect(raw.keys).toEqual([{ custom: { currency: 'USD', min_confidence: 0.5 } }]);
    const rawDoc = raw.files[0].documents[0];
    expect(rawDoc.page_numbers).toEqual([1]);
    expect(rawDoc.page_layouts.map((l: any) => l.page_number)).toEqual([0]);
    expect(rawDoc).not.toHaveProperty('post_processed_pdf_path');
    for (const f of rawDoc.fields) expect(f).not.toHaveProperty('error_msg');
    const rawCase = raw.case_info.fields.find((c: any) => c.name === 'total_invoiced');
    expect(rawCase.chosen_field).toEqual({ record_index: 0, refined_phrase_name: 'total_amount' });
    // The view.
    const page = first!.page;
    expect(page.batch_id).toBe(raw.batch_id);
    expect(page.keys.custom).toEqual({ currency: 'USD', min_confidence: 0.5 });
    expect(page.files[0]!.documents[0]!.page_numbers).toEqual([1]);
    expect(page.files[0]!.documents[0]!.fields[0]!.error_msg).toBeNull();
    expect(page.case_info.fields.find((c) => c.name === 'total_invoiced')?.chosen_field).toEqual({ record_index: 0, refined_phrase_name: 'total_amount' });
  });
});

describe('the namespace segment in run settings (issue 11)', () => {
  it('a client and a sandbox configured with another segment: PDF passwords go under it, and only there do they open the PDF', async () => {
    const acme = await clientEnv({ namespace: 'acme', pageDelayMs: 1 });
    try {
      const c = acme.client('admin-token', { namespace: 'acme' });
      expect(c.config.namespace).toBe('acme');
      const f = await acme.file('locked.pdf', await encryptPdf(await invoicePdf(GOOD), 'pw'));
      const firstDoc = async (settings: object): Promise<{ value: string | null; error: string | null }> => {
        const { id } = await c.createBatch({ name: `locked-${Math.random()}`, workspace: 'team' });
        await c.putBatchFile(id, 'locked.pdf', f.path);
        const run = await c.startDeploymentRun('sandbox-invoices', { batch_id: id, settings });
        expect((await c.waitForRun(run.id, wait)).state).toBe('complete');
        const field = (await c.getResults(run.id)).page.files[0]!.documents[0]!.fields.find((x) => x.field_name === 'invoice_number')!;
        return { value: field.value, error: field.error_msg };
      };
      // What the engine sends for a hot folder with a PDF password: under the client's segment.
      const settings = runSettings({ target: { type: 'deployment', id: 'sandbox-invoices' }, run: { tags: [], customKeys: {}, postProcessPdf: false, pdfPasswords: { locked: 'pw' } } }, 'b1', c.config.namespace);
      expect(settings.runtime_config).toEqual({ acme: { pdf: { passwords: { locked: 'pw' } } } });
      expect(await firstDoc(settings)).toEqual({ value: 'INV-1', error: null });
      // Under the spec's `svc` this deployment ignores them: the PDF stays locked.
      const svc = await firstDoc({ runtime_config: runtimeConfig('svc', { pdfPasswords: { locked: 'pw' } }) });
      expect(svc.value).toBe('ERROR');
      expect(svc.error).toMatch(/no matching password was given in runtime_config\.acme\.pdf\.passwords/);
      // And the secrets path uses the same segment.
      await c.createSecret({ alias: 's', value: 'v', allowed_workspaces_type: 'ALL' });
      expect((await c.listSecrets()).secrets.map((s) => s.alias)).toEqual(['s']);
    } finally {
      await acme.close();
    }
  });
});

describe('post-processed PDFs (spec 2.7 generate_post_process_pdf, 4.6 rule 4)', () => {
  it('the path in the results downloads as a PDF through /v2/files', async () => {
    const { id } = await client.createBatch({ name: 'pdf', workspace: 'team' });
    const f = await env.file('inv.pdf', await invoicePdf(GOOD));
    await client.putBatchFile(id, 'inv.pdf', f.path);
    const run = await client.startDeploymentRun('sandbox-invoices', { batch_id: id, settings: { runtime_config: { generate_post_process_pdf: true } } });
    expect((await client.waitForRun(run.id, wait)).state).toBe('complete');
    const pages: ResultsPage[] = [];
    for await (const page of client.iterateResults(run.id, { include_source_info: true })) pages.push(page);
    const path = pages[0]?.page.files[0]?.documents[0]?.post_processed_pdf_path;
    expect(path).toMatch(/\.pdf$/);
    const dest = join(env.dir, 'post.pdf');
    const got = await client.downloadFile(path as string, dest);
    expect(got.size).toBeGreaterThan(100);
    expect((await readFile(dest)).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
