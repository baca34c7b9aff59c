/**
 * When a run started waiting for review (issue 12: "waiting for review (N s)" counted from the run's
 * start). The service's run record has no such time, so the store keeps when it first saw
 * STOPPED_AT_CHECKPOINT (runs.review_since_ms, migration 009) across polls, clears it when the run
 * goes on, and hands it to the queue's rows and the file view. A real SQLite file, a fake clock.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileView } from '../../../../electron/engine/app/views.js';
import { MIGRATIONS, migrate, openDatabase, userVersion, type Store } from '../../../../electron/engine/store/index.js';
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

/** A file running in a run of its batch; returns both ids. */
function running(): { fileId: number; runId: number } {
  const f = s.files.add({ folderId: null, path: '/in/a.pdf', size: 10, mtimeMs: 1, originalName: 'a.pdf' });
  const b = s.runs.addBatch({ name: 'b1' });
  s.files.assign(f.id, { safeName: 'a.pdf', batchId: b.id, servicePath: 'x/a.pdf' });
  for (const to of ['stable', 'queued', 'uploading', 'uploaded', 'running'] as const) s.files.transition(f.id, to);
  const r = s.runs.addRun({ serviceRunId: 'run_1', batchId: b.id, deploymentId: 'sandbox-invoices-review', status: 'RUNNING' });
  return { fileId: f.id, runId: r.id };
}

const row = () => s.browse.queue({}, 0, 1).rows[0];

describe('runs.review_since_ms: since when a run waits for review', () => {
  it('is the first poll that saw STOPPED_AT_CHECKPOINT, kept while it stays so, cleared when the run goes on', () => {
    const { fileId, runId } = running();
    clock = 5_000;
    expect(s.runs.setRunStatus(runId, { status: 'RUNNING', startMs: 1_000 })).toMatchObject({ reviewWaiting: false, reviewSinceMs: null });
    clock = 9_000;
    expect(s.runs.setRunStatus(runId, { status: 'STOPPED_AT_CHECKPOINT' })).toMatchObject({ reviewWaiting: true, reviewSinceMs: 9_000 });
    clock = 60_000;
    expect(s.runs.setRunStatus(runId, { status: 'STOPPED_AT_CHECKPOINT' })).toMatchObject({ reviewWaiting: true, reviewSinceMs: 9_000, updatedMs: 60_000 });
    // The queue's row and the file's view carry it; the file's own time is still its run's start.
    expect(row()).toMatchObject({ reviewWaiting: true, reviewSinceMs: 9_000 });
    expect(fileView(s, s.files.get(fileId)!)).toMatchObject({ reviewWaiting: true, reviewSinceMs: 9_000 });
    expect(row()!.updatedMs).toBeLessThan(9_000);

    clock = 70_000;
    expect(s.runs.setRunStatus(runId, { status: 'RUNNING' })).toMatchObject({ reviewWaiting: false, reviewSinceMs: null });
    expect(row()).toMatchObject({ reviewWaiting: false, reviewSinceMs: null });
    // A second checkpoint counts from itself.
    clock = 80_000;
    expect(s.runs.setRunStatus(runId, { status: 'STOPPED_AT_CHECKPOINT' })).toMatchObject({ reviewSinceMs: 80_000 });
    clock = 90_000;
    expect(s.runs.setRunStatus(runId, { status: 'COMPLETE', finishMs: 90_000 })).toMatchObject({ reviewWaiting: false, reviewSinceMs: null });
  });

  it('a file that is not running shows no review time even when its run waits', () => {
    const { fileId, runId } = running();
    s.runs.setRunStatus(runId, { status: 'STOPPED_AT_CHECKPOINT' });
    s.files.transition(fileId, 'failed', 'stopped');
    expect(row()).toMatchObject({ reviewWaiting: false, reviewSinceMs: null });
    expect(fileView(s, s.files.get(fileId)!)).toMatchObject({ reviewWaiting: false, reviewSinceMs: null });
  });

  it('migration 009: a run already waiting gets the time its status was last seen; others none', () => {
    // A database of its own, at the version before 009 (the one beforeEach opened is current).
    const db = openDatabase(join(t.dir, 'older.db'));
    const v009 = 9;
    migrate(db, MIGRATIONS.slice(0, v009 - 1));
    db.prepare("INSERT INTO runs (service_run_id, status, review_waiting, created_ms, updated_ms) VALUES ('run_w', 'STOPPED_AT_CHECKPOINT', 1, 100, 4_000)").run();
    db.prepare("INSERT INTO runs (service_run_id, status, review_waiting, created_ms, updated_ms) VALUES ('run_r', 'RUNNING', 0, 100, 5_000)").run();
    expect(migrate(db, MIGRATIONS.slice(0, v009))).toEqual([v009]);
    expect(userVersion(db)).toBe(v009);
    expect(db.prepare('SELECT service_run_id AS id, review_since_ms AS since FROM runs ORDER BY runs.id').all()).toEqual([
      { id: 'run_w', since: 4_000 },
      { id: 'run_r', since: null },
    ]);
    db.close();
  });
});
