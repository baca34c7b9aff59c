// The sandbox's held runs (option holdRuns, POST /sandbox/runs/hold), which bench:hot-folder uses so
// that processing does not share the cores with the uploads it measures: a held run is accepted and
// RUNNING but not processed until released; after the release new runs are processed at once, and
// holding can be switched on again. Real sandbox, real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { closeAndClean, makeBatch, startDeploymentRun, waitRun, type Call } from './run-helpers.js';

let sb: RunningSandbox;
let admin: Call;
let batchId: number;
beforeAll(async () => {
  sb = await sandbox({ holdRuns: true });
  admin = caller(sb.url);
  batchId = await makeBatch(admin, { 'a.txt': 'INVOICE\nInvoice Number: INV-1\nTotal: $10.00\n' });
});
afterAll(() => closeAndClean(sb));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const statusOf = async (id: string): Promise<string> => (await admin('GET', `/v2/apps/runs/${id}`)).body.status as string;

describe('held runs', () => {
  it('a run started while held stays RUNNING, unprocessed, until released; then it completes', async () => {
    const run = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batchId });
    // Unheld, a one-file run completes in well under this with the test delays (20 ms a page).
    await sleep(600);
    expect(await statusOf(run.id)).toBe('RUNNING');
    const released = await admin('POST', '/sandbox/runs/hold', { hold: false });
    expect(released.status, released.text).toBe(200);
    expect(released.body).toEqual({ hold: false, released: 1 });
    expect((await waitRun(admin, run.id)).status).toBe('COMPLETE');
  });

  it('once released, a new run is processed at once; holding again holds the next one', async () => {
    const now = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batchId });
    expect((await waitRun(admin, now.id, ['COMPLETE'], 5000)).status).toBe('COMPLETE');
    expect((await admin('POST', '/sandbox/runs/hold', { hold: true })).body).toEqual({ hold: true, released: 0 });
    const later = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batchId });
    await sleep(600);
    expect(await statusOf(later.id)).toBe('RUNNING');
    await admin('POST', '/sandbox/runs/hold', { hold: false });
    expect((await waitRun(admin, later.id)).status).toBe('COMPLETE');
  });

  it('a call without "hold" is refused with what to send', async () => {
    const res = await admin('POST', '/sandbox/runs/hold', {});
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('"hold" is required');
  });
});
