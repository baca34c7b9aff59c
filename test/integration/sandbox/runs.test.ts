import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { MULTI_CLASS, corruptPdf, encryptPdf, invoicePdf, multiClassPdf } from '../../helpers/pdf-fixtures.js';
import type { InvoiceOptions } from '../../helpers/pdf-fixtures.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { closeAndClean, expectNsNearNow, fileNamed, makeBatch, results, startDeploymentRun, values, waitRun, type Call } from './run-helpers.js';

const ACME: InvoiceOptions = {
  invoiceNumber: 'INV-3001', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$1,234.50',
  vendor: 'Acme Supplies Ltd.', currency: 'USD', lineItem: 'Widget assembly',
};
const LOCKED: InvoiceOptions = { ...ACME, invoiceNumber: 'INV-4040', vendor: 'Vault Partners', total: '$99.00', lineItem: 'Safe deposit' };
const PASSWORD = 'open-sesame';
const INVOICE_FIELDS = ['invoice_number', 'invoice_date', 'due_date', 'total_amount', 'currency', 'Vendor_Name', '_1st_Line_Item'];

/** Which blocks each include_* flag adds, per level (spec 2.8; service-shapes.md puts page_layouts and post_processed_* with source info). */
const BLOCKS = {
  include_review_results: { doc: ['review_completed', 'class_edit_history'], field: ['edit_history'], caseField: ['edit_history'] },
  include_confidence_scores: { doc: ['classification_confidence'], field: ['confidence'], caseField: [] },
  include_validation_results: { doc: ['validations'], field: ['validations'], caseField: ['validations'] },
  include_source_info: { doc: ['page_layouts', 'post_processed_paths', 'post_processed_pdf_path'], field: ['source_coordinates'], caseField: [] },
} as const;
type Flag = keyof typeof BLOCKS;
const FLAGS = Object.keys(BLOCKS) as Flag[];

let sb: RunningSandbox;
let admin: Call;
let member: Call;
let service: Call;
let batchId: number;
let started: any;
let withPw: any;
let withoutPw: any;

async function fetchBytes(path: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(sb.url + path, { headers: { Authorization: 'Bearer admin-token' } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  member = caller(sb.url, 'member-token');
  service = caller(sb.url, 'service-token');
  batchId = await makeBatch(admin, {
    'acme.pdf': await invoicePdf(ACME),
    'multi.pdf': await multiClassPdf(),
    'locked.pdf': await encryptPdf(await invoicePdf(LOCKED), PASSWORD),
    'broken.pdf': await corruptPdf(),
  });
  const before = Date.now();
  started = await startDeploymentRun(admin, 'sandbox-invoices', {
    batch_id: batchId,
    settings: { tags: ['nightly', 'q1'], runtime_config: { generate_post_process_pdf: true, svc: { pdf: { passwords: { locked: PASSWORD } } } } },
  });
  expect(started.start_timestamp / 1e6).toBeGreaterThanOrEqual(before - 5);
  const other = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batchId });
  [withPw, withoutPw] = await Promise.all([waitRun(admin, started.id), waitRun(admin, other.id)]);
});
afterAll(async () => {
  await closeAndClean(sb);
});

describe('run a deployment (spec 4.4, 2.6, 3.1)', () => {
  it('answers 202 with a RUNNING run record whose finish_timestamp is null and start_timestamp is in ns', () => {
    expect(started).toMatchObject({
      status: 'RUNNING', finish_timestamp: null, batch_id: batchId, input_dir: null,
      app_id: 'app-invoice-extractor', deployment_id: 'sandbox-invoices', tags: ['nightly', 'q1'],
    });
    expect(started.id).toMatch(/\S/);
    expectNsNearNow(started.start_timestamp);
  });

  it('reaches COMPLETE with finish_timestamp set and not before start_timestamp', () => {
    for (const run of [withPw, withoutPw]) {
      expect(run.status).toBe('COMPLETE');
      expectNsNearNow(run.finish_timestamp);
      expect(run.finish_timestamp).toBeGreaterThanOrEqual(run.start_timestamp);
    }
    expect(withPw.start_timestamp).toBe(started.start_timestamp);
  });
});

