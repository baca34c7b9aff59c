import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CONNECTION_FILE } from '../../config/connection.js';
import type { Db } from '../db.js';

/**
 * 005: what the store keeps of a service is keyed by the service it came from. Two services number
 * their batches (and may number runs and jobs) alike: the built-in sandbox's batch 1 and the real
 * service's batch 1 are different batches, so `service_batch_id`, `service_run_id` and
 * `service_job_id` are unique per service, not across the store (001 made them unique alone).
 *
 * - `services`: one row per service: its URL and context, or the built-in sandbox (whose address
 *   changes with every start, so it is one service whatever its port; `url` is its last address).
 * - `batches.service_id`: the service the batch was created on (null until it is created).
 * - `runs.service_id`, `jobs.service_id`: the service they run on.
 * - `multipart_sessions.service_id`: the service holding the session (a session is never resumed
 *   on another service).
 *
 * Rows already in an upgraded store were made by the one service the store knew: the service of
 * the saved connection (`connection.json` beside the database), or the built-in sandbox when there
 * is none. (A store used only through DOCSYNC_URL has no saved connection: its rows are taken for
 * the built-in sandbox's; its unfinished batches are then uploaded again to the service in use.)
 *
 * Rebuilding a table another one references needs foreign keys off: migrate() turns them off
 * around the migrations and checks them before each commit.
 */
export function serviceKeys(db: Db): void {
  db.exec(`
    -- The services this store has talked to: URL and context (empty: none), or the built-in sandbox.
    CREATE TABLE services (
      id         INTEGER PRIMARY KEY,
      url        TEXT    NOT NULL,
      context    TEXT    NOT NULL DEFAULT '',
      built_in   INTEGER NOT NULL DEFAULT 0 CHECK (built_in IN (0, 1)),
      created_ms INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX services_key ON services (built_in, CASE built_in WHEN 1 THEN '' ELSE url END, context);

    CREATE TABLE batches_new (
      id               INTEGER PRIMARY KEY,
      service_batch_id TEXT,
      folder_id        INTEGER REFERENCES folders(id) ON DELETE SET NULL,
      service_path     TEXT,
      created_ms       INTEGER NOT NULL,
      closed_ms        INTEGER,
      deleted_ms       INTEGER,
      name             TEXT,
      plan             TEXT,
      service_id       INTEGER REFERENCES services(id)
    ) STRICT;

    CREATE TABLE runs_new (
      id                  INTEGER PRIMARY KEY,
      service_run_id      TEXT    NOT NULL,
      batch_id            INTEGER REFERENCES batches(id) ON DELETE SET NULL,
      deployment_id       TEXT,
      app_id              TEXT,
      status              TEXT,
      msg                 TEXT,
      review_waiting      INTEGER NOT NULL DEFAULT 0 CHECK (review_waiting IN (0, 1)),
      start_ms            INTEGER,
      finish_ms           INTEGER,
      created_ms          INTEGER NOT NULL,
      updated_ms          INTEGER NOT NULL,
      results_stored_ms   INTEGER,
      deleted_ms          INTEGER,
      service_id          INTEGER REFERENCES services(id)
    ) STRICT;

    CREATE TABLE jobs_new (
      id             INTEGER PRIMARY KEY,
      service_job_id TEXT    NOT NULL,
      kind           TEXT    NOT NULL,
      run_id         INTEGER REFERENCES runs(id) ON DELETE SET NULL,
      batch_id       INTEGER REFERENCES batches(id) ON DELETE SET NULL,
      status         TEXT,
      msg            TEXT,
      created_ms     INTEGER NOT NULL,
      updated_ms     INTEGER NOT NULL,
      service_id     INTEGER REFERENCES services(id)
    ) STRICT;

    ALTER TABLE multipart_sessions ADD COLUMN service_id INTEGER REFERENCES services(id);
  `);

  const legacy = hasServiceRows(db) ? legacyService(db) : null;
  db.prepare(`INSERT INTO batches_new SELECT id, service_batch_id, folder_id, service_path, created_ms, closed_ms, deleted_ms, name, plan,
    CASE WHEN service_batch_id IS NULL THEN NULL ELSE ? END FROM batches`).run(legacy);
  db.prepare(`INSERT INTO runs_new SELECT id, service_run_id, batch_id, deployment_id, app_id, status, msg, review_waiting, start_ms, finish_ms,
    created_ms, updated_ms, results_stored_ms, deleted_ms, ? FROM runs`).run(legacy);
  db.prepare('INSERT INTO jobs_new SELECT id, service_job_id, kind, run_id, batch_id, status, msg, created_ms, updated_ms, ? FROM jobs').run(legacy);
  db.prepare('UPDATE multipart_sessions SET service_id = ?').run(legacy);

  db.exec(`
    DROP TABLE jobs;
    DROP TABLE runs;
    DROP TABLE batches;
    ALTER TABLE batches_new RENAME TO batches;
    ALTER TABLE runs_new RENAME TO runs;
    ALTER TABLE jobs_new RENAME TO jobs;

    -- A service's ids are unique within that service. ifnull: rows of no service (not yet created
    -- on one, or written by tests) are one group, so recording the same id twice is still caught.
    CREATE UNIQUE INDEX batches_service_key ON batches (ifnull(service_id, 0), service_batch_id);
    CREATE UNIQUE INDEX runs_service_key ON runs (ifnull(service_id, 0), service_run_id);
    CREATE UNIQUE INDEX jobs_service_key ON jobs (ifnull(service_id, 0), service_job_id);
    CREATE INDEX runs_status ON runs(status);
    CREATE INDEX runs_batch ON runs(batch_id);
  `);
}

function hasServiceRows(db: Db): boolean {
  const r = db.prepare<[], { yes: number }>(`SELECT EXISTS (SELECT 1 FROM batches WHERE service_batch_id IS NOT NULL) OR EXISTS (SELECT 1 FROM runs)
    OR EXISTS (SELECT 1 FROM jobs) OR EXISTS (SELECT 1 FROM multipart_sessions) AS yes`).get();
  return r?.yes === 1;
}

/** The service of the saved connection beside the database, else the built-in sandbox: its services row. */
function legacyService(db: Db): number {
  let saved: { url?: unknown; context?: unknown } | null = null;
  if (db.name !== ':memory:') {
    try {
      saved = JSON.parse(readFileSync(join(dirname(db.name), CONNECTION_FILE), 'utf8')) as { url?: unknown; context?: unknown };
    } catch {
      saved = null; // none, or unreadable: the built-in sandbox
    }
  }
  const url = typeof saved?.url === 'string' ? saved.url : null;
  const context = url !== null && typeof saved?.context === 'string' ? saved.context : '';
  const row = db.prepare<[string, string, number, number], { id: number }>(
    'INSERT INTO services (url, context, built_in, created_ms) VALUES (?, ?, ?, ?) RETURNING id').get(url ?? '', context, url === null ? 1 : 0, Date.now());
  return row!.id;
}
