/** Runs through the client (spec 4.3b, 4.4, 4.5, 4.6): start both ways, list, get, delete, and the run waiter. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunWaitState, ServiceClient } from '../../../electron/engine/service/index.js';
import { invoiceText, type InvoiceOptions } from '../../helpers/pdf-fixtures.js';
import { caller } from '../../helpers/sandbox.js';
import { clientEnv, failure, type ClientEnv } from './env.js';

const GOOD: InvoiceOptions = { invoiceNumber: 'INV-1', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$80.00', vendor: 'Acme' };
const wait = { initialDelayMs: 10, maxDelayMs: 50, timeoutMs: 15_000 };

let env: ClientEnv;
let admin: ServiceClient;
let member: ServiceClient;

beforeAll(async () => {
  env = await clientEnv();
  admin = env.client('admin-token', { username: 'admin' });
  member = env.client('member-token', { username: 'member' });
});
afterAll(() => env.close());

/** A batch in `team` holding text invoices. */
async function batchOf(c: ServiceClient, invoices: InvoiceOptions[]): Promise<number> {
  const { id } = await c.createBatch({ name: 'run input', workspace: 'team' });
  for (const [i, inv] of invoices.entries()) {
    const f = await env.file(`inv-${id}-${i}.txt`, Buffer.from(invoiceText(inv)));
    await c.putBatchFile(id, `inv-${i}.txt`, f.path);
  }
  return id;
}

describe('start a run through a deployment (spec 4.4)', () => {
  it('202 with the run record; the waiter reports running, then complete', async () => {
    const batch = await batchOf(admin, [GOOD, { ...GOOD, invoiceNumber: 'INV-2' }]);
    const before = Date.now();
    const run = await admin.startDeploymentRun('sandbox-invoices', { batch_id: batch, settings: { tags: ['march'], keys: { custom: { currency: 'EUR' } } } });
    expect(run).toMatchObject({ status: 'RUNNING', batch_id: batch, input_dir: null, deployment_id: 'sandbox-invoices', app_id: 'app-invoice-extractor', tags: ['march'], finish_timestamp: null, recovered: false });
    expect(run.start_timestamp).toBeGreaterThanOrEqual((before - 1000) * 1e6);
    const seen: RunWaitState[] = [];
    const done = await admin.waitForRun(run.id, { ...wait, onPoll: (_r, s) => seen.push(s) });
    expect(done.state).toBe('complete');
    expect(done.run.finish_timestamp).toBeGreaterThanOrEqual(run.start_timestamp as number);
    expect(seen.at(-1)).toBe('complete');
  });

  it('the mailbox upstream integration takes from/to timestamps (ms)', async () => {
    await admin.writeFile('svc-drive/workspaces/team/mailbox/mail-1.txt', Buffer.from(invoiceText(GOOD)));
    const run = await admin.startDeploymentRun('sandbox-mailbox', { manual_upstream_integration: true, from_timestamp: Date.now() - 60_000, to_timestamp: Date.now() + 60_000 });
    const done = await admin.waitForRun(run.id, wait);
    expect(done.state).toBe('complete');
    const pages = [];
    for await (const p of admin.iterateResults(run.id)) pages.push(p);
    expect(pages.flatMap((p) => p.page.files.map((f) => f.original_file_name))).toEqual(['mail-1.txt']);
  });

  it('404 for an unknown deployment, 400 for a custom key the deployment does not define', async () => {
    expect(await failure(() => admin.startDeploymentRun('no-such-deployment', { batch_id: 1 }))).toMatchObject({ kind: 'http', status: 404, operation: 'startDeploymentRun' });
    const batch = await batchOf(admin, [GOOD]);
    const e = await failure(() => admin.startDeploymentRun('sandbox-invoices', { batch_id: batch, settings: { keys: { custom: { colour: 'red' } } } }));
    expect(e).toMatchObject({ kind: 'http', status: 400, retryable: false });
    expect(e.message).toMatch(/settings\.keys\.custom\.colour is not a custom key/);
  });

  it('a run with no input files FAILS: the waiter returns it as failed, not as an error', async () => {
    const { id } = await admin.createBatch({ name: 'empty input', workspace: 'team' });
    const run = await admin.startDeploymentRun('sandbox-invoices', { batch_id: id });
    const done = await admin.waitForRun(run.id, wait);
    expect(done.state).toBe('failed');
    expect(done.run.msg).toMatch(/no input files/);
  });
});