describe('run results (spec 2.8, 4.6)', () => {
  const check = (res: any, on: Set<Flag>): void => {
    expect(res.files).toHaveLength(4);
    for (const flag of FLAGS) {
      const b = BLOCKS[flag];
      for (const file of res.files) {
        for (const doc of file.documents) {
          expect(Object.keys(doc)).toEqual(expect.arrayContaining(['class_name', 'page_numbers', 'fields']));
          for (const k of b.doc) {
            // post_processed_pdf_path is left out where no PDF was generated (this run generates one for every document with pages).
            const made = k !== 'post_processed_pdf_path' || doc.page_numbers.length > 0;
            expect(k in doc, `document.${k} with ${[...on].join(',') || 'no flags'}`).toBe(on.has(flag) && made);
          }
          for (const f of doc.fields) {
            expect(Object.keys(f)).toEqual(expect.arrayContaining(['field_name', 'value', 'type']));
            // error_msg is there exactly when the field failed (absent, not null, otherwise).
            expect('error_msg' in f, `${f.field_name}: ${f.value}`).toBe(f.value === 'ERROR');
            for (const k of b.field) expect(k in f, `field.${k} with ${[...on].join(',') || 'no flags'}`).toBe(on.has(flag));
          }
        }
      }
      expect(res.case_info.fields.length).toBeGreaterThan(0);
      for (const cf of res.case_info.fields) for (const k of b.caseField) expect(k in cf, `case field ${k}`).toBe(on.has(flag));
    }
  };

  it('each include_* flag adds exactly its blocks, and they are absent by default (rule 3)', async () => {
    check(await results(admin, withPw.id), new Set());
    for (const flag of FLAGS) {
      check(await results(admin, withPw.id, { [flag]: true }), new Set([flag]));
      check(await results(admin, withPw.id, { [flag]: false }), new Set());
    }
    check(await results(admin, withPw.id, Object.fromEntries(FLAGS.map((f) => [f, true]))), new Set(FLAGS));
  });

  it('carries the run-level fields, the custom keys and has_more false on the only page', async () => {
    const res = await results(admin, withPw.id);
    // batch_id is a string in the results body (an integer in the run record); keys a list of one object.
    expect(res).toMatchObject({ id: withPw.id, status: 'COMPLETE', batch_id: String(batchId), start_timestamp: withPw.start_timestamp, finish_timestamp: withPw.finish_timestamp, has_more: false });
    expect(withPw.batch_id).toBe(batchId);
    expect(res.keys).toEqual([{ custom: expect.objectContaining({ currency: 'USD' }) }]);
    expect(res.files.map((f: any) => f.original_file_name).sort()).toEqual(['acme.pdf', 'broken.pdf', 'locked.pdf', 'multi.pdf']);
  });

  it('extracts the invoice\'s known values under normalised names Vendor_Name and _1st_Line_Item (2.8)', async () => {
    const res = await results(admin, withPw.id, { include_source_info: true, include_confidence_scores: true });
    const acme = fileNamed(res, 'acme.pdf');
    expect(acme.documents).toHaveLength(1);
    const doc = acme.documents[0];
    expect(doc.class_name).toBe('Invoice');
    expect(doc.fields.map((f: any) => f.field_name)).toEqual(INVOICE_FIELDS);
    expect(values(doc)).toEqual({
      invoice_number: 'INV-3001', invoice_date: '2026-03-01', due_date: '2026-03-31', total_amount: '1234.50',
      currency: 'USD', Vendor_Name: 'Acme Supplies Ltd.', _1st_Line_Item: 'Widget assembly',
    });
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: 612, height: 792 }]);
    for (const f of doc.fields) {
      expect(f).not.toHaveProperty('error_msg');
      expect(f.confidence.model).toBeGreaterThan(0);
      expect(f.confidence.model).toBeLessThanOrEqual(1);
      expect(f.source_coordinates[0].page_number).toBe(0);
    }
  });

  it('splits the two-class PDF into an Invoice of pages 1-2 and a Receipt of page 3 (page_numbers from 1; layouts and boxes from 0)', async () => {
    const multi = fileNamed(await results(admin, withPw.id, { include_source_info: true }), 'multi.pdf');
    expect(multi.documents.map((d: any) => [d.class_name, d.page_numbers])).toEqual([['Invoice', [1, 2]], ['Receipt', [3]]]);
    expect(multi.documents.map((d: any) => d.page_layouts.map((l: any) => l.page_number))).toEqual([[0, 1], [2]]);
    expect(multi.documents[1].fields.find((f: any) => f.field_name === 'merchant').source_coordinates[0].page_number).toBe(2);
    expect(values(multi.documents[0])).toMatchObject({ invoice_number: MULTI_CLASS.invoice.invoiceNumber, Vendor_Name: MULTI_CLASS.invoice.vendor });
    expect(values(multi.documents[1])).toMatchObject({ merchant: MULTI_CLASS.receipt.merchant, total_amount: '12.75' });
  });

  it('doubles the underscore of the project name payment_method in results (payment__method, as secret_id -> secret__id in 2.8)', async () => {
    const receipt = fileNamed(await results(admin, withPw.id, { include_validation_results: true }), 'multi.pdf').documents[1];
    expect(receipt.fields.map((f: any) => f.field_name)).toEqual(['merchant', 'receipt_date', 'total_amount', 'payment__method']);
    expect(receipt.fields.find((f: any) => f.field_name === 'payment__method').validations).toEqual({ valid: true, alerts: [] });
  });

  it('a corrupt PDF gives ERROR fields with error_msg while the run COMPLETEs (7 rule 3)', async () => {
    for (const run of [withPw, withoutPw]) {
      const broken = fileNamed(await results(admin, run.id, { include_validation_results: true }), 'broken.pdf');
      expect(broken.documents).toHaveLength(1);
      expect(broken.documents[0].validations.final_result_pass).toBe(false);
      for (const f of broken.documents[0].fields) {
        expect(f.value).toBe('ERROR');
        expect(f.error_msg).toMatch(/\S/);
      }
    }
  });

  it('an encrypted PDF opens with its password in runtime_config.svc.pdf.passwords, and is ERROR without it', async () => {
    const opened = fileNamed(await results(admin, withPw.id), 'locked.pdf').documents[0];
    expect(values(opened)).toMatchObject({ invoice_number: 'INV-4040', Vendor_Name: 'Vault Partners', total_amount: '99.00' });
    const closed = fileNamed(await results(admin, withoutPw.id), 'locked.pdf').documents[0];
    for (const f of closed.fields) {
      expect(f.value).toBe('ERROR');
      expect(f.error_msg).toMatch(/password|encrypt/i);
    }
  });

  it('generate_post_process_pdf gives one PDF per document readable through /v2/files; without it the path is absent (rule 4)', async () => {
    const res = await results(admin, withPw.id, { include_source_info: true });
    const docs = ['acme.pdf', 'multi.pdf', 'locked.pdf'].flatMap((n) => fileNamed(res, n).documents);
    expect(docs).toHaveLength(4);
    for (const doc of docs) {
      expect(doc.post_processed_pdf_path).toEqual(expect.any(String));
      expect(doc.post_processed_paths).toContain(doc.post_processed_pdf_path);
      const got = await fetchBytes(`/v2/files/${doc.post_processed_pdf_path}?expect-node-type=file`);
      expect(got.status).toBe(200);
      expect(got.bytes.subarray(0, 4).toString('latin1')).toBe('%PDF');
      const pdf = await PDFDocument.load(got.bytes);
      expect(pdf.getPageCount()).toBe(doc.page_numbers.length);
    }
    const plain = await results(admin, withoutPw.id, { include_source_info: true });
    for (const doc of plain.files.flatMap((f: any) => f.documents)) expect(doc).not.toHaveProperty('post_processed_pdf_path');
  });

  it('pages files by file_offset with has_more (rule 5): page size 2 and 5 files give 2, 2, 1', async () => {
    const small = await sandbox({ resultsPageSize: 2 });
    try {
      const call = caller(small.url);
      const names = ['p1.pdf', 'p2.pdf', 'p3.pdf', 'p4.pdf', 'p5.pdf'];
      const files = Object.fromEntries(await Promise.all(names.map(async (n, i) => [n, await invoicePdf({ ...ACME, invoiceNumber: `PG-${i + 1}` })] as const)));
      const run = await startDeploymentRun(call, 'sandbox-invoices', { batch_id: await makeBatch(call, files) });
      await waitRun(call, run.id, ['COMPLETE']);
      const pages: any[] = [];
      for (let offset = 0, more = true; more; ) {
        const page = await results(call, run.id, { file_offset: offset });
        pages.push(page);
        offset += page.files.length;
        more = page.has_more;
        expect(pages.length).toBeLessThan(5);
      }
      expect(pages.map((p) => p.files.length)).toEqual([2, 2, 1]);
      expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
      const got = pages.flatMap((p) => p.files);
      expect(got.map((f: any) => f.original_file_name)).toEqual(names);
      expect(got.map((f: any) => values(f.documents[0]).invoice_number)).toEqual(['PG-1', 'PG-2', 'PG-3', 'PG-4', 'PG-5']);
    } finally {
      await closeAndClean(small);
    }
  });
});

