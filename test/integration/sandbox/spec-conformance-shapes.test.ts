/**
 * Conformance of the sandbox with service-shapes.md, "Corrections after checking against the
 * published description" (issue 11): every correction, checked on the wire, in the order the note
 * lists them. Where these differ from the note's earlier sections, these win.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, locationJob, sandbox } from '../../helpers/sandbox.js';
import { encryptPdf, invoicePdf, multiClassPdf, type InvoiceOptions } from '../../helpers/pdf-fixtures.js';
import { fileNamed, makeBatch, results, startDeploymentRun, waitJob, waitRun, type Call } from './run-helpers.js';

const ALL = { include_review_results: true, include_confidence_scores: true, include_validation_results: true, include_source_info: true };
const TBD: InvoiceOptions = { invoiceNumber: 'INV-9', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: 'TBD', vendor: 'Acme', currency: 'USD' };
const GOOD: InvoiceOptions = { ...TBD, invoiceNumber: 'INV-8', total: '$10.00' };
const MDY_UTC = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})$/;

let sb: Awaited<ReturnType<typeof sandbox>>;
let admin: Call;
let batchId: number;
let run: any;
let res: any;
let reviewed: any;

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  batchId = await makeBatch(admin, { 'multi.pdf': await multiClassPdf(), 'tbd.pdf': await invoicePdf(TBD), 'good.pdf': await invoicePdf(GOOD) });
  run = await waitRun(admin, (await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batchId, settings: { runtime_config: { generate_post_process_pdf: true } } })).id);
  res = await results(admin, run.id, ALL);
  // A reviewed run: edit histories with times.
  const stopped = await startDeploymentRun(admin, 'sandbox-invoices-review', { batch_id: await makeBatch(admin, { 'tbd.pdf': await invoicePdf(TBD) }) });
  await waitRun(admin, stopped.id, ['STOPPED_AT_CHECKPOINT']);
  expect((await admin('POST', `/sandbox/runs/${stopped.id}/review`, { action: 'approve' })).status).toBe(200);
  await waitRun(admin, stopped.id);
  reviewed = await results(admin, stopped.id, ALL);
});
afterAll(() => sb.close());

const docs = (r: any): any[] => r.files.flatMap((f: any) => f.documents);
const fieldsOf = (r: any): any[] => docs(r).flatMap((d) => d.fields);

describe('service-shapes.md, "Corrections after checking against the published description"', () => {
  it('page numbering: page_numbers count from 1 ([1], [1, 2]); page_layouts and source_coordinates from 0', () => {
    const multi = fileNamed(res, 'multi.pdf').documents;
    expect(multi.map((d: any) => d.page_numbers)).toEqual([[1, 2], [3]]);
    expect(multi.map((d: any) => d.page_layouts.map((l: any) => l.page_number))).toEqual([[0, 1], [2]]);
    expect(fileNamed(res, 'good.pdf').documents[0].page_numbers).toEqual([1]);
    expect(fileNamed(res, 'good.pdf').documents[0].page_layouts[0].page_number).toBe(0);
    for (const d of docs(res)) {
      const layoutPages = d.page_layouts.map((l: any) => l.page_number);
      // page_numbers [n, ...] go with page_layouts n - 1, ...
      expect(d.page_numbers.map((n: number) => n - 1)).toEqual(layoutPages);
      for (const f of d.fields) for (const c of f.source_coordinates) expect(layoutPages).toContain(c.page_number);
    }
  });

  it('case_info.fields[].chosen_field is an object {record_index, refined_phrase_name} (or null), never a string', () => {
    const fields = res.case_info.fields;
    expect(fields.length).toBeGreaterThan(0);
    for (const c of fields) {
      expect(c).toHaveProperty('chosen_field');
      if (c.chosen_field === null) continue;
      expect(Object.keys(c.chosen_field).sort()).toEqual(['record_index', 'refined_phrase_name']);
      expect(typeof c.chosen_field.record_index).toBe('number');
      expect(typeof c.chosen_field.refined_phrase_name).toBe('string');
      expect(c.input_fields).toContainEqual(c.chosen_field);
    }
    expect(fields.filter((c: any) => c.chosen_field !== null).length).toBeGreaterThan(0);
  });

  it('validations.alerts[]: alert_level FAILURE, locations objects, blocked a boolean, msg and type strings', () => {
    const total = fileNamed(res, 'tbd.pdf').documents[0].fields.find((f: any) => f.field_name === 'total_amount');
    expect(total.validations.alerts).toEqual([{ alert_level: 'FAILURE', msg: expect.any(String), blocked: true, type: 'type', locations: [{ field_name: 'total_amount' }] }]);
    for (const f of fieldsOf(res)) {
      for (const a of f.validations.alerts) {
        expect(typeof a.alert_level).toBe('string');
        expect(typeof a.blocked).toBe('boolean');
        expect([typeof a.msg, typeof a.type]).toEqual(['string', 'string']);
        for (const l of a.locations) expect([typeof l, l !== null && !Array.isArray(l)]).toEqual(['object', true]);
      }
    }
  });

  it('edit_history[].timestamp (document, field and case levels) is `MM/DD/YYYY HH:MM:SS`, UTC', () => {
    const entries = [
      ...docs(reviewed).flatMap((d) => d.class_edit_history),
      ...fieldsOf(reviewed).flatMap((f) => f.edit_history),
      ...reviewed.case_info.fields.flatMap((c: any) => c.edit_history),
    ];
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      const m = MDY_UTC.exec(e.timestamp);
      expect(m, e.timestamp).not.toBeNull();
      const [, mo, d, y, h, mi, s] = m!.map(Number);
      expect(Math.abs(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) - Date.now())).toBeLessThan(120_000);
    }
  });

  it('batch_id is a string in the results body ("1235"), an integer in run records', async () => {
    expect(res.batch_id).toBe(String(batchId));
    expect(run.batch_id).toBe(batchId);
    expect((await admin('GET', `/v2/apps/runs/${run.id}`)).body.batch_id).toBe(batchId);
    expect((await admin('GET', '/v2/apps/runs')).body.runs.find((r: any) => r.id === run.id).batch_id).toBe(batchId);
  });

  it('optional strings are left out: error_msg on a field with no error, post_processed_pdf_path when no PDF was generated', async () => {
    for (const f of fieldsOf(res)) expect('error_msg' in f, f.field_name).toBe(f.value === 'ERROR');
    for (const c of res.case_info.fields) if ('error_msg' in c) expect(typeof c.error_msg).toBe('string');
    for (const d of docs(res)) expect(typeof d.post_processed_pdf_path).toBe('string');
    // A run without generate_post_process_pdf: no path at all.
    const plain = await waitRun(admin, (await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: await makeBatch(admin, { 'g.pdf': await invoicePdf(GOOD) }) })).id);
    for (const d of docs(await results(admin, plain.id, ALL))) expect(d).not.toHaveProperty('post_processed_pdf_path');
  });

  it('keys in a results body: a list of one object ([{custom: {...}}])', () => {
    expect(res.keys).toEqual([{ custom: { currency: 'USD', min_confidence: 0.5 } }]);
  });

  it('multipart session start: 201 with Location <base>/v2/batches/multipart-upload/sessions/<session_id>', async () => {
    const s = await admin('POST', '/v2/batches/multipart-upload', { batch_id: batchId, filename: 'big.bin', file_size: 10 });
    expect(s.status).toBe(201);
    expect(s.headers.get('location')).toBe(`${sb.url}/v2/batches/multipart-upload/sessions/${s.body.session_id}`);
    expect((await admin('POST', `/v2/batches/multipart-upload/sessions/${s.body.session_id}`, { action: 'abort' })).status).toBe(201);
  });

  it('file or folder DELETE: 202 with the job in Location, and no body', async () => {
    expect((await admin('PUT', '/v2/files/svc-drive/shapes/a.txt', 'x')).status).toBe(204);
    for (const p of ['svc-drive/shapes/a.txt', 'svc-drive/shapes', 'svc-drive/shapes/never-was']) {
      const d = await admin('DELETE', `/v2/files/${p}`);
      expect(d.status).toBe(202);
      expect(d.text).toBe('');
      expect((await waitJob(admin, locationJob(d))).state).toBe('COMPLETE');
    }
  });
});

describe('the namespace segment: one setting of a deployment, in the secrets path AND in run settings', () => {
  let acme: Awaited<ReturnType<typeof sandbox>>;
  let a: Call;
  let locked: Uint8Array;
  beforeAll(async () => {
    acme = await sandbox({ namespace: 'acme' });
    a = caller(acme.url, 'admin-token');
    locked = await encryptPdf(await invoicePdf(GOOD), 's3cret');
  });
  afterAll(() => acme.close());

  const invoiceNumberWith = async (runtime_config: unknown): Promise<{ value: string; error?: string }> => {
    const b = await makeBatch(a, { 'locked.pdf': locked });
    const r = await waitRun(a, (await startDeploymentRun(a, 'sandbox-invoices', { batch_id: b, settings: { runtime_config } })).id);
    expect(r.status).toBe('COMPLETE');
    const f = docs(await results(a, r.id))[0].fields.find((x: any) => x.field_name === 'invoice_number');
    return { value: f.value, ...(f.error_msg ? { error: f.error_msg } : {}) };
  };

  it('encrypted PDFs open with runtime_config.<segment>.pdf.passwords', async () => {
    expect(await invoiceNumberWith({ acme: { pdf: { passwords: { locked: 's3cret' } } } })).toEqual({ value: 'INV-8' });
  });

  it('passwords under `svc` (another segment) are ignored, as on a deployment configured with another segment', async () => {
    const got = await invoiceNumberWith({ svc: { pdf: { passwords: { locked: 's3cret' } } } });
    expect(got.value).toBe('ERROR');
    expect(got.error).toBe('PDF is encrypted and no matching password was given in runtime_config.acme.pdf.passwords');
  });

  it('the segment\'s block is checked; secrets live under the same segment', async () => {
    const b = await makeBatch(a, { 'x.pdf': locked });
    const bad = await a('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: b, settings: { runtime_config: { acme: { pdf: { passwords: { x: 1 } } } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/runtime_config\.acme must be/);
    expect((await a('GET', '/v2/acme/secrets')).status).toBe(200);
    expect((await a('GET', '/v2/svc/secrets')).status).toBe(404);
  });
});