describe('start a run of an app (spec 4.3b)', () => {
  it('200 with the run record; by app name with the marketplace owner, a version, and an input_dir', async () => {
    await admin.writeFile('svc-drive/workspaces/team/in/a.txt', Buffer.from(invoiceText(GOOD)));
    const run = await admin.startAppRun({ app_name: 'invoice-extractor', owner: 'sandbox-marketplace', version: '1.0.0', input_dir: 'svc-drive/workspaces/team/in', output_workspace: 'team' });
    expect(run).toMatchObject({ status: 'RUNNING', app_id: 'app-invoice-extractor', input_dir: 'svc-drive/workspaces/team/in', batch_id: null, deployment_id: null });
    expect((await admin.waitForRun(run.id, wait)).state).toBe('complete');
  });

  it('by app id on a batch; an unknown version is a 404; a service account without output is a 400', async () => {
    const batch = await batchOf(admin, [GOOD]);
    const run = await admin.startAppRun({ app_id: 'app-invoice-extractor', batch_id: batch, output_workspace: 'team' });
    expect(run.batch_id).toBe(batch);
    expect(await failure(() => admin.startAppRun({ app_id: 'app-invoice-extractor', batch_id: batch, version: '9.9.9' }))).toMatchObject({ status: 404 });
    const svc = env.client('service-token');
    expect(await failure(() => svc.startAppRun({ app_id: 'app-invoice-extractor', batch_id: batch }))).toMatchObject({ status: 400, operation: 'startAppRun' });
  });
});

