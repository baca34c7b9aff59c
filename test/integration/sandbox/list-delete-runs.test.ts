import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, sandbox, waitFor } from '../../helpers/sandbox.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { closeAndClean, makeBatch, results, startDeploymentRun, waitJob, waitRun, type Call } from './run-helpers.js';

const INVOICE = { invoiceNumber: 'INV-77', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$10.00', vendor: 'Listing Co' };
const APP = { app_name: 'invoice-extractor', owner: 'sandbox-marketplace' };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: RunningSandbox;
let admin: Call;
let member: Call;
let pdf: Buffer;
/** Created in this order: r1 admin deployment (team), r2 admin app (personal-admin), r3 member deployment on an empty batch (team, FAILED), r4 member app (personal-member). */
let r1: string, r2: string, r3: string, r4: string;

async function list(call: Call, query = ''): Promise<any[]> {
  const res = await call('GET', `/v2/apps/runs${query ? `?${query}` : ''}`);
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.body)).toEqual(['runs']);
  return res.body.runs;
}
const ids = async (call: Call, query = ''): Promise<string[]> => (await list(call, query)).map((r) => r.id).sort();
const sorted = (...xs: string[]): string[] => [...xs].sort();

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  member = caller(sb.url, 'member-token');
  pdf = await invoicePdf(INVOICE);
  const batch = await makeBatch(admin, { 'a.pdf': pdf });
  r1 = (await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batch })).id;
  await pause(3);
  const app = await admin('POST', '/v2/apps/runs', { ...APP, batch_id: batch });
  expect(app.status).toBe(200);
  r2 = app.body.id;
  await pause(3);
  r3 = (await startDeploymentRun(member, 'sandbox-invoices', { batch_id: await makeBatch(member, {}) })).id;
  await pause(3);
  const memberApp = await member('POST', '/v2/apps/runs', { ...APP, app_name: undefined, app_id: 'app-invoice-extractor', batch_id: batch });
  expect(memberApp.status, memberApp.text).toBe(200);
  r4 = memberApp.body.id;
  await Promise.all([r1, r2, r3, r4].map((id) => waitRun(admin, id)));
});
afterAll(async () => {
  await closeAndClean(sb);
});

