import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, locationJob, sandbox } from '../../helpers/sandbox.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { makeBatch, results, startDeploymentRun, waitJob, waitRun, type Call } from './run-helpers.js';

/**
 * Issue section 2: with --data, batches, files, secrets, runs, results, jobs and the audit log survive a
 * restart. The first sandbox is closed with a run and a job still in progress; the second, on the same
 * folder, must find everything and finish both.
 */
const INVOICE = { invoiceNumber: 'INV-900', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$900.00', vendor: 'Durable Goods' };
const SCRATCH = 'svc-drive/workspaces/team/scratch';

let dataDir: string;
let second: RunningSandbox | undefined;
let call: Call;
const before = {} as {
  batchId: number;
  batchInfo: any;
  bytes: Buffer;
  run: any;
  results: any;
  doneJob: string;
  pendingJob: string;
  runningRun: string;
  audit: any[];
  closedAt: number;
};

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'docsync-persist-'));
  // Slow enough that a three-file run and a job are surely unfinished when the sandbox closes.
  const first = await sandbox({ dataDir, pageDelayMs: 150, jobDelayMs: 100 });
  try {
    const a = caller(first.url);
    before.bytes = await invoicePdf(INVOICE);
    before.batchId = await makeBatch(a, { 'kept.pdf': before.bytes }, 'team', 'persisted batch');
    before.batchInfo = (await a('GET', `/v2/batches/${before.batchId}`)).body;
    expect((await a('POST', '/v2/svc/secrets', { alias: 'kept-secret', description: 'survives', value: 'v', allowed_workspaces_type: 'ALL' })).status).toBe(200);

    const run = await startDeploymentRun(a, 'sandbox-invoices', { batch_id: before.batchId, settings: { tags: ['kept'] } });
    before.run = await waitRun(a, run.id);
    expect(before.run.status).toBe('COMPLETE');
    before.results = await results(a, run.id, { include_source_info: true, include_confidence_scores: true, include_validation_results: true, include_review_results: true });

    for (const name of ['done.txt', 'pending.txt']) expect((await a('PUT', `/v2/files/${SCRATCH}/${name}`, `file ${name}`)).status).toBe(204);
    before.doneJob = locationJob(await a('DELETE', `/v2/files/${SCRATCH}/done.txt`));
    expect((await waitJob(a, before.doneJob)).state).toBe('COMPLETE');

    const audit = await a('POST', '/v1/auditlogs', { size: 1000 });
    before.audit = audit.body.data.results;
    expect(before.audit.length).toBeGreaterThan(5);

    const three = await makeBatch(a, { 'x1.pdf': before.bytes, 'x2.pdf': before.bytes, 'x3.pdf': before.bytes });
    before.runningRun = (await startDeploymentRun(a, 'sandbox-invoices', { batch_id: three })).id;
    before.pendingJob = locationJob(await a('DELETE', `/v2/files/${SCRATCH}/pending.txt`));
    expect((await a('GET', `/v2/apps/runs/${before.runningRun}`)).body.status).toBe('RUNNING');
    expect((await a('GET', `/v2/jobs/${before.pendingJob}`)).body.state).toBe('PENDING');
  } finally {
    before.closedAt = Date.now();
    await first.close();
  }
  second = await sandbox({ dataDir });
  call = caller(second.url);
});
afterAll(async () => {
  await second?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('state survives a restart on the same data folder (issue section 2)', () => {
  it('keeps the batch, its file list and the file bytes', async () => {
    const info = await call('GET', `/v2/batches/${before.batchId}`);
    expect(info.status).toBe(200);
    expect(info.body).toEqual(before.batchInfo);
    const files = await call('GET', `/v2/batches/${before.batchId}/files`);
    expect(files.body.nodes.map((n: any) => [n.name, n.metadata.size])).toEqual([['kept.pdf', before.bytes.length]]);
    const res = await fetch(`${second!.url}/v2/files/${info.body.mount_point}/${info.body.path_suffix}/kept.pdf?expect-node-type=file`, {
      headers: { Authorization: 'Bearer admin-token' },
    });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(before.bytes)).toBe(true);
  });

  it('keeps the secret, which runs can still name', async () => {
    const list = await call('GET', '/v2/svc/secrets');
    expect(list.status).toBe(200);
    expect(list.body.secrets.find((s: any) => s.alias === 'kept-secret')).toMatchObject({ description: 'survives', allowed_workspaces_type: 'ALL' });
    const run = await call('POST', '/v2/apps/deployments/sandbox-invoices/runs', { batch_id: before.batchId, settings: { keys: { secret: { erp_api_key: 'kept-secret' } } } });
    expect(run.status, run.text).toBe(202);
    await waitRun(call, run.body.id);
  });

  it('keeps the completed run and every block of its results', async () => {
    expect((await call('GET', `/v2/apps/runs/${before.run.id}`)).body).toEqual(before.run);
    const all = { include_source_info: true, include_confidence_scores: true, include_validation_results: true, include_review_results: true };
    expect(await results(call, before.run.id, all)).toEqual(before.results);
    expect(before.results.files[0].documents[0].fields.length).toBeGreaterThan(0);
    const listed = await call('GET', `/v2/apps/runs?run_id=${before.run.id}`);
    expect(listed.body.runs).toEqual([before.run]);
  });

  it('keeps a finished job\'s state and finishes a job that was pending at close', async () => {
    expect((await call('GET', `/v2/jobs/${before.doneJob}`)).body.state).toBe('COMPLETE');
    expect((await waitJob(call, before.pendingJob)).state).toBe('COMPLETE');
    expect((await call('HEAD', `/v2/files/${SCRATCH}/pending.txt`)).status).toBe(404);
    expect((await call('HEAD', `/v2/files/${SCRATCH}/done.txt`)).status).toBe(404);
  });

  it('finishes a run that was in progress at close', async () => {
    const done = await waitRun(call, before.runningRun);
    expect(done.status).toBe('COMPLETE');
    const res = await results(call, before.runningRun);
    expect(res.files.map((f: any) => f.original_file_name)).toEqual(['x1.pdf', 'x2.pdf', 'x3.pdf']);
    for (const f of res.files) expect(f.documents[0].fields.find((x: any) => x.field_name === 'invoice_number').value).toBe('INV-900');
  });

  it('keeps the audit log entries written before the restart', async () => {
    const after = (await call('POST', '/v1/auditlogs', { size: 1000, end_time: String(before.closedAt) })).body.data.results;
    const key = (e: any) => `${e.timestamp_millis} ${e.method} ${e.path} ${e.status}`;
    const afterKeys = new Set(after.map(key));
    for (const e of before.audit) expect(afterKeys.has(key(e)), key(e)).toBe(true);
    expect(before.audit.some((e: any) => e.method === 'POST' && e.path === '/v2/batches')).toBe(true);
  });

  it('gives new batches fresh ids', async () => {
    const created = await call('POST', '/v2/batches', { name: 'after restart', workspace: 'team' });
    expect(created.body.id).toBeGreaterThan(before.batchId + 1);
  });
});