describe('list, get and delete runs (spec 4.5, 4.6)', () => {
  it('list filters by deployment, user, status and run id, pages with limit/offset, sorts', async () => {
    const batch = await batchOf(member, [GOOD]);
    const a = await member.startDeploymentRun('sandbox-invoices', { batch_id: batch });
    const b = await member.startDeploymentRun('sandbox-invoices', { batch_id: batch });
    await member.waitForRun(a.id, wait);
    await member.waitForRun(b.id, wait);
    const mine = await member.listRuns({ deployment_id: 'sandbox-invoices', username: 'member', status: ['COMPLETE'], order: 'ASCENDING' });
    const ids = mine.runs.map((r) => r.id);
    expect(ids.indexOf(a.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    expect(mine.runs.every((r) => r.status === 'COMPLETE' && r.deployment_id === 'sandbox-invoices')).toBe(true);
    expect((await member.listRuns({ run_id: b.id })).runs.map((r) => r.id)).toEqual([b.id]);
    expect((await member.listRuns({ username: 'member', limit: 1, offset: 0, sort_by: 'start_timestamp', order: 'DESCENDING' })).runs).toHaveLength(1);
    expect((await member.listRuns({ from_timestamp: Math.floor(Date.now() / 1000) + 3600 })).runs).toEqual([]);
  });

  it('403 when listing an output workspace the caller cannot access; 400 for an unknown status', async () => {
    expect(await failure(() => member.listRuns({ output_workspaces: ['personal-admin'] }))).toMatchObject({ kind: 'http', status: 403, operation: 'listRuns' });
    expect(await failure(() => member.listRuns({ status: ['DONE' as 'COMPLETE'] }))).toMatchObject({ status: 400 });
  });

  it('get: 200 run record; 404 for an unknown run', async () => {
    const batch = await batchOf(admin, [GOOD]);
    const run = await admin.startDeploymentRun('sandbox-invoices', { batch_id: batch });
    expect((await admin.getRun(run.id)).id).toBe(run.id);
    expect(await failure(() => admin.getRun('run_nope'))).toMatchObject({ kind: 'http', status: 404, operation: 'getRun' });
    await admin.waitForRun(run.id, wait);
  });

  it('delete: 202 with the job ids; each job completes; delete_input false gives no input job; the run is then gone', async () => {
    const batch = await batchOf(admin, [GOOD]);
    const run = await admin.startDeploymentRun('sandbox-invoices', { batch_id: batch });
    await admin.waitForRun(run.id, wait);
    const jobs = await admin.deleteRun(run.id, { delete_input: false });
    expect(jobs.delete_input_dir_job_id).toBeNull();
    expect(jobs.delete_output_dir_job_id).toMatch(/^job_/);
    expect(jobs.delete_log_dir_job_id).toMatch(/^job_/);
    for (const id of [jobs.delete_output_dir_job_id, jobs.delete_log_dir_job_id]) expect((await admin.waitForJob(id as string, wait)).state).toBe('COMPLETE');
    expect((await admin.getBatch(batch)).id).toBe(batch);
    for (let i = 0; i < 100; i++) {
      const e = await admin.getRun(run.id).then(() => null, (err: unknown) => err);
      if (e) return expect(e).toMatchObject({ status: 404 });
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the run was never deleted');
  });
});

describe('waiting for a run: review checkpoint and cancellation (spec 2.6)', () => {
  const sandboxCall = () => caller(env.sb.url, 'admin-token');

  it('STOPPED_AT_CHECKPOINT is "waiting for review": not terminal, not an error; approval then completes the wait', async () => {
    const batch = await batchOf(admin, [{ ...GOOD, total: 'TBD' }]);
    const run = await admin.startDeploymentRun('sandbox-invoices-review', { batch_id: batch });
    const early = await admin.waitForRun(run.id, { ...wait, untilReview: true });
    expect(early.state).toBe('waiting-for-review');
    expect(early.run.status).toBe('STOPPED_AT_CHECKPOINT');
    expect(early.run.finish_timestamp).toBeNull();

    const reviews: string[] = [];
    const states: RunWaitState[] = [];
    const done = await admin.waitForRun(run.id, {
      ...wait,
      onPoll: (_r, s) => states.push(s),
      onReviewWaiting: (r) => {
        reviews.push(r.status as string);
        setTimeout(() => void sandboxCall()('POST', `/sandbox/runs/${r.id}/review`, { action: 'approve' }), 100);
      },
    });
    expect(reviews).toEqual(['STOPPED_AT_CHECKPOINT']);
    expect(states.filter((s) => s === 'waiting-for-review').length).toBeGreaterThanOrEqual(2);
    expect(done.state).toBe('complete');
    expect(done.run.msg).toMatch(/review approved/);
  });

  it('a run cancelled on the service side ends the wait as cancelled', async () => {
    const batch = await batchOf(admin, Array.from({ length: 6 }, (_, i) => ({ ...GOOD, invoiceNumber: `C-${i}` })));
    const run = await admin.startDeploymentRun('sandbox-invoices', { batch_id: batch });
    expect((await sandboxCall()('POST', `/sandbox/runs/${run.id}/cancel`)).status).toBe(200);
    expect((await admin.waitForRun(run.id, wait)).state).toBe('cancelled');
  });

  it('the waiter honours its timeout and its AbortSignal', async () => {
    const batch = await batchOf(admin, [{ ...GOOD, total: 'TBD' }]);
    const run = await admin.startDeploymentRun('sandbox-invoices-review', { batch_id: batch });
    const e = await failure(() => admin.waitForRun(run.id, { initialDelayMs: 10, maxDelayMs: 20, timeoutMs: 400 }));
    expect(e).toMatchObject({ kind: 'timeout', operation: 'waitForRun' });
    expect(e.message).toMatch(/still STOPPED_AT_CHECKPOINT/);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 30);
    expect(await failure(() => admin.waitForRun(run.id, { ...wait, signal: ctl.signal }))).toMatchObject({ kind: 'aborted' });
  });
});