describe('run request validation (spec 4.4, 2.7)', () => {
  const post = (body: unknown, dep = 'sandbox-invoices') => admin('POST', `/v2/apps/deployments/${dep}/runs`, body);

  it('400 when neither batch_id nor input_dir is given, and when both are', async () => {
    expect((await post({})).status).toBe(400);
    expect((await post({ settings: {} })).status).toBe(400);
    const both = await post({ batch_id: batchId, input_dir: 'svc-drive/workspaces/team' });
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/\S/);
  });

  it('400 for a custom key the deployment does not define; a defined one overrides its value', async () => {
    expect((await post({ batch_id: batchId, settings: { keys: { custom: { no_such_key: 1 } } } })).status).toBe(400);
    const ok = await post({ batch_id: batchId, settings: { keys: { custom: { currency: 'EUR' } } } });
    expect(ok.status).toBe(202);
    await waitRun(admin, ok.body.id);
    expect((await results(admin, ok.body.id)).keys[0].custom).toMatchObject({ currency: 'EUR', min_confidence: 0.5 });
  });

  it('400 for a secret key the deployment does not define or a secret missing from the vault', async () => {
    const secret = await admin('POST', '/v2/svc/secrets', { alias: 'erp-prod', value: 's3cr3t', allowed_workspaces_type: 'ALL' });
    expect(secret.status).toBe(200);
    expect((await post({ batch_id: batchId, settings: { keys: { secret: { unknown_secret_key: 'erp-prod' } } } })).status).toBe(400);
    expect((await post({ batch_id: batchId, settings: { keys: { secret: { erp_api_key: 'not-in-vault' } } } })).status).toBe(400);
    expect((await post({ batch_id: batchId, settings: { keys: { secret: { erp_api_key: 'erp-prod' } } } })).status).toBe(202);
  });

  it('400 when tags are not strings', async () => {
    expect((await post({ batch_id: batchId, settings: { tags: [1, 2] } })).status).toBe(400);
    expect((await post({ batch_id: batchId, settings: { tags: 'one' } })).status).toBe(400);
  });

  it('404 for an unknown deployment and an unknown version; a listed version runs', async () => {
    expect((await post({ batch_id: batchId }, 'no-such-deployment')).status).toBe(404);
    expect((await post({ batch_id: batchId, version: '9.9.9' })).status).toBe(404);
    expect((await post({ batch_id: batchId, version: '1.0.0' })).status).toBe(202);
  });

  it('runs on an input_dir written through PUT /v2/files', async () => {
    const dir = 'svc-drive/workspaces/team/inbox-runs';
    for (const [name, bytes] of [['a.pdf', await invoicePdf(ACME)], ['b.pdf', await invoicePdf(LOCKED)]] as const) {
      expect((await admin('PUT', `/v2/files/${dir}/${name}`, bytes)).status).toBe(204);
    }
    const run = await startDeploymentRun(admin, 'sandbox-invoices', { input_dir: dir });
    expect(run).toMatchObject({ input_dir: dir, batch_id: null });
    expect((await waitRun(admin, run.id)).status).toBe('COMPLETE');
    const res = await results(admin, run.id);
    expect(res.files.map((f: any) => [f.original_file_name, f.input_file_path])).toEqual([['a.pdf', `${dir}/a.pdf`], ['b.pdf', `${dir}/b.pdf`]]);
    expect(values(res.files[1].documents[0]).invoice_number).toBe('INV-4040');
  });

  it('manual_upstream_integration: 400 without an upstream or without timestamps; with them it processes the mailbox', async () => {
    expect((await post({ manual_upstream_integration: true, from_timestamp: 0, to_timestamp: Date.now() })).status).toBe(400);
    expect((await post({ manual_upstream_integration: true }, 'sandbox-mailbox')).status).toBe(400);
    expect((await post({ manual_upstream_integration: true, from_timestamp: 0 }, 'sandbox-mailbox')).status).toBe(400);
    const from = Date.now() - 60_000;
    expect((await admin('PUT', '/v2/files/svc-drive/workspaces/team/mailbox/mail-1.pdf', await invoicePdf(ACME))).status).toBe(204);
    expect((await admin('PUT', '/v2/files/svc-drive/workspaces/team/mailbox/mail-2.pdf', await invoicePdf(LOCKED))).status).toBe(204);
    const run = await startDeploymentRun(admin, 'sandbox-mailbox', { manual_upstream_integration: true, from_timestamp: from, to_timestamp: Date.now() + 60_000 });
    expect(run.deployment_id).toBe('sandbox-mailbox');
    expect((await waitRun(admin, run.id)).status).toBe('COMPLETE');
    const res = await results(admin, run.id);
    expect(res.files.map((f: any) => f.original_file_name)).toEqual(['mail-1.pdf', 'mail-2.pdf']);
    expect(values(res.files[0].documents[0]).invoice_number).toBe('INV-3001');
    // A window that ends before the files arrived pulls none of them.
    const early = await startDeploymentRun(admin, 'sandbox-mailbox', { manual_upstream_integration: true, from_timestamp: 0, to_timestamp: from - 60_000 });
    await waitRun(admin, early.id);
    expect((await results(admin, early.id)).files).toEqual([]);
  });
});

