/**
 * Independent conformance check of the sandbox, written from the service API spec alone (part 2:
 * runs, run settings, results, run statuses, list/delete runs, secrets, run limits, versions).
 * Shapes the spec leaves open come from shared/notes/service-shapes.md, statuses it leaves open from
 * issue 2; the deployments, the app and the sandbox-only review/cancel calls from the README.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, sandbox, waitFor } from '../../helpers/sandbox.js';
import { corruptPdf, encryptPdf, invoicePdf, invoiceText, multiClassPdf } from '../../helpers/pdf-fixtures.js';

type Call = ReturnType<typeof caller>;
let sb: Awaited<ReturnType<typeof sandbox>>;
let admin: Call, member: Call, service: Call;
const RUN_STATUSES = ['CANCELLED', 'COMPLETE', 'FAILED', 'PAUSED', 'RUNNING', 'STOPPED_AT_CHECKPOINT'];
const ALL_FLAGS = 'include_review_results=true&include_confidence_scores=true&include_validation_results=true&include_source_info=true';
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');
const inv = (n: string, total = '$1,234.50', extraPages = 0) => ({ invoiceNumber: n, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total, vendor: 'Acme Corp', currency: 'USD', extraPages });
let seq = 0;

async function batchWith(files: [string, Uint8Array | string][], c: Call = admin, workspace = 'team'): Promise<number> {
  const r = await c('POST', '/v2/batches', { name: `rb-${++seq}`, workspace });
  expect(r.status).toBe(200);
  for (const [name, data] of files) expect((await c('PUT', `/v2/batches/${r.body.id}/files/${encodeURIComponent(name)}`, data)).status).toBe(204);
  return r.body.id;
}
const deploy = (dep: string, body: unknown, c: Call = admin) => c('POST', `/v2/apps/deployments/${dep}/runs`, body);
async function startOk(dep: string, body: unknown, c: Call = admin): Promise<any> {
  const r = await deploy(dep, body, c);
  expect(r.status).toBe(202);
  return r.body;
}
async function waitRun(id: string, done = (s: string) => s !== 'RUNNING', c: Call = admin, seen: any[] = []): Promise<any> {
  return waitFor(async () => {
    const r = await c('GET', `/v2/apps/runs/${id}`);
    expect(r.status).toBe(200);
    seen.push(r.body);
    return done(r.body.status) && r.body;
  }, `run ${id}`);
}
async function results(id: string, q = '', c: Call = admin): Promise<any> {
  const r = await c('GET', `/v2/apps/runs/${id}/results${q ? `?${q}` : ''}`);
  expect(r.status).toBe(200);
  return r.body;
}
const docs = (res: any): any[] => res.files.flatMap((f: any) => f.documents.map((d: any) => ({ ...d, _file: f.original_file_name })));
const fields = (res: any): any[] => docs(res).flatMap((d) => d.fields);
const caseFields = (res: any): any[] => res.case_info?.fields ?? [];
const runList = async (q: string, c: Call = admin) => {
  const r = await c('GET', `/v2/apps/runs?${q}`);
  expect(r.status).toBe(200);
  return r.body.runs as any[];
};
async function pollJob(id: string) {
  return waitFor(async () => {
    const r = await admin('GET', `/v2/jobs/${encodeURIComponent(id)}`);
    expect(r.status).toBe(200);
    return ['COMPLETE', 'FAILED', 'CANCELLED'].includes(r.body.state) && r.body;
  }, `job ${id}`);
}

// Shared runs: A (3 files, post-process PDFs, tags), R (review: stopped, then approved)
let runA: any, resA: any, batchA: number;
let stoppedRecord: any, stoppedRes: any, runR: any;
beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  member = caller(sb.url, 'member-token');
  service = caller(sb.url, 'service-token');
  batchA = await batchWith([['good.pdf', await invoicePdf(inv('INV-100'))], ['multi.pdf', await multiClassPdf()], ['bad.pdf', await corruptPdf()]]);
  const a = await startOk('sandbox-invoices', { batch_id: batchA, settings: { runtime_config: { generate_post_process_pdf: true }, tags: ['conf', 'a'] } });
  const r = await startOk('sandbox-invoices-review', { batch_id: await batchWith([['tbd.pdf', await invoicePdf(inv('INV-TBD', 'TBD'))]]) });
  runA = await waitRun(a.id);
  resA = await results(a.id, ALL_FLAGS);
  stoppedRecord = await waitRun(r.id);
  stoppedRes = await results(r.id, ALL_FLAGS);
  expect((await admin('POST', `/sandbox/runs/${r.id}/review`, { action: 'approve' })).status).toBeLessThan(300);
  runR = await waitRun(r.id, (s) => s === 'COMPLETE' || s === 'FAILED');
});
afterAll(async () => sb?.close());

describe('2.6 Run', () => {
  it('run record "id string; status enum; start_timestamp long Unix nanoseconds; finish_timestamp, msg, batch_id, input_dir, app_id, deployment_id, tags nullable"', async () => {
    const seen: any[] = [];
    const start = await startOk('sandbox-invoices', { batch_id: await batchWith([['long.pdf', await invoicePdf(inv('L-1', '$5.00', 9))]]) });
    seen.push(start);
    await waitRun(start.id, undefined, admin, seen);
    for (const r of seen) {
      expect(Object.keys(r)).toEqual(expect.arrayContaining(['id', 'status', 'start_timestamp', 'finish_timestamp', 'msg', 'batch_id', 'input_dir', 'app_id', 'deployment_id', 'tags']));
      expect(typeof r.id).toBe('string');
      expect(RUN_STATUSES).toContain(r.status);
      expect(Math.abs(r.start_timestamp / 1e6 - Date.now())).toBeLessThan(120_000);
      if (r.finish_timestamp !== null) expect(r.finish_timestamp).toBeGreaterThanOrEqual(r.start_timestamp);
      for (const k of ['msg', 'input_dir', 'app_id', 'deployment_id']) expect(r[k] === null || typeof r[k] === 'string').toBe(true);
      expect(r.batch_id === null || Number.isInteger(r.batch_id)).toBe(true);
      expect(r.tags === null || (Array.isArray(r.tags) && r.tags.every((t: unknown) => typeof t === 'string'))).toBe(true);
    }
  });

  it('status "COMPLETE | The run completed ... Results are retrievable, but some fields may have failed and carry the value `ERROR`"', () => {
    expect(runA.status).toBe('COMPLETE');
    expect(typeof runA.finish_timestamp).toBe('number');
    expect(fields(resA).some((f) => f.value === 'ERROR')).toBe(true);
    expect(fields(resA).some((f) => f.field_name === 'invoice_number' && f.value === 'INV-100')).toBe(true);
  });

  it('status "FAILED | The run failed to complete" (review rejected; a run with no input files)', async () => {
    const r = await startOk('sandbox-invoices-review', { batch_id: await batchWith([['tbd.pdf', await invoicePdf(inv('F-1', 'TBD'))]]) });
    await waitRun(r.id);
    await admin('POST', `/sandbox/runs/${r.id}/review`, { action: 'reject', reason: 'no' });
    const failed = await waitRun(r.id, (s) => s !== 'STOPPED_AT_CHECKPOINT');
    expect(failed.status).toBe('FAILED');
    expect(typeof failed.finish_timestamp).toBe('number');
    const empty = await startOk('sandbox-invoices', { batch_id: await batchWith([]) });
    expect((await waitRun(empty.id)).status).toBe('FAILED');
  });

  it('status "CANCELLED | A user cancelled the run"', async () => {
    const r = await startOk('sandbox-invoices', { batch_id: await batchWith([['long.pdf', await invoicePdf(inv('C-1', '$1.00', 30))]]) });
    expect((await admin('POST', `/sandbox/runs/${r.id}/cancel`)).status).toBeLessThan(300);
    expect((await waitRun(r.id)).status).toBe('CANCELLED');
  });

  it('status "STOPPED_AT_CHECKPOINT | A validation error has paused the run for human review"', () => {
    expect(stoppedRecord.status).toBe('STOPPED_AT_CHECKPOINT');
    expect(docs(stoppedRes).some((d) => d.validations?.final_result_pass === false) || fields(stoppedRes).some((f) => f.validations?.valid === false)).toBe(true);
    expect(runR.status).toBe('COMPLETE');
  });
});

describe('2.7 Run settings', () => {
  it('"keys.custom: Each key must name an existing key in the deployment\'s runtime configuration"; "Values passed in `keys` override key values defined in the deployment configuration"', async () => {
    const b = await batchWith([['i.pdf', await invoicePdf(inv('K-1'))]]);
    expect((await deploy('sandbox-invoices', { batch_id: b, settings: { keys: { custom: { no_such_key: 1 } } } })).status).toBe(400);
    const r = await startOk('sandbox-invoices', { batch_id: b, settings: { keys: { custom: { currency: 'EUR' } } } });
    await waitRun(r.id);
    // keys: a list of one object, as the published examples have it (service-shapes.md, "Corrections").
    expect((await results(r.id)).keys[0].custom.currency).toBe('EUR');
  });

  it('"keys.secret: Each key must name an existing secret key of the deployment; each value names a secret in the organization\'s secret vault"', async () => {
    const b = await batchWith([['i.pdf', await invoicePdf(inv('S-1'))]]);
    expect((await admin('POST', '/v2/svc/secrets', { alias: 'erp-key', value: 's3cret', allowed_workspaces_type: 'ALL' })).status).toBe(200);
    expect((await deploy('sandbox-invoices', { batch_id: b, settings: { keys: { secret: { no_such_secret_key: 'erp-key' } } } })).status).toBe(400);
    expect((await deploy('sandbox-invoices', { batch_id: b, settings: { keys: { secret: { erp_api_key: 'not-in-vault' } } } })).status).toBe(400);
    expect((await deploy('sandbox-invoices', { batch_id: b, settings: { keys: { secret: { erp_api_key: 'erp-key' } } } })).status).toBe(202);
  });

  it('"runtime_config.generate_post_process_pdf: When true, a retrievable PDF is generated per processed document (separate PDFs for documents split in classification)"', async () => {
    const multi = docs(resA).filter((d) => d._file === 'multi.pdf');
    expect(multi.length).toBe(2);
    const paths = multi.map((d) => d.post_processed_pdf_path);
    expect(new Set(paths).size).toBe(2);
    for (const p of [...paths, docs(resA).find((d) => d._file === 'good.pdf').post_processed_pdf_path]) {
      expect(typeof p).toBe('string');
      const r = await admin('GET', `/v2/files/${enc(p)}?expect-node-type=file`);
      expect(r.status).toBe(200);
      expect(r.text.startsWith('%PDF')).toBe(true);
    }
  });

  it('"runtime_config.svc.pdf.passwords: Map from titles of encrypted PDF documents to their passwords"', async () => {
    const b = await batchWith([['locked.pdf', await encryptPdf(await invoicePdf(inv('ENC-1')), 'pw')]]);
    const r = await startOk('sandbox-invoices', { batch_id: b, settings: { runtime_config: { svc: { pdf: { passwords: { 'locked.pdf': 'pw' } } } } } });
    await waitRun(r.id);
    expect(fields(await results(r.id)).find((f) => f.field_name === 'invoice_number')?.value).toBe('ENC-1');
  });

  it('"tags: Tags to attach to the run" are on the run record', async () => {
    const r = await startOk('sandbox-invoices', { batch_id: await batchWith([['t.txt', invoiceText(inv('T-1'))]]), settings: { tags: ['alpha', 'beta'] } });
    expect(r.tags).toEqual(['alpha', 'beta']);
    expect((await admin('GET', `/v2/apps/runs/${r.id}`)).body.tags).toEqual(['alpha', 'beta']);
  });

  it('4.1 rule 4 "A password-protected PDF is uploaded as is; its password is supplied in the run settings": without it the document is unreadable (fields ERROR)', async () => {
    const locked = await encryptPdf(await invoicePdf(inv('ENC-2')), 'pw');
    const b = await batchWith([['locked.pdf', locked]]);
    const node = (await admin('GET', `/v2/batches/${b}/files`)).body.nodes[0];
    if (node.metadata?.size !== undefined) expect(node.metadata.size).toBe(locked.length);
    const r = await startOk('sandbox-invoices', { batch_id: b });
    expect((await waitRun(r.id)).status).toBe('COMPLETE');
    expect(fields(await results(r.id)).every((f) => f.value === 'ERROR')).toBe(true);
  });
});

// 2.8 table, by flag (4.6 rule 3). Document-level post_processed_paths, post_processed_pdf_path and page_layouts
// belong to "the source fields" only by elimination, so per-flag checks leave them out; the all-on/all-off tests cover them.
const BLOCKS = {
  include_review_results: { doc: ['review_completed', 'class_edit_history'], field: ['edit_history'], kase: ['edit_history'] },
  include_confidence_scores: { doc: ['classification_confidence'], field: ['confidence'], kase: [] },
  include_validation_results: { doc: ['validations'], field: ['validations'], kase: ['validations'] },
  include_source_info: { doc: [], field: ['source_coordinates'], kase: [] },
} as const;
const SOURCE_DOC = ['post_processed_paths', 'post_processed_pdf_path', 'page_layouts'];
function checkShapes(res: any) {
  for (const d of docs(res)) {
    if ('review_completed' in d) expect(typeof d.review_completed).toBe('boolean');
    if ('class_edit_history' in d) expect(Array.isArray(d.class_edit_history)).toBe(true);
    if ('classification_confidence' in d) expect(d.classification_confidence).not.toBeNull();
    if ('validations' in d) expect(typeof d.validations.final_result_pass).toBe('boolean');
    if ('post_processed_paths' in d) expect(Array.isArray(d.post_processed_paths)).toBe(true);
    if ('page_layouts' in d) expect(Array.isArray(d.page_layouts)).toBe(true);
  }
  for (const f of fields(res)) {
    if ('edit_history' in f) expect(Array.isArray(f.edit_history)).toBe(true);
    if ('confidence' in f) for (const k of ['model', 'ocr']) expect(f.confidence[k]).toBeTypeOf('number');
    if ('validations' in f) expect([typeof f.validations.valid, Array.isArray(f.validations.alerts)]).toEqual(['boolean', true]);
    for (const c of f.source_coordinates ?? []) for (const k of ['top_x', 'top_y', 'bottom_x', 'bottom_y', 'page_number']) expect(c[k]).toBeTypeOf('number');
  }
  for (const c of caseFields(res)) if ('validations' in c) expect([typeof c.validations.valid, Array.isArray(c.validations.failures)]).toEqual(['boolean', true]);
}

describe('2.8 Run results', () => {
  it('"Paginated. It carries a `has_more` boolean. Pages are requested with the `file_offset` query parameter"', async () => {
    const r = await results(runA.id, 'file_offset=0');
    expect(r.has_more).toBe(false);
    expect(r.files.map((f: any) => f.original_file_name).sort()).toEqual(['bad.pdf', 'good.pdf', 'multi.pdf']);
  });

  it.each(Object.keys(BLOCKS))('2.8 table / 4.6 rule 3: "%s" adds its fields at the document, field and packet (case) levels, and only those', async (flag) => {
    const res = await results(runA.id, `${flag}=true`);
    checkShapes(res);
    for (const [other, lv] of Object.entries(BLOCKS)) {
      const want = other === flag;
      for (const d of docs(res)) for (const k of lv.doc) expect(`${k} in document: ${k in d}`).toBe(`${k} in document: ${want}`);
      for (const f of fields(res)) for (const k of lv.field) expect(`${k} in field: ${k in f}`).toBe(`${k} in field: ${want}`);
      for (const c of caseFields(res)) for (const k of lv.kase) expect(`${k} in case field: ${k in c}`).toBe(`${k} in case field: ${want}`);
    }
    expect(caseFields(res).length).toBeGreaterThan(0);
  });

  it('2.8 table: with every flag on all listed blocks are present; with none, none is (flags "default false each")', async () => {
    checkShapes(resA);
    // post_processed_pdf_path is absent where no PDF was generated (service-shapes.md, "Corrections"): bad.pdf has no pages.
    for (const d of docs(resA)) for (const k of [...Object.values(BLOCKS).flatMap((b) => b.doc), ...SOURCE_DOC]) if (!(k === 'post_processed_pdf_path' && d._file === 'bad.pdf')) expect(d).toHaveProperty(k);
    for (const d of docs(resA).filter((x) => x._file === 'bad.pdf')) expect(d).not.toHaveProperty('post_processed_pdf_path');
    for (const f of fields(resA)) for (const k of Object.values(BLOCKS).flatMap((b) => b.field)) expect(f).toHaveProperty(k);
    for (const c of caseFields(resA)) for (const k of ['edit_history', 'validations']) expect(c).toHaveProperty(k);
    const none = await results(runA.id);
    for (const d of docs(none)) for (const k of [...Object.values(BLOCKS).flatMap((b) => b.doc), ...SOURCE_DOC]) expect(d).not.toHaveProperty(k);
    for (const f of fields(none)) for (const k of Object.values(BLOCKS).flatMap((b) => b.field)) expect(f).not.toHaveProperty(k);
    for (const c of caseFields(none)) for (const k of ['edit_history', 'validations']) expect(c).not.toHaveProperty(k);
  });

  it('2.8 "edit_history (timestamp, user_id, modifications, modifications/message)" and "class_edit_history (with timestamp, user_id, modifications, modifications/message)" on a reviewed run', async () => {
    const res = await results(runR.id, 'include_review_results=true');
    const entries = [...docs(res).flatMap((d) => d.class_edit_history), ...fields(res).flatMap((f) => f.edit_history), ...caseFields(res).flatMap((c) => c.edit_history)];
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      expect(e).toHaveProperty('timestamp');
      expect(e).toHaveProperty('user_id');
      expect(Array.isArray(e.modifications)).toBe(true);
      for (const m of e.modifications) expect(m).toHaveProperty('message');
    }
    for (const d of docs(res)) expect(d.review_completed).toBe(true);
  });

  it('2.8 "field names ... converted to valid Python variable names: only letters, digits and underscores; a leading digit gets a preceding underscore; invalid characters become underscores"', () => {
    const names = [...fields(resA).map((f) => f.field_name), ...caseFields(resA).map((c) => c.name)];
    for (const n of names) expect(n).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    expect(names).toContain('Vendor_Name');
    expect(names).toContain('_1st_Line_Item');
  });

  it('2.8 "When errors occur at class, field or document level, the status is still 200 and the body contains the error details"', async () => {
    const bad = docs(await results(runA.id)).filter((d) => d._file === 'bad.pdf');
    expect(bad.length).toBeGreaterThan(0);
    for (const f of bad.flatMap((d) => d.fields)) {
      expect(f.value).toBe('ERROR');
      expect(typeof f.error_msg === 'string' && f.error_msg.length > 0).toBe(true);
    }
  });
});

describe('3. Run statuses and deletion', () => {
  it('3.1 "`finish_timestamp` is `null` while the run is in progress"', async () => {
    const seen: any[] = [];
    const r = await startOk('sandbox-invoices', { batch_id: await batchWith([['long.pdf', await invoicePdf(inv('N-1', '$2.00', 9))]]) });
    seen.push(r);
    const done = await waitRun(r.id, undefined, admin, seen);
    const running = seen.filter((x) => x.status === 'RUNNING');
    expect(running.length).toBeGreaterThan(0);
    for (const x of running) expect(x.finish_timestamp).toBeNull();
    expect(done.status).toBe('COMPLETE');
    expect(done.finish_timestamp).toBeGreaterThanOrEqual(done.start_timestamp);
  });

  it('3.1 "starting a run returns a run record (see 4.6); the status is read through Get run status"', async () => {
    const b = await batchWith([['s.txt', invoiceText(inv('G-1'))]]);
    const r = await startOk('sandbox-invoices', { batch_id: b });
    const g = await admin('GET', `/v2/apps/runs/${r.id}`);
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ id: r.id, batch_id: b, deployment_id: 'sandbox-invoices', start_timestamp: r.start_timestamp });
  });

  it('3.4 "Delete run | 202 | Poll the job status operation"; 4.6 rule 1 "Deleting a run is asynchronous; completion is checked with the job status operation"', async () => {
    const r = await startOk('sandbox-invoices', { batch_id: await batchWith([['d.txt', invoiceText(inv('D-1'))]]) });
    await waitRun(r.id);
    const d = await admin('DELETE', `/v2/apps/runs/${r.id}`);
    expect(d.status).toBe(202);
    const ids = ['delete_input_dir_job_id', 'delete_output_dir_job_id', 'delete_log_dir_job_id'].map((k) => d.body[k]);
    for (const id of ids) expect(id === null || typeof id === 'string').toBe(true);
    expect(ids.some((x) => x)).toBe(true);
    for (const id of ids.filter(Boolean)) expect((await pollJob(id)).state).toBe('COMPLETE');
    await waitFor(async () => (await admin('GET', `/v2/apps/runs/${r.id}`)).status === 404, 'run record removed (delete_db_data defaults to true)');
  });
});

describe('4.4 Run a deployment', () => {
  it('POST /v2/apps/deployments/{deployment-id}/runs "Response 202 with a run record"', async () => {
    const b = await batchWith([['x.txt', invoiceText(inv('R-1'))]]);
    const r = await deploy('sandbox-invoices', { batch_id: b });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: expect.any(String), batch_id: b, deployment_id: 'sandbox-invoices', input_dir: null });
    expect(RUN_STATUSES).toContain(r.body.status);
    const unknown = await deploy('no-such-deployment', { batch_id: b });
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    expect(unknown.status).toBeLessThan(500);
  });

  it('"batch_id: Required unless `input_dir` or `manual_upstream_integration` is used"; "input_dir: Folder path in ... the service\'s own drive"', async () => {
    expect((await deploy('sandbox-invoices', {})).status).toBe(400);
    expect((await deploy('sandbox-invoices', { settings: { tags: ['x'] } })).status).toBe(400);
    const dir = `svc-drive/workspaces/team/inbox-${++seq}`;
    await admin('PUT', `/v2/files/${enc(`${dir}/in.txt`)}`, invoiceText(inv('DIR-1')));
    const r = await startOk('sandbox-invoices', { input_dir: dir });
    expect(r.input_dir).toBe(dir);
    expect((await waitRun(r.id)).status).toBe('COMPLETE');
    expect(fields(await results(r.id)).find((f) => f.field_name === 'invoice_number')?.value).toBe('DIR-1');
    await admin('PUT', `/v2/files/${enc('object-drive/workspaces/team/in/o.txt')}`, invoiceText(inv('OBJ-1'))); // "a connected drive"
    const o = await startOk('sandbox-invoices', { input_dir: 'object-drive/workspaces/team/in', output_dir: 'object-drive/workspaces/team/out' });
    expect((await waitRun(o.id)).status).toBe('COMPLETE');
    expect(fields(await results(o.id)).find((f) => f.field_name === 'invoice_number')?.value).toBe('OBJ-1');
  });

  it('"manual_upstream_integration: ... Requires one to be configured"; "from_timestamp / to_timestamp: Required when `manual_upstream_integration` is true and the integration is a mailbox"', async () => {
    const now = Date.now();
    expect((await deploy('sandbox-invoices', { manual_upstream_integration: true, from_timestamp: now - 60_000, to_timestamp: now + 60_000 })).status).toBe(400);
    expect((await deploy('sandbox-mailbox', { manual_upstream_integration: true })).status).toBe(400);
    expect((await deploy('sandbox-mailbox', { manual_upstream_integration: true, from_timestamp: now - 60_000 })).status).toBe(400);
    await admin('PUT', `/v2/files/${enc('svc-drive/workspaces/team/mailbox/mail-1.txt')}`, invoiceText(inv('MAIL-1')));
    const r = await startOk('sandbox-mailbox', { manual_upstream_integration: true, from_timestamp: now - 60_000.5, to_timestamp: Date.now() + 60_000.25 }); // "number (double)"
    expect((await waitRun(r.id)).status).toBe('COMPLETE');
    expect(fields(await results(r.id)).some((f) => f.value === 'MAIL-1')).toBe(true);
  });

  it('"output_dir: Output location in a connected drive or the service\'s own drive; overrides the deployment\'s configured output workspace"', async () => {
    const out = `svc-drive/workspaces/team/custom-out-${++seq}`;
    const r = await startOk('sandbox-invoices', { batch_id: await batchWith([['o.pdf', await invoicePdf(inv('O-1'))]]), output_dir: out, settings: { runtime_config: { generate_post_process_pdf: true } } });
    await waitRun(r.id);
    const p = docs(await results(r.id, 'include_source_info=true'))[0].post_processed_pdf_path;
    expect(p.startsWith(`${out}/`)).toBe(true);
    expect((await admin('HEAD', `/v2/files/${enc(p)}`)).status).toBe(200);
  });

  it('"Input and output locations are validated against the context in `Svc-Context`": other contexts 401, inaccessible workspaces 403 (issue 2)', async () => {
    const b = await batchWith([['c.txt', invoiceText(inv('CTX-1'))]]);
    expect((await caller(sb.url, 'admin-token', { 'Svc-Context': 'sandbox-org' })('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: b })).status).toBe(202);
    expect((await caller(sb.url, 'admin-token', { 'Svc-Context': 'another-org' })('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: b })).status).toBe(401);
    await admin('PUT', `/v2/files/${enc('svc-drive/workspaces/personal-admin/in/x.txt')}`, invoiceText(inv('P-1')));
    expect((await deploy('sandbox-invoices', { input_dir: 'svc-drive/workspaces/personal-admin/in' }, member)).status).toBe(403);
    expect((await deploy('sandbox-invoices', { batch_id: b, output_dir: 'svc-drive/workspaces/personal-admin/out' }, member)).status).toBe(403);
    const priv = await batchWith([['p.txt', invoiceText(inv('P-2'))]], admin, 'personal-admin');
    const denied = await deploy('sandbox-invoices', { batch_id: priv }, member);
    expect(denied.status).toBeGreaterThanOrEqual(400);
    expect(denied.status).toBeLessThan(500);
  });
});

describe('4.3b Run an app', () => {
  const app = (body: unknown, c: Call = admin) => c('POST', '/v2/apps/runs', body);
  it('POST /v2/apps/runs "Response 200 with a run record"', async () => {
    const b = await batchWith([['a.txt', invoiceText(inv('APP-1'))]]);
    const r = await app({ app_id: 'app-invoice-extractor', batch_id: b });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: expect.any(String), app_id: 'app-invoice-extractor', batch_id: b, deployment_id: null });
  });

  it('"app_name: Required unless `app_id` is used"; "owner: ... default is the caller\'s username. For apps published by the service operator in a marketplace, the operator\'s account name is given"', async () => {
    const b = await batchWith([['a.txt', invoiceText(inv('APP-2'))]]);
    expect((await app({ batch_id: b })).status).toBe(400);
    expect((await app({ app_name: 'invoice-extractor', owner: 'sandbox-marketplace', batch_id: b })).status).toBe(200);
    const own = await app({ app_name: 'invoice-extractor', batch_id: b });
    expect(own.status).toBeGreaterThanOrEqual(400);
    expect(own.status).toBeLessThan(500);
  });

  it('"batch_id: Required unless `input_dir` is used"', async () => {
    expect((await app({ app_id: 'app-invoice-extractor' })).status).toBe(400);
    const dir = `svc-drive/workspaces/team/app-in-${++seq}`;
    await admin('PUT', `/v2/files/${enc(`${dir}/a.txt`)}`, invoiceText(inv('APP-3')));
    const r = await app({ app_id: 'app-invoice-extractor', input_dir: dir });
    expect([r.status, r.body.input_dir]).toEqual([200, dir]);
  });

  it('"output_workspace: default is the caller\'s personal workspace. A service account has none and must give `output_workspace` or `output_dir`" (5.3)', async () => {
    const b = await batchWith([['a.txt', invoiceText(inv('APP-4'))]], service);
    expect((await app({ app_id: 'app-invoice-extractor', batch_id: b }, service)).status).toBe(400);
    expect((await app({ app_id: 'app-invoice-extractor', batch_id: b, output_workspace: 'team' }, service)).status).toBe(200);
    expect((await app({ app_id: 'app-invoice-extractor', batch_id: b, output_dir: 'svc-drive/workspaces/team/svc-out' }, service)).status).toBe(200);
    const mine = await app({ app_id: 'app-invoice-extractor', batch_id: b });
    expect((await runList('output_workspaces=personal-admin')).map((x) => x.id)).toContain(mine.body.id);
  });

  it('"output_dir: Output location; overrides `output_workspace`"', async () => {
    const out = `svc-drive/workspaces/team/app-out-${++seq}`;
    const b = await batchWith([['a.pdf', await invoicePdf(inv('APP-5'))]]);
    const r = await app({ app_id: 'app-invoice-extractor', batch_id: b, output_workspace: 'personal-admin', output_dir: out, settings: { runtime_config: { generate_post_process_pdf: true } } });
    expect(r.status).toBe(200);
    await waitRun(r.body.id);
    expect(docs(await results(r.body.id, 'include_source_info=true'))[0].post_processed_pdf_path.startsWith(`${out}/`)).toBe(true);
  });
});

describe('4.5 List runs', () => {
  it('GET /v2/apps/runs "Response 200 with a list of runs" (`{runs: [run, ...]}`, service-shapes)', async () => {
    const runs = await runList('');
    expect(runs.map((r) => r.id)).toEqual(expect.arrayContaining([runA.id, runR.id]));
    for (const r of runs) expect(typeof r.id === 'string' && RUN_STATUSES.includes(r.status)).toBe(true);
  });

  it('"app_id, app_name, deployment_id, username, run_id" filters', async () => {
    const m = await startOk('sandbox-invoices', { batch_id: await batchWith([['m.txt', invoiceText(inv('U-1'))]], member) }, member);
    const ids = async (q: string) => (await runList(q)).map((r) => r.id);
    for (const r of await runList('app_id=app-invoice-extractor')) expect(r.app_id).toBe('app-invoice-extractor');
    expect(await ids('app_id=app-invoice-extractor')).toContain(runA.id);
    expect(await ids('app_id=some-other-app')).toEqual([]);
    expect(await ids('app_name=invoice-extractor')).toContain(runA.id);
    for (const r of await runList('deployment_id=sandbox-invoices-review')) expect(r.deployment_id).toBe('sandbox-invoices-review');
    expect(await ids('deployment_id=sandbox-invoices-review')).toContain(runR.id);
    expect(await ids('username=member')).toContain(m.id);
    expect(await ids('username=member')).not.toContain(runA.id);
    expect(await ids(`run_id=${runA.id}`)).toEqual([runA.id]);
  });

  it('"status: array of string; Filter by status (for example COMPLETE, RUNNING, FAILED)"', async () => {
    const c = await startOk('sandbox-invoices', { batch_id: await batchWith([['l.pdf', await invoicePdf(inv('SC-1', '$1.00', 30))]]) });
    await admin('POST', `/sandbox/runs/${c.id}/cancel`);
    await waitRun(c.id);
    const both = await runList('status=COMPLETE&status=FAILED');
    for (const r of both) expect(['COMPLETE', 'FAILED']).toContain(r.status);
    expect(both.map((r) => r.id)).toContain(runA.id);
    expect(both.map((r) => r.id)).not.toContain(c.id);
    expect((await runList('status=CANCELLED')).map((r) => r.id)).toContain(c.id);
  });

  it('"output_workspaces: ... The caller must have access to each named workspace"', async () => {
    expect((await runList('output_workspaces=team')).map((r) => r.id)).toContain(runA.id);
    expect((await member('GET', '/v2/apps/runs?output_workspaces=personal-admin')).status).toBe(403);
    const priv = await admin('POST', '/v2/apps/runs', { app_id: 'app-invoice-extractor', batch_id: await batchWith([['q.txt', invoiceText(inv('OW-1'))]]) });
    expect((await runList('')).map((r) => r.id)).toContain(priv.body.id);
    expect((await runList('', member)).map((r) => r.id)).not.toContain(priv.body.id); // "by default all workspaces the caller can access"
  });

  it('"from_timestamp / to_timestamp: Unix seconds; default 24 hours before now / now" (8: "Default run-list window")', async () => {
    const s = Math.floor(Date.now() / 1000);
    expect((await runList('')).map((r) => r.id)).toContain(runA.id);
    expect((await runList(`from_timestamp=${s - 600}&to_timestamp=${s + 600}`)).map((r) => r.id)).toContain(runA.id);
    expect((await runList(`to_timestamp=${s - 3600}`)).map((r) => r.id)).not.toContain(runA.id);
    expect((await runList(`from_timestamp=${s + 3600}`)).map((r) => r.id)).not.toContain(runA.id);
  });

  it('"limit: Number of results; offset: Offset of the first result"', async () => {
    const two = await runList('limit=2');
    expect(two).toHaveLength(2);
    const second = await runList('limit=1&offset=1');
    expect(second.map((r) => r.id)).toEqual([two[1].id]);
  });

  it('"sort_by: Sort field"; "order: Sort order (ASCENDING or DESCENDING are named)"', async () => {
    const asc = (await runList('sort_by=start_timestamp&order=ASCENDING')).map((r) => r.start_timestamp);
    const desc = (await runList('sort_by=start_timestamp&order=DESCENDING')).map((r) => r.start_timestamp);
    expect(asc.length).toBeGreaterThan(2);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    expect(desc).toEqual([...asc].reverse());
    const byStatus = (await runList('sort_by=status&order=ASCENDING')).map((r) => r.status);
    expect(byStatus).toEqual([...byStatus].sort());
    expect((await admin('GET', '/v2/apps/runs?order=SIDEWAYS')).status).toBe(400);
  });
});

describe('4.6 Single run operations', () => {
  it('GET /v2/apps/runs/{run_id} "200 run record"; an unknown run is 404 (issue 2)', async () => {
    const r = await admin('GET', `/v2/apps/runs/${runA.id}`);
    expect([r.status, r.body.id, r.body.status]).toEqual([200, runA.id, 'COMPLETE']);
    expect((await admin('GET', '/v2/apps/runs/run_does_not_exist')).status).toBe(404);
    expect((await admin('GET', '/v2/apps/runs/run_does_not_exist/results')).status).toBe(404);
  });

  it('DELETE "Query booleans, each optional, default true: `delete_db_data`, `delete_input`, `delete_output`, `delete_logs`"', async () => {
    const b = await batchWith([['k.pdf', await invoicePdf(inv('KEEP-1'))]]);
    const gen = { runtime_config: { generate_post_process_pdf: true } };
    const r = await startOk('sandbox-invoices', { batch_id: b, settings: gen });
    await waitRun(r.id);
    const kept = docs(await results(r.id, 'include_source_info=true'))[0].post_processed_pdf_path;
    const d = await admin('DELETE', `/v2/apps/runs/${r.id}?delete_db_data=false&delete_input=false&delete_output=false&delete_logs=false`);
    expect(d.status).toBe(202);
    for (const id of Object.values(d.body ?? {}).filter((x): x is string => typeof x === 'string')) await pollJob(id);
    await new Promise((res) => setTimeout(res, 200));
    expect((await admin('GET', `/v2/apps/runs/${r.id}`)).status).toBe(200);
    expect((await admin('GET', `/v2/batches/${b}`)).status).toBe(200);
    expect((await admin('HEAD', `/v2/files/${enc(kept)}`)).status).toBe(200);
    const r2 = await startOk('sandbox-invoices', { batch_id: await batchWith([['k2.pdf', await invoicePdf(inv('KEEP-2'))]]), settings: gen });
    await waitRun(r2.id);
    const out = docs(await results(r2.id, 'include_source_info=true'))[0].post_processed_pdf_path;
    const d2 = await admin('DELETE', `/v2/apps/runs/${r2.id}`); // every flag defaults to true
    for (const id of Object.values(d2.body ?? {}).filter((x): x is string => typeof x === 'string')) await pollJob(id);
    await waitFor(async () => (await admin('HEAD', `/v2/files/${enc(out)}`)).status === 404, 'output deleted (delete_output defaults to true)');
  });

  it('4.6 rule 2 "Deleting the run\'s input files also deletes the batch that the run processed"', async () => {
    const b = await batchWith([['g.txt', invoiceText(inv('GONE-1'))]]);
    const r = await startOk('sandbox-invoices', { batch_id: b });
    await waitRun(r.id);
    const d = await admin('DELETE', `/v2/apps/runs/${r.id}?delete_input=true`);
    expect(d.status).toBe(202);
    if (d.body?.delete_input_dir_job_id) await pollJob(d.body.delete_input_dir_job_id);
    await waitFor(async () => (await admin('GET', `/v2/batches/${b}`)).status === 404, 'batch deleted with the run input');
  });

  it('4.6 rule 4 "`post_processed_pdf_path` is populated only when the run was started with `runtime_config.generate_post_process_pdf` set to true"', async () => {
    const r = await startOk('sandbox-invoices', { batch_id: await batchWith([['np.pdf', await invoicePdf(inv('NP-1'))]]) });
    await waitRun(r.id);
    for (const d of docs(await results(r.id, ALL_FLAGS))) expect(d.post_processed_pdf_path ?? null).toBeNull();
    expect(typeof docs(resA).find((d) => d._file === 'good.pdf').post_processed_pdf_path).toBe('string');
  });

  it('4.6 rule 5 "request with `file_offset` 0, and while `has_more` is true, request again with the next offset"', async () => {
    const own = await sandbox({ resultsPageSize: 2 });
    try {
      const c = caller(own.url, 'admin-token');
      const b = (await c('POST', '/v2/batches', { name: 'paged', workspace: 'team' })).body.id;
      for (let i = 0; i < 5; i++) await c('PUT', `/v2/batches/${b}/files/f${i}.txt`, invoiceText(inv(`PG-${i}`)));
      const id = (await c('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: b })).body.id;
      await waitRun(id, undefined, c);
      const names: string[] = [];
      let offset = 0;
      for (let more = true, guard = 0; more && guard < 10; guard++) {
        const page = await results(id, `file_offset=${offset}`, c);
        expect(page.files.length).toBeLessThanOrEqual(2);
        names.push(...page.files.map((f: any) => f.original_file_name));
        offset += page.files.length;
        more = page.has_more;
      }
      expect(names.sort()).toEqual(['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']);
      const first = await results(id, '', c);
      expect([first.files.length, first.has_more]).toEqual([2, true]);
    } finally {
      await own.close();
    }
  });
});

describe('4.7 Secrets', () => {
  const S = '/v2/svc/secrets';
  const list = async (q = '', c: Call = admin) => (await c('GET', `${S}${q}`)).body.secrets as any[];
  it('POST "alias (required), value (required), allowed_workspaces_type (enum, required), allowed_workspaces (required when type is SOME, otherwise ignored) | 200"', async () => {
    const ok = { alias: 'p-1', description: 'd', value: 'v', allowed_workspaces_type: 'ALL' };
    expect((await admin('POST', S, ok)).status).toBe(200);
    for (const k of ['alias', 'value', 'allowed_workspaces_type']) expect((await admin('POST', S, { ...ok, alias: `p-miss-${k}`, [k]: undefined })).status).toBe(400);
    expect((await admin('POST', S, { ...ok, alias: 'p-2', allowed_workspaces_type: 'EVERYWHERE' })).status).toBe(400);
    expect((await admin('POST', S, { ...ok, alias: 'p-3', allowed_workspaces_type: 'SOME' })).status).toBe(400);
    expect((await admin('POST', S, { ...ok, alias: 'p-4', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'] })).status).toBe(200);
    expect((await admin('POST', S, { ...ok, alias: 'p-5', allowed_workspaces: ['ignored'] })).status).toBe(200);
    expect((await list()).map((s) => s.alias)).toEqual(expect.arrayContaining(['p-1', 'p-4', 'p-5']));
  });

  it('GET "Query: `workspace`, `alias`; optional | 200 list of secrets"', async () => {
    await admin('POST', S, { alias: 'g-1', value: 'v', allowed_workspaces_type: 'ALL' });
    const r = await admin('GET', S);
    expect(r.status).toBe(200);
    expect(r.body.secrets.map((s: any) => s.alias)).toContain('g-1');
    expect((await list('?alias=g-1')).map((s) => s.alias)).toEqual(['g-1']);
  });

  it('PATCH "alias (required), and optional description, value, allowed_workspaces_type, allowed_workspaces. Unspecified fields stay unchanged | 200"', async () => {
    await admin('POST', S, { alias: 'u-1', description: 'keep me', value: 'v1', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'] });
    expect((await admin('PATCH', S, { alias: 'u-1', value: 'v2' })).status).toBe(200);
    expect((await list('?alias=u-1'))[0]).toMatchObject({ alias: 'u-1', description: 'keep me', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'] });
    expect((await admin('PATCH', S, { alias: 'u-1', description: 'new' })).status).toBe(200);
    expect((await list('?alias=u-1'))[0]).toMatchObject({ description: 'new', allowed_workspaces_type: 'SOME' });
    expect((await admin('PATCH', S, { description: 'no alias' })).status).toBe(400);
  });

  it('DELETE "JSON body: `alias` (string, required) | 200 (secret deleted)"', async () => {
    await admin('POST', S, { alias: 'x-1', value: 'v', allowed_workspaces_type: 'ALL' });
    expect((await admin('DELETE', S, { alias: 'x-1' })).status).toBe(200);
    expect((await list()).map((s) => s.alias)).not.toContain('x-1');
    expect((await admin('DELETE', S, {})).status).toBe(400);
  });

  it('"only organization admins can create, update or delete secrets. Only admins can list all secrets; non-admins must specify a workspace, and only members of a workspace can see the secrets available there" (403, issue 2)', async () => {
    await admin('POST', S, { alias: 'r-team', value: 'v', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'] });
    await admin('POST', S, { alias: 'r-private', value: 'v', allowed_workspaces_type: 'SOME', allowed_workspaces: ['personal-admin'] });
    expect((await member('POST', S, { alias: 'r-m', value: 'v', allowed_workspaces_type: 'ALL' })).status).toBe(403);
    expect((await member('PATCH', S, { alias: 'r-team', value: 'hacked' })).status).toBe(403);
    expect((await member('DELETE', S, { alias: 'r-team' })).status).toBe(403);
    expect((await member('GET', S)).status).toBe(403);
    expect((await member('GET', `${S}?workspace=personal-admin`)).status).toBe(403);
    const seen = (await list('?workspace=team', member)).map((s) => s.alias);
    expect(seen).toContain('r-team');
    expect(seen).not.toContain('r-private');
    expect((await list()).map((s) => s.alias)).toEqual(expect.arrayContaining(['r-team', 'r-private']));
  });
});

describe('7, 8, 9: run rules, limits and versions', () => {
  it('7 rule 3 "Run results return 200 even when class, field or document level errors occurred; the errors appear in the body. A field of a completed run can have the value `ERROR`"', async () => {
    const r = await admin('GET', `/v2/apps/runs/${runA.id}/results`);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('COMPLETE');
    expect(fields(r.body).filter((f) => f.value === 'ERROR').every((f) => typeof f.error_msg === 'string')).toBe(true);
  });

  it('8 "Post-process PDF generation | documents under 100 pages only"', async () => {
    const b = await batchWith([['hundred.pdf', await invoicePdf(inv('H-100', '$9.00', 99))], ['one.pdf', await invoicePdf(inv('H-1'))]]);
    const r = await startOk('sandbox-invoices', { batch_id: b, settings: { runtime_config: { generate_post_process_pdf: true } } });
    expect((await waitRun(r.id)).status).toBe('COMPLETE');
    const all = docs(await results(r.id, 'include_source_info=true'));
    const big = all.find((d) => d._file === 'hundred.pdf' && d.page_numbers.length >= 100);
    expect(big, 'a document of 100 pages').toBeDefined();
    expect(big.post_processed_pdf_path ?? null).toBeNull();
    expect(typeof all.find((d) => d._file === 'one.pdf').post_processed_pdf_path).toBe('string');
  });

  it('8 "Default `file_offset` | 0 | Run results"', async () => {
    expect(await results(runA.id, ALL_FLAGS)).toEqual(await results(runA.id, `${ALL_FLAGS}&file_offset=0`));
  });

  it('9.3 "The `version` field in run requests selects the app version; when omitted, the latest production version is used"', async () => {
    const b = await batchWith([['v.txt', invoiceText(inv('V-1'))]]);
    for (const version of ['1.0.0', '1.1.0', undefined]) {
      expect((await deploy('sandbox-invoices', { batch_id: b, version })).status).toBe(202);
      expect((await admin('POST', '/v2/apps/runs', { app_id: 'app-invoice-extractor', batch_id: b, version })).status).toBe(200);
    }
    for (const r of [await deploy('sandbox-invoices', { batch_id: b, version: '9.9.9' }), await admin('POST', '/v2/apps/runs', { app_id: 'app-invoice-extractor', batch_id: b, version: '9.9.9' })]) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
  });
});