describe('list runs (spec 4.5; {runs: [...]} per service-shapes.md)', () => {
  it('lists the runs of every workspace the caller can access', async () => {
    expect(await ids(admin)).toEqual(sorted(r1, r2, r3, r4));
    expect(await ids(member)).toEqual(sorted(r1, r3, r4));
    const one = (await list(admin, `run_id=${r3}`))[0];
    expect(one).toMatchObject({ id: r3, status: 'FAILED', deployment_id: 'sandbox-invoices', app_id: 'app-invoice-extractor' });
  });

  it('filters by deployment_id, app_id, app_name, username and run_id', async () => {
    expect(await ids(admin, 'deployment_id=sandbox-invoices')).toEqual(sorted(r1, r3));
    expect(await ids(admin, 'deployment_id=sandbox-mailbox')).toEqual([]);
    expect(await ids(admin, 'app_id=app-invoice-extractor')).toEqual(sorted(r1, r2, r3, r4));
    expect(await ids(admin, 'app_id=app-other')).toEqual([]);
    expect(await ids(admin, 'app_name=invoice-extractor')).toEqual(sorted(r1, r2, r3, r4));
    expect(await ids(admin, 'app_name=other')).toEqual([]);
    expect(await ids(admin, 'username=member')).toEqual(sorted(r3, r4));
    expect(await ids(admin, 'username=admin')).toEqual(sorted(r1, r2));
    expect(await ids(admin, `run_id=${r2}`)).toEqual([r2]);
    expect(await ids(member, `run_id=${r2}`)).toEqual([]);
  });

  it('filters by status, given as a repeated parameter', async () => {
    expect(await ids(admin, 'status=FAILED')).toEqual([r3]);
    expect(await ids(admin, 'status=COMPLETE')).toEqual(sorted(r1, r2, r4));
    expect(await ids(admin, 'status=COMPLETE&status=FAILED')).toEqual(sorted(r1, r2, r3, r4));
    expect(await ids(admin, 'status=RUNNING')).toEqual([]);
    expect((await admin('GET', '/v2/apps/runs?status=DONE')).status).toBe(400);
  });

  it('filters by output_workspaces, and 403 for a workspace the caller cannot access', async () => {
    expect(await ids(admin, 'output_workspaces=team')).toEqual(sorted(r1, r3));
    expect(await ids(admin, 'output_workspaces=team&output_workspaces=personal-admin')).toEqual(sorted(r1, r2, r3));
    expect(await ids(member, 'output_workspaces=personal-member')).toEqual([r4]);
    const denied = await member('GET', '/v2/apps/runs?output_workspaces=personal-admin');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/\S/);
    expect((await member('GET', '/v2/apps/runs?output_workspaces=team&output_workspaces=personal-admin')).status).toBe(403);
  });

  it('from_timestamp/to_timestamp are Unix seconds; a window in the past holds none of these runs', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await ids(admin, `from_timestamp=${now - 3 * 86400}&to_timestamp=${now - 2 * 86400}`)).toEqual([]);
    expect(await ids(admin, `from_timestamp=${now - 120}&to_timestamp=${now + 120}`)).toEqual(sorted(r1, r2, r3, r4));
    expect(await ids(admin, `from_timestamp=${now + 3600}&to_timestamp=${now + 7200}`)).toEqual([]);
    // Defaults: the last 24 hours up to now.
    expect(await ids(admin, `from_timestamp=${now - 120}`)).toEqual(sorted(r1, r2, r3, r4));
    expect(await ids(admin, `to_timestamp=${now - 2 * 86400}`)).toEqual([]);
  });

  it('sorts by start_timestamp ASCENDING or DESCENDING', async () => {
    const asc = await list(admin, 'sort_by=start_timestamp&order=ASCENDING');
    expect(asc.map((r) => r.id)).toEqual([r1, r2, r3, r4]);
    const desc = await list(admin, 'sort_by=start_timestamp&order=DESCENDING');
    expect(desc.map((r) => r.id)).toEqual([r4, r3, r2, r1]);
    for (let i = 1; i < asc.length; i++) expect(asc[i].start_timestamp).toBeGreaterThanOrEqual(asc[i - 1].start_timestamp);
  });

  it('sorts by status', async () => {
    const asc = (await list(admin, 'sort_by=status&order=ASCENDING')).map((r) => r.status);
    const desc = (await list(admin, 'sort_by=status&order=DESCENDING')).map((r) => r.status);
    expect(asc).toEqual(['COMPLETE', 'COMPLETE', 'COMPLETE', 'FAILED']);
    expect(desc).toEqual(['FAILED', 'COMPLETE', 'COMPLETE', 'COMPLETE']);
  });

  it('pages with limit and offset', async () => {
    const q = 'sort_by=start_timestamp&order=ASCENDING';
    expect((await list(admin, `${q}&limit=2`)).map((r) => r.id)).toEqual([r1, r2]);
    expect((await list(admin, `${q}&limit=2&offset=2`)).map((r) => r.id)).toEqual([r3, r4]);
    expect((await list(admin, `${q}&limit=3&offset=3`)).map((r) => r.id)).toEqual([r4]);
    expect(await list(admin, `${q}&offset=4`)).toEqual([]);
  });

  it('400 for a sort_by or order that is not allowed, or a limit that is not an integer', async () => {
    for (const q of ['sort_by=name', 'sort_by=finish_timestamp', 'order=UP', 'order=asc', 'limit=ten', 'offset=-1']) {
      const res = await admin('GET', `/v2/apps/runs?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.message, q).toMatch(/\S/);
    }
  });
});

describe('delete run (spec 4.6 rules 1-2, 3.4)', () => {
  /** A completed run of a fresh batch with its output at a folder we name, so the test can look for it. */
  async function completedRun(tag: string): Promise<{ id: string; batch: number; out: string }> {
    const batch = await makeBatch(admin, { [`${tag}.pdf`]: pdf });
    const out = `svc-drive/workspaces/team/out/${tag}`;
    const run = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batch, output_dir: out });
    expect((await waitRun(admin, run.id)).status).toBe('COMPLETE');
    expect((await admin('HEAD', `/v2/files/${out}`)).status).toBe(200);
    return { id: run.id, batch, out };
  }

  it('answers 202 with three job ids; each job COMPLETEs; then the run, its batch and its output are gone', async () => {
    const { id, batch, out } = await completedRun('del-all');
    const del = await admin('DELETE', `/v2/apps/runs/${id}`);
    expect(del.status, del.text).toBe(202);
    expect(Object.keys(del.body).sort()).toEqual(['delete_input_dir_job_id', 'delete_log_dir_job_id', 'delete_output_dir_job_id']);
    for (const jobId of Object.values(del.body) as string[]) {
      expect(jobId).toEqual(expect.any(String));
      expect((await waitJob(admin, jobId)).state).toBe('COMPLETE');
    }
    await waitFor(async () => (await admin('GET', `/v2/apps/runs/${id}`)).status === 404, 'run to be deleted');
    expect((await admin('GET', `/v2/apps/runs/${id}/results`)).status).toBe(404);
    expect(await ids(admin, `run_id=${id}`)).toEqual([]);
    expect((await admin('GET', `/v2/batches/${batch}`)).status).toBe(404);
    expect((await admin('HEAD', `/v2/files/${out}`)).status).toBe(404);
  });

  it('with delete_input, delete_output and delete_logs false the job ids are null and the batch and output stay', async () => {
    const { id, batch, out } = await completedRun('keep-files');
    const del = await admin('DELETE', `/v2/apps/runs/${id}?delete_input=false&delete_output=false&delete_logs=false`);
    expect(del.status).toBe(202);
    expect(del.body).toEqual({ delete_input_dir_job_id: null, delete_output_dir_job_id: null, delete_log_dir_job_id: null });
    await waitFor(async () => (await admin('GET', `/v2/apps/runs/${id}`)).status === 404, 'run data to be deleted');
    expect((await admin('GET', `/v2/batches/${batch}`)).status).toBe(200);
    expect((await admin('GET', `/v2/batches/${batch}/files`)).body.nodes.map((n: any) => n.name)).toEqual(['keep-files.pdf']);
    expect((await admin('HEAD', `/v2/files/${out}`)).status).toBe(200);
  });

  it('with delete_db_data=false the run and its results stay while the input goes', async () => {
    const { id, batch } = await completedRun('keep-db');
    const del = await admin('DELETE', `/v2/apps/runs/${id}?delete_db_data=false&delete_output=false&delete_logs=false`);
    expect(del.status).toBe(202);
    expect(del.body.delete_input_dir_job_id).toEqual(expect.any(String));
    expect(del.body.delete_output_dir_job_id).toBeNull();
    expect((await waitJob(admin, del.body.delete_input_dir_job_id)).state).toBe('COMPLETE');
    expect((await admin('GET', `/v2/batches/${batch}`)).status).toBe(404);
    await pause(200);
    expect((await admin('GET', `/v2/apps/runs/${id}`)).body.status).toBe('COMPLETE');
    expect((await results(admin, id)).files).toHaveLength(1);
  });

  it('deleting a running run stops it: with delete_db_data=false it is kept as CANCELLED', async () => {
    const files = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`slow-${i}.pdf`, pdf]));
    const run = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: await makeBatch(admin, files) });
    const del = await admin('DELETE', `/v2/apps/runs/${run.id}?delete_db_data=false&delete_input=false&delete_output=false&delete_logs=false`);
    expect(del.status).toBe(202);
    const after = (await admin('GET', `/v2/apps/runs/${run.id}`)).body;
    expect(after.status).toBe('CANCELLED');
    expect(after.finish_timestamp).toBeGreaterThanOrEqual(after.start_timestamp);
    const processed = (await results(admin, run.id)).files.length;
    expect(processed).toBeLessThan(10);
    await pause(150);
    expect((await admin('GET', `/v2/apps/runs/${run.id}`)).body.status).toBe('CANCELLED');
    expect((await results(admin, run.id)).files).toHaveLength(processed);
  });

  it('404 for an unknown run, or one the caller cannot see; 400 for a flag that is not a boolean', async () => {
    expect((await admin('DELETE', '/v2/apps/runs/run_nope')).status).toBe(404);
    expect((await member('DELETE', `/v2/apps/runs/${r2}`)).status).toBe(404);
    expect((await admin('GET', `/v2/apps/runs/${r2}`)).status).toBe(200);
    expect((await admin('DELETE', `/v2/apps/runs/${r2}?delete_input=maybe`)).status).toBe(400);
  });
});