describe('run an app (spec 4.3b)', () => {
  const app = { owner: 'sandbox-marketplace' };

  it('runs by app_name and by app_id with 200 and a run record', async () => {
    for (const by of [{ app_name: 'invoice-extractor' }, { app_id: 'app-invoice-extractor' }]) {
      const res = await admin('POST', '/v2/apps/runs', { ...app, ...by, batch_id: batchId });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ status: 'RUNNING', app_id: 'app-invoice-extractor', deployment_id: null, batch_id: batchId, finish_timestamp: null });
      expect((await waitRun(admin, res.body.id)).status).toBe('COMPLETE');
    }
  });

  it('400 without app_name and app_id; 404 for an owner that has no such app, the default owner being the caller', async () => {
    expect((await admin('POST', '/v2/apps/runs', { ...app, batch_id: batchId })).status).toBe(400);
    expect((await admin('POST', '/v2/apps/runs', { app_name: 'invoice-extractor', owner: 'someone-else', batch_id: batchId })).status).toBe(404);
    expect((await admin('POST', '/v2/apps/runs', { ...app, app_name: 'no-such-app', batch_id: batchId })).status).toBe(404);
    // A marketplace app is found by name under its publisher's account; without owner the caller's own apps are searched.
    const noOwner = await admin('POST', '/v2/apps/runs', { app_name: 'invoice-extractor', batch_id: batchId });
    expect(noOwner.status).toBe(404);
    expect(noOwner.body.message).toMatch(/sandbox-marketplace/);
    const byId = await admin('POST', '/v2/apps/runs', { app_id: 'app-invoice-extractor', batch_id: batchId });
    expect(byId.status, byId.text).toBe(200);
    await waitRun(admin, byId.body.id);
  });

  it('a service account must give output_workspace or output_dir (5.3): 400 without, 200 with either', async () => {
    const body = { ...app, app_name: 'invoice-extractor', batch_id: batchId };
    expect((await service('POST', '/v2/apps/runs', body)).status).toBe(400);
    const ok = await service('POST', '/v2/apps/runs', { ...body, output_workspace: 'team' });
    expect(ok.status, ok.text).toBe(200);
    expect((await waitRun(service, ok.body.id)).status).toBe('COMPLETE');
    for (const dir of ['svc-drive/service-out/r1', 'svc-drive/workspaces/team/service-out']) {
      const res = await service('POST', '/v2/apps/runs', { ...body, output_dir: dir });
      expect(res.status, `${dir}: ${res.text}`).toBe(200);
      expect((await waitRun(service, res.body.id)).status).toBe('COMPLETE');
      expect((await service('HEAD', `/v2/files/${dir}`)).status).toBe(200);
    }
  });
});

