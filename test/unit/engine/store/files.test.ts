/**
 * Observations about local files (issue 4, "Local store" and "Pipeline"): every file seen, each
 * state transition persisted with its history row in one transaction, multipart sessions and
 * parts that survive a restart, hot folders, batches, runs and jobs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnknownFileError, type Store } from '../../../../electron/engine/store/index.js';
import { tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
let s: Store;
let clock: number;
beforeEach(() => {
  t = tempStore();
  clock = 1_000;
  s = t.open({ now: () => clock });
});
afterEach(() => t.cleanup());

const seen = (path = '/in/a.pdf', folderId: number | null = null) =>
  s.files.add({ folderId, path, size: 2048, mtimeMs: 1_700_000_000_123.75, originalName: path.split('/').pop()! });

describe('files: every file seen', () => {
  it('a new file is recorded as discovered, with whole-millisecond mtime and its first event', () => {
    const f = seen();
    expect(f).toMatchObject({ state: 'discovered', size: 2048, mtimeMs: 1_700_000_000_123, originalName: 'a.pdf', sha256: null, error: null });
    expect(s.files.history(f.id)).toEqual([{ id: expect.any(Number), fileId: f.id, fromState: null, toState: 'discovered', atMs: 1_000, error: null }]);
  });

  it('observe() keeps the last size, mtime and hash; assign() the safe name, batch and service path', () => {
    const f = seen();
    const b = s.runs.addBatch({ serviceBatchId: '17' });
    s.files.observe(f.id, { size: 4096, mtimeMs: 5.9, sha256: 'ab'.repeat(32) });
    s.files.assign(f.id, { safeName: 'a_1.pdf', batchId: b.id, servicePath: 'svc-drive/b/17/a_1.pdf' });
    expect(s.files.get(f.id)).toMatchObject({ size: 4096, mtimeMs: 5, sha256: 'ab'.repeat(32), safeName: 'a_1.pdf', batchId: b.id, servicePath: 'svc-drive/b/17/a_1.pdf', originalName: 'a.pdf' });
    expect(s.files.list({ batchId: b.id }).map((x) => x.id)).toEqual([f.id]);
    expect(s.files.countInBatch(b.id)).toBe(1);
    expect(s.files.countInBatch(b.id + 1)).toBe(0);
    expect(() => s.files.observe(999, { size: 1, mtimeMs: 1 })).toThrow(UnknownFileError);
  });

  it('byPath() gives the most recent row for a path; doneWithSameContent() finds a processed duplicate', () => {
    const a = seen('/in/x.pdf');
    s.files.observe(a.id, { size: 1, mtimeMs: 1, sha256: 'ff'.repeat(32) });
    const b = seen('/in/x.pdf');
    expect(s.files.byPath('/in/x.pdf')?.id).toBe(b.id);
    expect(s.files.doneWithSameContent('ff'.repeat(32), b.id)).toBeUndefined();
    s.files.transition(a.id, 'done');
    expect(s.files.doneWithSameContent('ff'.repeat(32), b.id)?.id).toBe(a.id);
    expect(s.files.doneWithSameContent('ff'.repeat(32), a.id)).toBeUndefined();
  });
});

describe('files.transition: persisted with its event, in one transaction', () => {
  it('walks the pipeline and records from, to, time and error for each step', () => {
    const f = seen();
    const path = ['stable', 'queued', 'uploading', 'uploaded', 'running', 'failed'] as const;
    for (const to of path) {
      clock += 10;
      s.files.transition(f.id, to, to === 'failed' ? 'run FAILED: OCR engine unavailable' : undefined);
    }
    expect(s.files.get(f.id)).toMatchObject({ state: 'failed', error: 'run FAILED: OCR engine unavailable', updatedMs: 1_060 });
    const h = s.files.history(f.id);
    expect(h.map((e) => [e.fromState, e.toState, e.atMs])).toEqual([
      [null, 'discovered', 1_000], ['discovered', 'stable', 1_010], ['stable', 'queued', 1_020], ['queued', 'uploading', 1_030],
      ['uploading', 'uploaded', 1_040], ['uploaded', 'running', 1_050], ['running', 'failed', 1_060],
    ]);
    expect(h.at(-1)?.error).toBe('run FAILED: OCR engine unavailable');
    // a retry clears the file's error; the history keeps it
    s.files.transition(f.id, 'queued');
    expect(s.files.get(f.id)?.error).toBeNull();
    expect(s.files.history(f.id).filter((e) => e.error !== null)).toHaveLength(1);
  });

  it('the history survives closing and re-opening the store', () => {
    const f = seen();
    s.files.transition(f.id, 'stable');
    s.close();
    const again = t.open();
    expect(again.files.get(f.id)?.state).toBe('stable');
    expect(again.files.history(f.id).map((e) => e.toState)).toEqual(['discovered', 'stable']);
  });

  it('an unknown file id throws and writes no event; an unknown state is refused by the schema', () => {
    expect(() => s.files.transition(424242, 'stable')).toThrow(UnknownFileError);
    expect(s.db.prepare('SELECT count(*) AS n FROM file_events').get()).toEqual({ n: 0 });
    const f = seen();
    expect(() => s.files.transition(f.id, 'exploded' as never)).toThrow(/CHECK constraint/);
    expect(s.files.get(f.id)?.state).toBe('discovered');
    expect(s.files.history(f.id)).toHaveLength(1);
  });

  it('inside an outer transaction that fails, neither the state nor its event is kept', () => {
    const f = seen();
    expect(() => s.transaction(() => {
      s.files.transition(f.id, 'stable');
      throw new Error('crash before commit');
    })).toThrow('crash before commit');
    expect(s.files.get(f.id)?.state).toBe('discovered');
    expect(s.files.history(f.id).map((e) => e.toState)).toEqual(['discovered']);
  });

  it('inside an outer transaction, a refused change caught there leaves neither state nor event (one change has no savepoint of its own)', () => {
    const f = seen();
    s.transaction(() => {
      expect(() => s.files.transitionMany([{ fileId: f.id, to: 'exploded' as never }])).toThrow(/CHECK constraint/);
      expect(() => s.files.transitionMany([{ fileId: 424242, to: 'stable' }])).toThrow(UnknownFileError);
      s.files.transitionMany([{ fileId: f.id, to: 'stable' }]);
    });
    expect(s.files.history(f.id).map((e) => [e.fromState, e.toState])).toEqual([[null, 'discovered'], ['discovered', 'stable']]);
  });

  it('addThrough() stores a new file in its last step with one history row per step, as add() and transition() would', () => {
    clock = 5_000;
    const f = s.files.addThrough({ folderId: null, path: '/in/new.pdf', size: 10, mtimeMs: 7.5, sha256: 'cd'.repeat(32), originalName: 'new.pdf' }, ['discovered', 'stable', 'queued']);
    expect(f).toMatchObject({ state: 'queued', path: '/in/new.pdf', mtimeMs: 7, sha256: 'cd'.repeat(32), error: null, createdMs: 5_000 });
    expect(s.files.get(f.id)).toEqual(f);
    expect(s.files.history(f.id).map((e) => [e.fromState, e.toState, e.atMs, e.error])).toEqual([
      [null, 'discovered', 5_000, null], ['discovered', 'stable', 5_000, null], ['stable', 'queued', 5_000, null],
    ]);
    const g = s.files.addThrough({ path: '/in/two.pdf', size: 1, mtimeMs: 1, originalName: 'two.pdf' }, ['discovered', 'stable']);
    expect(s.files.history(g.id).map((e) => e.toState)).toEqual(['discovered', 'stable']);
    expect(s.files.countByState()).toMatchObject({ queued: 1, stable: 1, discovered: 0 });
    expect(() => s.files.addThrough({ path: '/in/x.pdf', size: 1, mtimeMs: 1, originalName: 'x.pdf' }, [])).toThrow(/1 to 3 steps/);
    // Inside a failing outer transaction nothing of it is kept.
    expect(() => s.transaction(() => {
      s.files.addThrough({ path: '/in/y.pdf', size: 1, mtimeMs: 1, originalName: 'y.pdf' }, ['discovered']);
      throw new Error('crash before commit');
    })).toThrow('crash before commit');
    expect(s.files.byPath('/in/y.pdf')).toBeUndefined();
  });

  it('placeBatch() gives the files of a batch still to be sent their service path in one go, and only those', () => {
    const b = s.runs.addBatch({ serviceBatchId: '17' });
    const other = s.runs.addBatch({ serviceBatchId: '18' });
    const [q, up, done, unnamed, elsewhere] = ['q', 'up', 'done', 'unnamed', 'elsewhere'].map((n) => seen(`/in/${n}.pdf`)) as [ReturnType<typeof seen>, ...ReturnType<typeof seen>[]];
    s.files.assign(q.id, { safeName: 'q.pdf', batchId: b.id, servicePath: null });
    s.files.assign(up!.id, { safeName: 'up.pdf', batchId: b.id, servicePath: null });
    s.files.assign(done!.id, { safeName: 'done.pdf', batchId: b.id, servicePath: 'old/done.pdf' });
    s.files.assign(unnamed!.id, { safeName: null, batchId: b.id, servicePath: null });
    s.files.assign(elsewhere!.id, { safeName: 'e.pdf', batchId: other.id, servicePath: null });
    for (const f of [q, unnamed, elsewhere]) s.files.transitionMany([{ fileId: f!.id, to: 'queued' }]);
    s.files.transition(up!.id, 'uploading');
    s.files.transition(done!.id, 'done');
    expect(s.files.placeBatch(b.id, 'svc-drive/b/17')).toBe(2);
    expect(s.files.get(q.id)?.servicePath).toBe('svc-drive/b/17/q.pdf');
    expect(s.files.get(up!.id)?.servicePath).toBe('svc-drive/b/17/up.pdf');
    expect(s.files.get(done!.id)?.servicePath).toBe('old/done.pdf');
    expect(s.files.get(unnamed!.id)?.servicePath).toBeNull();
    expect(s.files.get(elsewhere!.id)?.servicePath).toBeNull();
    // Already placed: nothing written again.
    expect(s.files.placeBatch(b.id, 'svc-drive/b/17')).toBe(0);
  });

  it('countByState() counts every state, 0 when none', () => {
    const a = seen('/in/1.pdf');
    seen('/in/2.pdf');
    s.files.transition(a.id, 'done');
    const c = s.files.countByState();
    expect(c).toMatchObject({ discovered: 1, done: 1, failed: 0, uploading: 0 });
    expect(Object.keys(c)).toHaveLength(10);
    expect(c.elsewhere).toBe(0);
    expect(s.files.list({ state: 'done' }).map((x) => x.id)).toEqual([a.id]);
  });
});

describe('multipart sessions: an upload resumes after a crash', () => {
  it('the open session and its acknowledged parts are found again after re-opening', () => {
    const f = seen('/in/big.pdf');
    const m = s.files.startMultipart({ fileId: f.id, sessionId: 'mp-1', servicePath: 'svc-drive/b/big.pdf', partSize: 65536, fileSize: 200_000, mtimeMs: 77.5 });
    s.files.recordPart(m.id, { partNum: 1, partId: 'p-a', size: 65536 });
    s.files.recordPart(m.id, { partNum: 2, partId: 'p-b', size: 65536 });
    s.files.recordPart(m.id, { partNum: 2, partId: 'p-b2', size: 65536 }); // re-sent after a timeout: replaces
    s.close();

    const again = t.open();
    const open = again.files.openMultipart(f.id);
    expect(open).toMatchObject({ sessionId: 'mp-1', partSize: 65536, fileSize: 200_000, mtimeMs: 77, completedMs: null, abortedMs: null });
    expect(open?.parts.map((p) => [p.partNum, p.partId])).toEqual([[1, 'p-a'], [2, 'p-b2']]);
    again.files.abortMultipart(open!.id);
    expect(again.files.openMultipart(f.id)).toBeUndefined();
    const next = again.files.startMultipart({ fileId: f.id, sessionId: 'mp-2', servicePath: 'svc-drive/b/big.pdf', partSize: 65536, fileSize: 200_000, mtimeMs: 77 });
    expect(again.files.openMultipart(f.id)?.sessionId).toBe('mp-2');
    again.files.completeMultipart(next.id);
    expect(again.files.openMultipart(f.id)).toBeUndefined();
    expect(again.files.multipart(m.id)?.abortedMs).not.toBeNull();
  });
});

describe('folders, batches, runs and jobs', () => {
  it('a hot folder keeps its settings JSON; its path is unique; removing it keeps its files', () => {
    const fo = s.folders.add({ path: '/hot/in', deploymentId: 'sandbox-invoices', settings: { recursive: true, ignore: ['*.part'], batching: { quietMs: 10_000 } } });
    expect(s.folders.byPath('/hot/in')?.settings).toEqual({ recursive: true, ignore: ['*.part'], batching: { quietMs: 10_000 } });
    expect(() => s.folders.add({ path: '/hot/in' })).toThrow(/UNIQUE/);
    clock = 2_000;
    expect(s.folders.update(fo.id, { enabled: false, settings: { recursive: false } })).toMatchObject({ enabled: false, deploymentId: 'sandbox-invoices', settings: { recursive: false }, updatedMs: 2_000 });
    const f = seen('/hot/in/a.pdf', fo.id);
    expect(s.folders.remove(fo.id)).toBe(true);
    expect(s.folders.list()).toEqual([]);
    expect(s.files.get(f.id)?.folderId).toBeNull();
  });

  it('a run is recorded once per service id; STOPPED_AT_CHECKPOINT marks it waiting for review; active runs are those still to follow', () => {
    const b = s.runs.addBatch({ folderId: null });
    s.runs.setBatchService(b.id, '17', 'svc-drive/workspaces/team/batches/17');
    s.runs.closeBatch(b.id);
    expect(s.runs.batchByServiceId('17')).toMatchObject({ id: b.id, closedMs: 1_000 });
    expect(s.runs.openBatches()).toEqual([]);

    const r = s.runs.addRun({ serviceRunId: 'run_1', batchId: b.id, deploymentId: 'sandbox-invoices-review' });
    expect(s.runs.addRun({ serviceRunId: 'run_1' }).id).toBe(r.id);
    expect(s.runs.runForBatch(b.id)?.serviceRunId).toBe('run_1');
    expect(s.runs.setRunStatus(r.id, { status: 'STOPPED_AT_CHECKPOINT', startMs: 1_500.4 })).toMatchObject({ reviewWaiting: true, startMs: 1_500 });
    expect(s.runs.activeRuns().map((x) => x.id)).toEqual([r.id]);
    expect(s.runs.setRunStatus(r.id, { status: 'COMPLETE', finishMs: 9_000 })).toMatchObject({ reviewWaiting: false, startMs: 1_500, finishMs: 9_000 });
    expect(s.runs.activeRuns().map((x) => x.id)).toEqual([r.id]); // results not stored yet
    s.runs.markResultsStored(r.id);
    expect(s.runs.activeRuns()).toEqual([]);

    s.runs.addJob({ serviceJobId: 'job-9', kind: 'delete-run', runId: r.id, status: 'PENDING' });
    expect(s.runs.pendingJobs().map((j) => j.serviceJobId)).toEqual(['job-9']);
    s.runs.setJobStatus('job-9', 'COMPLETE');
    expect(s.runs.pendingJobs()).toEqual([]);
    expect(s.runs.job('job-9')?.status).toBe('COMPLETE');
  });

  it('the run record the service sent is kept whole, members no view names included (issue 11)', () => {
    const sent = { id: 'run_x', status: 'RUNNING', batch_id: 4, extra: { owner: 'admin', priority: 3, output: { workspace: 'team' } } };
    const r = s.runs.addRun({ serviceRunId: 'run_x', status: 'RUNNING', record: sent });
    expect(r.record).toEqual(sent);
    // Adding the same run again without a record keeps it; a later status brings the newer record.
    expect(s.runs.addRun({ serviceRunId: 'run_x' }).record).toEqual(sent);
    const later = { ...sent, status: 'COMPLETE', extra: { ...sent.extra, priority: 1 } };
    expect(s.runs.setRunStatus(r.id, { status: 'COMPLETE', record: later })?.record).toEqual(later);
    expect(s.runs.setRunStatus(r.id, { status: 'COMPLETE' })?.record).toEqual(later);
    expect(s.runs.addRun({ serviceRunId: 'run_y' }).record).toBeNull();
  });
});
