import Database from 'better-sqlite3';

/**
 * The sandbox's durable state. File bytes live on disk under the data folder; this database
 * holds everything else, so a restart with the same --data finds batches, sessions, runs,
 * results, jobs, secrets and the audit log as they were.
 */
export type Db = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS drives (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL,            -- 'own' | 'object' | 'document'
  connected INTEGER NOT NULL,
  is_default INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  workspace TEXT NOT NULL,
  mount_point TEXT NOT NULL,
  owner TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  batch_id INTEGER NOT NULL,
  filename TEXT NOT NULL,
  file_size INTEGER NOT NULL,
  part_size INTEGER NOT NULL,
  owner TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS parts (
  session_id TEXT NOT NULL,
  part_num INTEGER NOT NULL,
  part_id TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (session_id, part_num)
);
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  target TEXT NOT NULL,          -- JSON: what the job works on
  state TEXT NOT NULL,
  message TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  app_id TEXT NOT NULL,
  app_name TEXT NOT NULL,
  deployment_id TEXT,
  version TEXT NOT NULL,
  output_workspace TEXT NOT NULL,
  output_dir TEXT NOT NULL,
  batch_id INTEGER,
  input_dir TEXT,
  input_paths TEXT NOT NULL,     -- JSON: service paths of the input files, fixed at start
  status TEXT NOT NULL,
  msg TEXT,
  start_ns INTEGER NOT NULL,
  finish_ns INTEGER,
  tags TEXT,                     -- JSON array or NULL
  settings TEXT NOT NULL,        -- JSON: run settings as given
  custom_keys TEXT NOT NULL,     -- JSON: deployment keys merged with overrides
  review INTEGER NOT NULL,       -- 1 when the run stops for review on a failed validation
  review_completed INTEGER NOT NULL DEFAULT 0,
  case_info TEXT                 -- JSON, once all files are processed
);
CREATE INDEX IF NOT EXISTS runs_start ON runs(start_ns);
CREATE TABLE IF NOT EXISTS run_files (
  run_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  result TEXT NOT NULL,          -- JSON: the file's full result, every block filled
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS secrets (
  alias TEXT PRIMARY KEY,
  description TEXT NOT NULL,
  value TEXT NOT NULL,
  scope TEXT NOT NULL,
  workspaces TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  last_updated_by TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts_ms INTEGER NOT NULL,
  email TEXT NOT NULL,
  user_ip TEXT NOT NULL,
  log_type TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  status INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_ts ON audit(ts_ms);
`;

export const DRIVES = [
  { name: 'svc-drive', kind: 'own' },
  { name: 'object-drive', kind: 'object' },
  { name: 'docs-drive', kind: 'document' },
] as const;

export function openDb(path: string): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const insert = db.prepare('INSERT OR IGNORE INTO drives (name, kind, connected, is_default) VALUES (?, ?, 1, ?)');
  for (const d of DRIVES) insert.run(d.name, d.kind, d.name === 'svc-drive' ? 1 : 0);
  return db;
}
