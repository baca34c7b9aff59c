import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, sandbox, waitFor } from '../../helpers/sandbox.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import type { InvoiceOptions } from '../../helpers/pdf-fixtures.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { closeAndClean, expectNsNearNow, makeBatch, results, startDeploymentRun, waitRun, type Call } from './run-helpers.js';

const GOOD: InvoiceOptions = { invoiceNumber: 'INV-500', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$80.00', vendor: 'Review Co' };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: RunningSandbox;
let admin: Call;
let badBatch: number;
let goodBatch: number;

/** A run of the review deployment on an invoice whose total is not a number, stopped for review. */
async function stoppedRun(): Promise<any> {
  const run = await startDeploymentRun(admin, 'sandbox-invoices-review', { batch_id: badBatch });
  return waitRun(admin, run.id, ['STOPPED_AT_CHECKPOINT', 'COMPLETE', 'FAILED']);
}
const review = (id: string, body: unknown, call: Call = admin) => call('POST', `/sandbox/runs/${id}/review`, body);

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  badBatch = await makeBatch(admin, { 'good.pdf': await invoicePdf(GOOD), 'tbd.pdf': await invoicePdf({ ...GOOD, invoiceNumber: 'INV-501', total: 'TBD' }) });
  goodBatch = await makeBatch(admin, { 'good.pdf': await invoicePdf(GOOD) });
});
afterAll(async () => {
  await closeAndClean(sb);
});

describe('review checkpoint (spec 2.6 STOPPED_AT_CHECKPOINT; issue section 3)', () => {
  it('a failed validation stops the review deployment at STOPPED_AT_CHECKPOINT with finish_timestamp null, and it stays there', async () => {
    const run = await stoppedRun();
    expect(run.status).toBe('STOPPED_AT_CHECKPOINT');
    expect(run.finish_timestamp).toBeNull();
    expectNsNearNow(run.start_timestamp);
    await pause(200);
    expect((await admin('GET', `/v2/apps/runs/${run.id}`)).body).toMatchObject({ status: 'STOPPED_AT_CHECKPOINT', finish_timestamp: null });
    const res = await results(admin, run.id, { include_validation_results: true });
    expect(res.review_completed).toBe(false);
    const tbd = res.files.find((f: any) => f.original_file_name === 'tbd.pdf').documents[0];
    expect(tbd.validations.final_result_pass).toBe(false);
    expect(tbd.fields.find((f: any) => f.field_name === 'total_amount').validations.valid).toBe(false);
  });

  it('the same input COMPLETEs without stopping on the deployment without review, and valid input COMPLETEs on the review one', async () => {
    const plain = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: badBatch });
    expect((await waitRun(admin, plain.id, ['STOPPED_AT_CHECKPOINT', 'COMPLETE', 'FAILED'])).status).toBe('COMPLETE');
    const good = await startDeploymentRun(admin, 'sandbox-invoices-review', { batch_id: goodBatch });
    expect((await waitRun(admin, good.id, ['STOPPED_AT_CHECKPOINT', 'COMPLETE', 'FAILED'])).status).toBe('COMPLETE');
  });

  it('approve: COMPLETE with a finish_timestamp, review_completed true, edit_history with include_review_results', async () => {
    const run = await stoppedRun();
    const ok = await review(run.id, { action: 'approve' });
    expect(ok.status, ok.text).toBe(200);
    const done = (await admin('GET', `/v2/apps/runs/${run.id}`)).body;
    expect(done.status).toBe('COMPLETE');
    expect(done.finish_timestamp).toBeGreaterThanOrEqual(done.start_timestamp);
    expectNsNearNow(done.finish_timestamp);

    const res = await results(admin, run.id, { include_review_results: true });
    expect(res.review_completed).toBe(true);
    const docs = res.files.flatMap((f: any) => f.documents);
    for (const d of docs) expect(d.review_completed).toBe(true);
    const total = res.files.find((f: any) => f.original_file_name === 'tbd.pdf').documents[0].fields.find((f: any) => f.field_name === 'total_amount');
    expect(total.edit_history.length).toBeGreaterThan(0);
    const entry = total.edit_history[0];
    expect(entry).toMatchObject({ user_id: expect.any(String), modifications: [{ message: expect.any(String) }] });
    // As the service writes it: `MM/DD/YYYY HH:MM:SS`, UTC, no zone.
    expect(entry.timestamp).toMatch(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/);
    const [, mo, d, y, h, mi, s] = /^(\d+)\/(\d+)\/(\d+) (\d+):(\d+):(\d+)$/.exec(entry.timestamp)!.map(Number);
    expect(Math.abs(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) - Date.now())).toBeLessThan(60_000);

    const bare = await results(admin, run.id);
    expect(bare.review_completed).toBe(true);
    for (const d of bare.files.flatMap((f: any) => f.documents)) {
      expect('review_completed' in d).toBe(false);
      for (const f of d.fields) expect('edit_history' in f).toBe(false);
    }
  });

  it('reject: FAILED with a finish_timestamp', async () => {
    const run = await stoppedRun();
    const res = await review(run.id, { action: 'reject', reason: 'total unreadable' });
    expect(res.status, res.text).toBe(200);
    const done = (await admin('GET', `/v2/apps/runs/${run.id}`)).body;
    expect(done.status).toBe('FAILED');
    expect(done.finish_timestamp).toBeGreaterThanOrEqual(done.start_timestamp);
    expect((await results(admin, run.id)).review_completed).toBe(false);
  });

  it('400 for a run that is not waiting for review (COMPLETE, or already reviewed) and for a bad action; 404 unknown run; 401 without token', async () => {
    const complete = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: goodBatch });
    await waitRun(admin, complete.id);
    expect((await review(complete.id, { action: 'approve' })).status).toBe(400);
    expect((await admin('GET', `/v2/apps/runs/${complete.id}`)).body.status).toBe('COMPLETE');

    const run = await stoppedRun();
    expect((await review(run.id, { action: 'maybe' })).status).toBe(400);
    expect((await review(run.id, {})).status).toBe(400);
    expect((await admin('GET', `/v2/apps/runs/${run.id}`)).body.status).toBe('STOPPED_AT_CHECKPOINT');
    expect((await review(run.id, { action: 'approve' })).status).toBe(200);
    expect((await review(run.id, { action: 'reject' })).status).toBe(400);
    expect((await admin('GET', `/v2/apps/runs/${run.id}`)).body.status).toBe('COMPLETE');

    expect((await review('run_missing', { action: 'approve' })).status).toBe(404);
    expect((await review(run.id, { action: 'approve' }, caller(sb.url, null))).status).toBe(401);
  });

  it('a run stopped for review can be cancelled', async () => {
    const run = await stoppedRun();
    expect((await admin('POST', `/sandbox/runs/${run.id}/cancel`)).status).toBe(200);
    const done = (await admin('GET', `/v2/apps/runs/${run.id}`)).body;
    expect(done.status).toBe('CANCELLED');
    expect(done.finish_timestamp).toBeGreaterThanOrEqual(done.start_timestamp);
  });
});

