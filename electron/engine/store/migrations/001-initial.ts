/**
 * 001: the tables of the local store. The store records observations (what was seen on disk, what
 * the service answered, what was downloaded), not a to-do list: what to do next is decided from
 * these facts. No table has a column for the token or any other credential.
 */
import type { Db } from '../db.js';

export function initial(db: Db): void {
  db.exec(`
    -- Hot folders the user configured, and the settings that govern them (patterns, stability and
    -- batching rules, after-success/after-failure actions, run settings) as one JSON object.
    CREATE TABLE folders (
      id            INTEGER PRIMARY KEY,
      path          TEXT    NOT NULL UNIQUE,
      deployment_id TEXT,
      app_id        TEXT,
      settings_json TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(settings_json)),
      enabled       INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
      created_ms    INTEGER NOT NULL,
      updated_ms    INTEGER NOT NULL
    ) STRICT;

    -- Batches created on the service: its batch id, the hot folder the files came from (null for
    -- manual uploads), when it was created and when it was closed (no more files added).
    CREATE TABLE batches (
      id               INTEGER PRIMARY KEY,
      service_batch_id TEXT    UNIQUE,
      folder_id        INTEGER REFERENCES folders(id) ON DELETE SET NULL,
      service_path     TEXT,
      created_ms       INTEGER NOT NULL,
      closed_ms        INTEGER,
      deleted_ms       INTEGER
    ) STRICT;

    -- Every local file seen: where it is, its size, mtime and content hash when last looked at, the
    -- state it has reached in the pipeline, its original and service-safe names, the batch it went
    -- into, and the last error. One row per sighting of a file's content at a path.
    CREATE TABLE files (
      id            INTEGER PRIMARY KEY,
      folder_id     INTEGER REFERENCES folders(id) ON DELETE SET NULL,
      path          TEXT    NOT NULL,
      size          INTEGER NOT NULL,
      mtime_ms      INTEGER NOT NULL,
      sha256        TEXT,
      state         TEXT    NOT NULL CHECK (state IN ('discovered','stable','queued','uploading','uploaded','running','done','failed','skipped')),
      original_name TEXT    NOT NULL,
      safe_name     TEXT,
      batch_id      INTEGER REFERENCES batches(id) ON DELETE SET NULL,
      service_path  TEXT,
      error         TEXT,
      created_ms    INTEGER NOT NULL,
      updated_ms    INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX files_state ON files(state);
    CREATE INDEX files_path ON files(path);
    CREATE INDEX files_folder ON files(folder_id);
    CREATE INDEX files_sha256 ON files(sha256);
    CREATE INDEX files_service_path ON files(service_path);
    CREATE INDEX files_batch ON files(batch_id);

    -- The history of each file's state: every transition with its time and error, written in the
    -- same transaction as the change of files.state.
    CREATE TABLE file_events (
      id         INTEGER PRIMARY KEY,
      file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      from_state TEXT,
      to_state   TEXT    NOT NULL,
      at_ms      INTEGER NOT NULL,
      error      TEXT
    ) STRICT;
    CREATE INDEX file_events_file ON file_events(file_id, id);

    -- Multipart upload sessions opened on the service for a file, with the size and mtime of the
    -- file when the session began (a changed file cannot resume), so an upload resumes after a crash.
    CREATE TABLE multipart_sessions (
      id           INTEGER PRIMARY KEY,
      file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      session_id   TEXT    NOT NULL,
      service_path TEXT    NOT NULL,
      part_size    INTEGER NOT NULL,
      file_size    INTEGER NOT NULL,
      mtime_ms     INTEGER NOT NULL,
      created_ms   INTEGER NOT NULL,
      completed_ms INTEGER,
      aborted_ms   INTEGER
    ) STRICT;
    CREATE INDEX multipart_sessions_file ON multipart_sessions(file_id);

    -- Parts the service acknowledged for a multipart session (number, the service's part id, size).
    CREATE TABLE uploaded_parts (
      session_ref INTEGER NOT NULL REFERENCES multipart_sessions(id) ON DELETE CASCADE,
      part_num    INTEGER NOT NULL,
      part_id     TEXT    NOT NULL,
      size        INTEGER NOT NULL,
      at_ms       INTEGER NOT NULL,
      PRIMARY KEY (session_ref, part_num)
    ) STRICT;

    -- Runs started on the service: its run id, the batch it processes, the deployment or app, the
    -- last status seen and its timestamps (ms), the service's message, whether it waits for review,
    -- and when all its result pages were stored locally.
    CREATE TABLE runs (
      id                  INTEGER PRIMARY KEY,
      service_run_id      TEXT    NOT NULL UNIQUE,
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
      deleted_ms          INTEGER
    ) STRICT;
    CREATE INDEX runs_status ON runs(status);
    CREATE INDEX runs_batch ON runs(batch_id);

    -- Asynchronous jobs the service started for us (e.g. deleting a batch or a run), with their
    -- last status seen.
    CREATE TABLE jobs (
      id             INTEGER PRIMARY KEY,
      service_job_id TEXT    NOT NULL UNIQUE,
      kind           TEXT    NOT NULL,
      run_id         INTEGER REFERENCES runs(id) ON DELETE SET NULL,
      batch_id       INTEGER REFERENCES batches(id) ON DELETE SET NULL,
      status         TEXT,
      msg            TEXT,
      created_ms     INTEGER NOT NULL,
      updated_ms     INTEGER NOT NULL
    ) STRICT;

    -- Each results page of a run exactly as received (JSON), keyed by the file_offset it was asked at.
    CREATE TABLE result_pages (
      id          INTEGER PRIMARY KEY,
      run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      file_offset INTEGER NOT NULL,
      raw_json    TEXT    NOT NULL,
      fetched_ms  INTEGER NOT NULL,
      UNIQUE (run_id, file_offset)
    ) STRICT;

    -- The files of a results page, in page order, linked to the local file that was uploaded as
    -- input_file_path when it is known.
    CREATE TABLE result_files (
      id                 INTEGER PRIMARY KEY,
      page_id            INTEGER NOT NULL REFERENCES result_pages(id) ON DELETE CASCADE,
      run_id             INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      idx                INTEGER NOT NULL,
      file_id            INTEGER REFERENCES files(id) ON DELETE SET NULL,
      original_file_name TEXT,
      input_file_path    TEXT
    ) STRICT;
    CREATE INDEX result_files_page ON result_files(page_id);
    CREATE INDEX result_files_run ON result_files(run_id);
    CREATE INDEX result_files_file ON result_files(file_id);

    -- The documents found in a result file: class, 0-based page numbers (JSON), validation outcome,
    -- classification confidence, review state and the post-processed PDF on the service.
    CREATE TABLE documents (
      id                        INTEGER PRIMARY KEY,
      result_file_id            INTEGER NOT NULL REFERENCES result_files(id) ON DELETE CASCADE,
      idx                       INTEGER NOT NULL,
      class_name                TEXT,
      page_numbers_json         TEXT    NOT NULL DEFAULT '[]',
      final_result_pass         INTEGER,
      classification_confidence REAL,
      review_completed          INTEGER,
      post_processed_pdf_path   TEXT
    ) STRICT;
    CREATE INDEX documents_result_file ON documents(result_file_id);

    -- The extracted fields of a document: value and type, error, confidences, validation outcome
    -- and alerts (JSON), source coordinates (JSON) and edit history (JSON). is_error is 1 when the
    -- extraction failed (value "ERROR" or an error message).
    CREATE TABLE fields (
      id                      INTEGER PRIMARY KEY,
      document_id             INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
      idx                     INTEGER NOT NULL,
      name                    TEXT    NOT NULL,
      value                   TEXT,
      type                    TEXT,
      error_msg               TEXT,
      confidence_model        REAL,
      confidence_ocr          REAL,
      valid                   INTEGER,
      alerts_json             TEXT    NOT NULL DEFAULT '[]',
      source_coordinates_json TEXT    NOT NULL DEFAULT '[]',
      edit_history_json       TEXT    NOT NULL DEFAULT '[]',
      is_error                INTEGER NOT NULL DEFAULT 0 CHECK (is_error IN (0, 1))
    ) STRICT;
    CREATE INDEX fields_document ON fields(document_id);
    CREATE INDEX fields_error ON fields(is_error) WHERE is_error = 1;

    -- The case fields of a results page (case_info.fields): value, chosen field, the input fields
    -- it came from (JSON), validation outcome and failures (JSON).
    CREATE TABLE case_fields (
      id                INTEGER PRIMARY KEY,
      page_id           INTEGER NOT NULL REFERENCES result_pages(id) ON DELETE CASCADE,
      run_id            INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      idx               INTEGER NOT NULL,
      name              TEXT    NOT NULL,
      value             TEXT,
      chosen_field      TEXT,
      error_msg         TEXT,
      valid             INTEGER,
      failures_json     TEXT    NOT NULL DEFAULT '[]',
      input_fields_json TEXT    NOT NULL DEFAULT '[]'
    ) STRICT;
    CREATE INDEX case_fields_run ON case_fields(run_id);
    CREATE INDEX case_fields_page ON case_fields(page_id);

    -- Files downloaded from the service (e.g. post-processed PDFs): service path, where they were
    -- written locally, the bytes written so far, and whether the download completed.
    CREATE TABLE artifacts (
      id           INTEGER PRIMARY KEY,
      run_id       INTEGER REFERENCES runs(id) ON DELETE CASCADE,
      document_id  INTEGER REFERENCES documents(id) ON DELETE SET NULL,
      service_path TEXT    NOT NULL,
      local_path   TEXT    NOT NULL,
      size         INTEGER NOT NULL DEFAULT 0,
      complete     INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1)),
      created_ms   INTEGER NOT NULL,
      updated_ms   INTEGER NOT NULL,
      UNIQUE (service_path, local_path)
    ) STRICT;
    CREATE INDEX artifacts_run ON artifacts(run_id);
  `);
}
