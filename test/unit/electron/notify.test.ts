// Desktop notifications for runs (electron/main/notify-text.ts): which run events are announced,
// the wording, and one notification per run and status however often the engine re-sends it.
import { describe, expect, it } from 'vitest';
import type { RunView } from '../../../shared/ui/views.js';
import { RunAnnouncer, runNotification } from '../../../electron/main/notify-text.js';

const run = (more: Partial<RunView>): RunView => ({
  id: 7, serviceRunId: 'run-7', deploymentId: 'sandbox-invoices', appId: null, status: 'RUNNING', msg: null, reviewWaiting: false,
  files: 3, done: 3, failed: 0, folderId: 1, createdMs: 1, startMs: 2, finishMs: null, resultsStored: false, origin: 'the sandbox', ...more,
});

describe('runNotification', () => {
  it('announces completion', () => {
    expect(runNotification(run({ status: 'COMPLETE' }))).toEqual({ title: 'Run complete', body: '3 files processed by sandbox-invoices.', urgent: false });
    expect(runNotification(run({ status: 'COMPLETE', files: 1, done: 1, deploymentId: null, appId: 'invoice-app' }))?.body).toBe('1 file processed by invoice-app.');
  });

  it('says a completed run with failed files is not a success', () => {
    expect(runNotification(run({ status: 'COMPLETE', files: 6, done: 4, failed: 2 }))).toEqual({
      title: 'Run finished with failed files', body: '4 of 6 done, 2 failed by sandbox-invoices.', urgent: true,
    });
  });

  it('announces failure with the first line of the reason, cut short', () => {
    expect(runNotification(run({ status: 'FAILED', msg: 'OCR engine crashed\nstack...' }))).toEqual({
      title: 'Run failed', body: '3 files in sandbox-invoices: OCR engine crashed', urgent: true,
    });
    expect(runNotification(run({ status: 'FAILED', msg: null }))?.body).toBe('3 files in sandbox-invoices: the service did not say why');
    const long = runNotification(run({ status: 'FAILED', msg: 'x'.repeat(500) }))!.body;
    expect(long.length).toBeLessThan(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('announces review and cancellation, and nothing for runs in progress', () => {
    expect(runNotification(run({ status: 'STOPPED_AT_CHECKPOINT', reviewWaiting: true }))?.title).toBe('Run waiting for review');
    expect(runNotification(run({ status: 'CANCELLED' }))?.body).toBe('3 files in sandbox-invoices');
    expect(runNotification(run({ status: 'RUNNING' }))).toBeNull();
    expect(runNotification(run({ status: 'PAUSED' }))).toBeNull();
    expect(runNotification(run({ status: null }))).toBeNull();
  });
});

describe('RunAnnouncer', () => {
  it('announces each run and status once', () => {
    const a = new RunAnnouncer();
    expect(a.next(run({ status: 'RUNNING' }))).toBeNull();
    expect(a.next(run({ status: 'STOPPED_AT_CHECKPOINT' }))?.title).toBe('Run waiting for review');
    expect(a.next(run({ status: 'STOPPED_AT_CHECKPOINT' }))).toBeNull();
    // COMPLETE on the service while its files are still being finished: nothing yet, then the outcome.
    expect(a.next(run({ status: 'COMPLETE', done: 1 }))).toBeNull();
    expect(a.next(run({ status: 'COMPLETE' }))?.title).toBe('Run complete');
    // Results stored later: same status, no second notification.
    expect(a.next(run({ status: 'COMPLETE', resultsStored: true }))).toBeNull();
    expect(a.next(run({ id: 8, status: 'COMPLETE' }))?.title).toBe('Run complete');
  });

  it('forgets the oldest runs beyond its limit', () => {
    const a = new RunAnnouncer(2);
    for (const id of [1, 2, 3]) expect(a.next(run({ id, status: 'COMPLETE' }))).not.toBeNull();
    expect(a.next(run({ id: 3, status: 'COMPLETE' }))).toBeNull();
    expect(a.next(run({ id: 1, status: 'COMPLETE' }))).not.toBeNull();
  });
});
