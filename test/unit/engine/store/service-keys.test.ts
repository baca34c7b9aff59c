/**
 * Migration 005 and the service keys (issue 11): service-side ids are unique per service, rows of
 * an upgraded store belong to the saved connection's service (or the built-in sandbox), and the
 * tables rebuilt by the migration keep every row and every reference to them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, openDatabase, serviceLabel } from '../../../../electron/engine/store/index.js';
import { resultsQueries } from '../../../../electron/engine/store/results.js';
import { parseResultsPage } from '../../../../shared/service/index.js';
import { resultsPage, tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
beforeEach(() => { t = tempStore(); });
afterEach(() => t.cleanup());

/** A store at version 4 holding a folder, a batch on the service with a file, a run with results, a job and a multipart session. */
function version4Store(): void {
  const db = openDatabase(t.path);
  migrate(db, MIGRATIONS.slice(0, 4));
  db.exec(`
    INSERT INTO folders (id, path, created_ms, updated_ms) VALUES (1, '/in', 0, 0);
    INSERT INTO batches (id, service_batch_id, folder_id, created_ms, closed_ms, name, plan) VALUES (7, '1', 1, 0, 0, 'docsync-a', '{}');
    INSERT INTO batches (id, folder_id, created_ms, closed_ms, name, plan) VALUES (8, 1, 0, 0, 'docsync-b', '{}');
    INSERT INTO files (id, folder_id, path, size, mtime_ms, state, original_name, batch_id, service_path, created_ms, updated_ms)
      VALUES (3, 1, '/in/a.pdf', 1, 0, 'uploading', 'a.pdf', 7, 'svc-drive/b/1/a.pdf', 0, 0);
    INSERT INTO runs (id, service_run_id, batch_id, created_ms, updated_ms) VALUES (5, 'run_8f2a', 7, 0, 0);
    INSERT INTO jobs (service_job_id, kind, run_id, batch_id, created_ms, updated_ms) VALUES ('job-1', 'delete-run', 5, 7, 0, 0);
    INSERT INTO multipart_sessions (id, file_id, session_id, service_path, part_size, file_size, mtime_ms, created_ms) VALUES (2, 3, 'sess-1', 'p', 1, 1, 0, 0);
    INSERT INTO uploaded_parts (session_ref, part_num, part_id, size, at_ms) VALUES (2, 1, 'part-1', 1, 0);
  `);
  resultsQueries(db).storeResultsPage(5, resultsPage(), parseResultsPage(resultsPage()), 0);
  db.close();
}

describe('migration 005: service keys', () => {
  it('rows of an upgraded store belong to the saved connection; the rebuilt tables keep their rows and the references to them', () => {
    version4Store();
    mkdirSync(dirname(t.path), { recursive: true });
    writeFileSync(join(dirname(t.path), 'connection.json'), JSON.stringify({ url: 'https://svc.example', context: 'acme', account: 'default' }));
    const s = t.open();
    expect(s.services.list()).toMatchObject([{ url: 'https://svc.example', context: 'acme', builtIn: false }]);
    const svc = s.services.list()[0]!.id;
    expect(s.runs.batch(7)).toMatchObject({ serviceBatchId: '1', serviceId: svc, folderId: 1, name: 'docsync-a' });
    // Not yet created on any service: no service either.
    expect(s.runs.batch(8)).toMatchObject({ serviceBatchId: null, serviceId: null });
    expect(s.runs.run(5)).toMatchObject({ serviceRunId: 'run_8f2a', batchId: 7, serviceId: svc });
    expect(s.runs.job('job-1', svc)).toMatchObject({ runId: 5, batchId: 7 });
    expect(s.files.openMultipart(3, svc)).toMatchObject({ sessionId: 'sess-1', parts: [{ partNum: 1, partId: 'part-1' }] });
    // Dropping the old tables ran no ON DELETE action: the file keeps its batch, results their run.
    expect(s.files.get(3)?.batchId).toBe(7);
    expect(s.results.filesOfRun(5)).toHaveLength(2);
    expect(s.search('INV-2026-0042')).toMatchObject([{ runId: 5, serviceRunId: 'run_8f2a', serviceId: svc }]);
    expect(s.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(s.db.pragma('foreign_key_check')).toEqual([]);
  });

  it('without a saved connection the rows are the built-in sandbox\'s; an empty store gets no service row', () => {
    version4Store();
    const s = t.open();
    expect(s.services.list()).toMatchObject([{ builtIn: true }]);
    expect(s.services.label(s.runs.run(5)!.serviceId)).toBe('the sandbox');

    const other = tempStore();
    try {
      expect(other.open().services.list()).toEqual([]);
    } finally {
      other.cleanup();
    }
  });

  it('two services may both have batch 1, run ids and job ids alike; one service may not have them twice', () => {
    const s = t.open();
    const a = s.services.ensure({ url: 'http://127.0.0.1:4001', builtIn: true }).id;
    const b = s.services.ensure({ url: 'https://svc.example' }).id;
    const [x, y, z] = [1, 2, 3].map((n) => s.runs.addBatch({ name: `b${n}` }).id);
    s.runs.setBatchService(x!, '1', null, a);
    s.runs.setBatchService(y!, '1', null, b);
    expect(() => s.runs.setBatchService(z!, '1', null, b)).toThrow(/UNIQUE/);
    expect(s.runs.batchByServiceId('1', b)?.id).toBe(y);

    const ra = s.runs.addRun({ serviceRunId: 'run-1', serviceId: a, batchId: x! });
    const rb = s.runs.addRun({ serviceRunId: 'run-1', serviceId: b, batchId: y! });
    expect(ra.id).not.toBe(rb.id);
    // Recording a service's run again is idempotent, as before.
    expect(s.runs.addRun({ serviceRunId: 'run-1', serviceId: b }).id).toBe(rb.id);
    expect(s.runs.activeRuns(a).map((r) => r.id)).toEqual([ra.id]);
    expect(s.runs.addJob({ serviceJobId: 'j', serviceId: a, kind: 'k' }).id).not.toBe(s.runs.addJob({ serviceJobId: 'j', serviceId: b, kind: 'k' }).id);
  });

  it('the built-in sandbox is one service whatever its port; others are their URL and context', () => {
    const s = t.open();
    const first = s.services.ensure({ url: 'http://127.0.0.1:4001', builtIn: true });
    const again = s.services.ensure({ url: 'http://127.0.0.1:4999', builtIn: true });
    expect(again).toMatchObject({ id: first.id, url: 'http://127.0.0.1:4999' });
    const plain = s.services.ensure({ url: 'http://127.0.0.1:4999' });
    const ctx = s.services.ensure({ url: 'http://127.0.0.1:4999', context: 'acme' });
    expect(new Set([first.id, plain.id, ctx.id]).size).toBe(3);
    expect(s.services.ensure({ url: 'http://127.0.0.1:4999', context: 'acme' }).id).toBe(ctx.id);
    expect([first, plain, ctx].map((r) => serviceLabel(r))).toEqual(['the sandbox', 'http://127.0.0.1:4999', 'http://127.0.0.1:4999 (context acme)']);
    expect(serviceLabel({ url: 'https://svc.example/api', context: null, builtIn: false })).toBe('https://svc.example');
  });
});