describe('run statuses and visibility', () => {
  it('a run on an empty batch ends FAILED with a finish_timestamp', async () => {
    const run = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: await makeBatch(admin, {}) });
    const done = await waitRun(admin, run.id);
    expect(done.status).toBe('FAILED');
    expect(done.finish_timestamp).toBeGreaterThanOrEqual(done.start_timestamp);
  });

  it('GET of an unknown run is 404', async () => {
    expect((await admin('GET', '/v2/apps/runs/run_does_not_exist')).status).toBe(404);
    expect((await admin('GET', '/v2/apps/runs/run_does_not_exist/results')).status).toBe(404);
  });

  it('a member cannot see a run whose output workspace is another user\'s personal workspace (404), but sees team runs', async () => {
    const res = await admin('POST', '/v2/apps/runs', { app_name: 'invoice-extractor', owner: 'sandbox-marketplace', batch_id: batchId });
    expect(res.status).toBe(200);
    expect((await member('GET', `/v2/apps/runs/${res.body.id}`)).status).toBe(404);
    expect((await member('GET', `/v2/apps/runs/${res.body.id}/results`)).status).toBe(404);
    expect((await admin('GET', `/v2/apps/runs/${res.body.id}`)).status).toBe(200);
    expect((await member('GET', `/v2/apps/runs/${withPw.id}`)).status).toBe(200);
    await waitRun(admin, res.body.id);
    // Nor can a member run on a batch in another user's personal workspace: it is not found (5.5).
    const personal = await makeBatch(admin, { 'mine.pdf': await invoicePdf(ACME) }, 'personal-admin');
    expect((await member('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: personal })).status).toBe(404);
    expect((await admin('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: personal })).status).toBe(202);
  });
});