describe('cancel (spec 2.6 CANCELLED)', () => {
  it('cancelling a running run (slow pages) makes it CANCELLED, and it stays CANCELLED', async () => {
    const slow = await sandbox({ pageDelayMs: 5_000 });
    try {
      const call = caller(slow.url);
      const run = await startDeploymentRun(call, 'sandbox-invoices', { batch_id: await makeBatch(call, { 'a.pdf': await invoicePdf(GOOD), 'b.pdf': await invoicePdf(GOOD) }) });
      await pause(100);
      expect((await call('GET', `/v2/apps/runs/${run.id}`)).body).toMatchObject({ status: 'RUNNING', finish_timestamp: null });
      const cancel = await call('POST', `/sandbox/runs/${run.id}/cancel`);
      expect(cancel.status, cancel.text).toBe(200);
      const done = await waitFor(async () => {
        const r = (await call('GET', `/v2/apps/runs/${run.id}`)).body;
        return r.status === 'CANCELLED' ? r : null;
      }, 'run to be cancelled', 2_000);
      expect(done.finish_timestamp).toBeGreaterThanOrEqual(done.start_timestamp);
      await pause(200);
      expect((await call('GET', `/v2/apps/runs/${run.id}`)).body.status).toBe('CANCELLED');
      expect((await call('GET', `/v2/apps/runs/${run.id}/results`)).body.files).toEqual([]);
      expect((await call('POST', `/sandbox/runs/${run.id}/cancel`)).status).toBe(400);
      expect((await call('POST', '/sandbox/runs/run_missing/cancel')).status).toBe(404);
    } finally {
      await closeAndClean(slow);
    }
  });
});
