/**
 * Run results: raw pages (`result_pages`), the normalised rows (`result_files`, `documents`,
 * `fields`, `case_fields`) and downloaded artifacts (`artifacts`).
 *
 * Values keep the service's meaning: a document's page numbers count from 1 as the service's
 * page_numbers do, source coordinates and page layouts from 0; alert levels and locations, edit
 * times (with the text as sent) and chosen fields are kept as read (shared/service/parse-results.ts).
 */
import type { AlertView, CaseInputView, CoordinateView, EditView, ResultsPageView } from '../../../shared/service/index.js';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type BetterSqlite3 from 'better-sqlite3';
import { bit, bool, type Db } from './db.js';
import { searchIndexer } from './search-index.js';
import { SEARCH_BATCH_ROWS } from './search-units.js';

export interface StoredPage {
  pageId: number;
  resultFileIds: number[];
  documents: number;
  fields: number;
  caseFields: number;
}

export interface FieldRow {
  id: number;
  documentId: number;
  name: string;
  value: string | null;
  type: string | null;
  errorMsg: string | null;
  confidenceModel: number | null;
  confidenceOcr: number | null;
  valid: boolean | null;
  alerts: AlertView[];
  sourceCoordinates: CoordinateView[];
  editHistory: EditView[];
  isError: boolean;
}

export interface DocumentRow {
  id: number;
  resultFileId: number;
  className: string | null;
  /** The service's page_numbers: pages of the file in this document, counted from 1. */
  pageNumbers: number[];
  finalResultPass: boolean | null;
  classificationConfidence: number | null;
  reviewCompleted: boolean | null;
  postProcessedPdfPath: string | null;
  fields: FieldRow[];
}

export interface ResultFileRow {
  id: number;
  runId: number;
  /** The local file uploaded as input_file_path, when known. */
  fileId: number | null;
  originalFileName: string | null;
  inputFilePath: string | null;
  documents: DocumentRow[];
}

export interface CaseFieldRow {
  id: number;
  name: string;
  value: string | null;
  /** The input the value was taken from, as the service sent it (an object like the items of inputFields). */
  chosenField: CaseInputView | null;
  errorMsg: string | null;
  valid: boolean | null;
  failures: { type: string | null; msg: string | null }[];
  inputFields: CaseInputView[];
}

export interface ArtifactRow {
  id: number;
  runId: number | null;
  documentId: number | null;
  servicePath: string;
  localPath: string;
  size: number;
  complete: boolean;
  createdMs: number;
  updatedMs: number;
}

interface RawField {
  id: number; document_id: number; name: string; value: string | null; type: string | null; error_msg: string | null; confidence_model: number | null;
  confidence_ocr: number | null; valid: number | null; alerts_json: string; source_coordinates_json: string; edit_history_json: string; is_error: number;
}
interface RawDoc {
  id: number; result_file_id: number; class_name: string | null; page_numbers_json: string; final_result_pass: number | null;
  classification_confidence: number | null; review_completed: number | null; post_processed_pdf_path: string | null;
}
interface RawResultFile { id: number; run_id: number; file_id: number | null; original_file_name: string | null; input_file_path: string | null }
interface RawCase { id: number; name: string; value: string | null; chosen_field: string | null; error_msg: string | null; valid: number | null; failures_json: string; input_fields_json: string }
interface RawArtifact { id: number; run_id: number | null; document_id: number | null; service_path: string; local_path: string; size: number; complete: number; created_ms: number; updated_ms: number }

const parse = <T>(s: string): T => JSON.parse(s) as T;
/** How a page's body is deflated (migration 018): level 1, the fastest; JSON compresses well at any level. */
const RAW_DEFLATE = { level: 1 } as const;
/** A stored page's body as received: inflated, or as text when stored before migration 018. */
const pageText = (p: { raw_json: string; raw_deflated: Buffer | null }): string => (p.raw_deflated === null ? p.raw_json : inflateRawSync(p.raw_deflated).toString('utf8'));
/** A field's list as bound: most are empty or absent, NULL then (the column's default, '[]', in FIELD_VALUES). */
const listOrNull = (xs: readonly unknown[] | undefined): string | null => (xs === undefined || xs.length === 0 ? null : JSON.stringify(xs));
/** Fields per INSERT statement (results.ts, storing a page). */
export const FIELD_ROWS = 50;
const FIELD_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?, coalesce(?, '[]'), coalesce(?, '[]'), coalesce(?, '[]'), ?)";

/** case_fields.chosen_field: JSON of the object (migration 006); a bare name (never written since) reads as its refined_phrase_name. */
function chosen(s: string | null): CaseInputView | null {
  if (s === null) return null;
  try {
    const v = JSON.parse(s) as unknown;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as CaseInputView;
  } catch {
    // not JSON: a bare name
  }
  return { record_index: null, refined_phrase_name: s };
}
const field = (r: RawField): FieldRow => ({
  id: r.id, documentId: r.document_id, name: r.name, value: r.value, type: r.type, errorMsg: r.error_msg, confidenceModel: r.confidence_model,
  confidenceOcr: r.confidence_ocr, valid: bool(r.valid), alerts: parse(r.alerts_json), sourceCoordinates: parse(r.source_coordinates_json),
  editHistory: parse(r.edit_history_json), isError: r.is_error === 1,
});
const artifact = (r: RawArtifact): ArtifactRow => ({
  id: r.id, runId: r.run_id, documentId: r.document_id, servicePath: r.service_path, localPath: r.local_path, size: r.size, complete: r.complete === 1,
  createdMs: r.created_ms, updatedMs: r.updated_ms,
});

/** A field whose extraction failed: value "ERROR" (spec 2.8) or an error message. */
export const isErrorField = (f: { value: string | null; error_msg: string | null }): boolean => f.value === 'ERROR' || (f.error_msg !== null && f.error_msg !== '');

/** For a store between migrations 011 and 018 (search-index.ts); from 019 the store indexes into its search file (open.ts). */
export interface IndexingOptions {
  /** Fields waiting before storing a page also indexes them for search; default SEARCH_BATCH_ROWS. */
  searchBatchRows?: number;
  /** Milliseconds without another page stored before what waits is indexed anyway; default 1000. */
  searchIdleMs?: number;
}

export function resultsQueries(db: Db, now: () => number = Date.now, o: IndexingOptions = {}) {
  const delPage = db.prepare<[number, number]>('DELETE FROM result_pages WHERE run_id = ? AND file_offset = ?');
  // The body deflated, raw_json '' (migration 018); as text in a store before 018 (opened by the migration tests).
  const deflated = db.prepare("SELECT 1 FROM pragma_table_info('result_pages') WHERE name = 'raw_deflated'").get() !== undefined;
  const insPage = db.prepare<[number, number, Buffer | string, number], { id: number }>(deflated
    ? "INSERT INTO result_pages (run_id, file_offset, raw_json, raw_deflated, fetched_ms) VALUES (?, ?, '', ?, ?) RETURNING id"
    : 'INSERT INTO result_pages (run_id, file_offset, raw_json, fetched_ms) VALUES (?, ?, ?, ?) RETURNING id');
  const rawBody = (text: string): Buffer | string => (deflated ? deflateRawSync(text, RAW_DEFLATE) : text);
  // Two services may use the same paths (both number batches from 1): a file of the run's own batch first.
  const localFile = db.prepare<[string, number], { id: number }>(
    `SELECT id FROM files WHERE service_path = ?
      ORDER BY batch_id IS (SELECT batch_id FROM runs WHERE id = ?) DESC, id DESC LIMIT 1`);
  const insFile = db.prepare<[number, number, number, number | null, string | null, string | null], { id: number }>(
    'INSERT INTO result_files (page_id, run_id, idx, file_id, original_file_name, input_file_path) VALUES (?, ?, ?, ?, ?, ?) RETURNING id');
  const insDoc = db.prepare<[number, number, string | null, string, number | null, number | null, number | null, string | null], { id: number }>(
    `INSERT INTO documents (result_file_id, idx, class_name, page_numbers_json, final_result_pass, classification_confidence, review_completed, post_processed_pdf_path)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`);
  // A page's fields in statements of up to FIELD_ROWS rows: one statement per field was the
  // largest part of storing a page after the search index (per-statement and per-binding costs in
  // better-sqlite3; bench/README.md, "Store ingest, fifth round"). Rows keep their order, so a
  // document's fields get ascending ids as before. An empty list is bound as NULL (no string to
  // convert) and stored as the column's '[]'.
  const fieldRows = new Map<number, BetterSqlite3.Statement<unknown[]>>();
  const insFields = (n: number): BetterSqlite3.Statement<unknown[]> => {
    let st = fieldRows.get(n);
    if (st === undefined) {
      st = db.prepare<unknown[]>(
        `INSERT INTO fields (document_id, idx, name, value, type, error_msg, confidence_model, confidence_ocr, valid, alerts_json, source_coordinates_json, edit_history_json, is_error)
         VALUES ${Array.from({ length: n }, () => FIELD_VALUES).join(', ')}`);
      fieldRows.set(n, st);
    }
    return st;
  };
  const insCase = db.prepare<[number, number, number, string, string | null, string | null, string | null, number | null, string, string]>(
    `INSERT INTO case_fields (page_id, run_id, idx, name, value, chosen_field, error_msg, valid, failures_json, input_fields_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);

  // A store between 011 and 018 (the migration tests) indexes here, as its code did; from 019 the
  // store indexes into its search file (open.ts, search-worker.ts) and `index` is undefined.
  const index = searchIndexer(db);
  const batchRows = o.searchBatchRows ?? SEARCH_BATCH_ROWS;
  // Once storing pauses (a run's results complete, the app idle), what waits is indexed. Unref'd:
  // it never keeps the process alive; a search or the next open catches up instead.
  let idle: NodeJS.Timeout | undefined;
  const whenIdle = (): void => {
    if (index === undefined) return;
    clearTimeout(idle);
    idle = setTimeout(() => {
      // A failure (the store closed, another connection holding the lock) leaves the rows waiting
      // for the next search or open, which catch up before anything reads the index.
      try {
        if (db.open) index?.catchUp();
      } catch {
        // as said
      }
    }, o.searchIdleMs ?? 1000).unref();
  };

  const rawPages = db.prepare<[number], { file_offset: number; raw_json: string; raw_deflated: Buffer | null }>(
    `SELECT file_offset, raw_json, ${deflated ? 'raw_deflated' : 'NULL AS raw_deflated'} FROM result_pages WHERE run_id = ? ORDER BY file_offset`);
  const filesOfRun = db.prepare<[number], RawResultFile>(
    `SELECT rf.id, rf.run_id, rf.file_id, rf.original_file_name, rf.input_file_path FROM result_files rf JOIN result_pages p ON p.id = rf.page_id
     WHERE rf.run_id = ? ORDER BY p.file_offset, rf.idx`);
  const filesOfLocal = db.prepare<[number], RawResultFile>('SELECT id, run_id, file_id, original_file_name, input_file_path FROM result_files WHERE file_id = ? ORDER BY id');
  const docsOf = db.prepare<[number], RawDoc>('SELECT * FROM documents WHERE result_file_id = ? ORDER BY idx');
  const fieldsOf = db.prepare<[number], RawField>('SELECT * FROM fields WHERE document_id = ? ORDER BY idx');
  const pdfsOfRun = db.prepare<[number], { id: number; post_processed_pdf_path: string }>(
    `SELECT d.id, d.post_processed_pdf_path FROM documents d JOIN result_files rf ON rf.id = d.result_file_id JOIN result_pages p ON p.id = rf.page_id
     WHERE rf.run_id = ? AND d.post_processed_pdf_path IS NOT NULL ORDER BY p.file_offset, rf.idx, d.idx`);
  const otherCases = db.prepare<[number, number]>('DELETE FROM case_fields WHERE run_id = ? AND page_id <> ?');
  const casesOf = db.prepare<[number], RawCase>(
    'SELECT c.* FROM case_fields c JOIN result_pages p ON p.id = c.page_id WHERE c.run_id = ? ORDER BY p.file_offset, c.idx');
  const errorsOf = db.prepare<[number], RawField>(
    `SELECT f.* FROM fields f JOIN documents d ON d.id = f.document_id JOIN result_files rf ON rf.id = d.result_file_id
     WHERE rf.run_id = ? AND f.is_error = 1 ORDER BY f.id`);

  const insArtifact = db.prepare<[number | null, number | null, string, string, number, number], RawArtifact>(
    `INSERT INTO artifacts (run_id, document_id, service_path, local_path, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (service_path, local_path) DO UPDATE SET run_id = coalesce(excluded.run_id, artifacts.run_id),
       document_id = coalesce(excluded.document_id, artifacts.document_id) RETURNING *`);
  const setArtifact = db.prepare<[number, number, number, number], RawArtifact>('UPDATE artifacts SET size = ?, complete = ?, updated_ms = ? WHERE id = ? RETURNING *');
  const incomplete = db.prepare<[], RawArtifact>('SELECT * FROM artifacts WHERE complete = 0 ORDER BY id');
  const artifactsOf = db.prepare<[number], RawArtifact>('SELECT * FROM artifacts WHERE run_id = ? ORDER BY id');

  const store = db.transaction((runId: number, raw: unknown, page: ResultsPageView, fileOffset: number, rawText: string | undefined): StoredPage => {
    delPage.run(runId, fileOffset);
    const pageId = insPage.get(runId, fileOffset, rawBody(rawText ?? JSON.stringify(raw)), now())!.id;
    const out: StoredPage = { pageId, resultFileIds: [], documents: 0, fields: 0, caseFields: 0 };
    const values: unknown[] = [];
    let rows = 0;
    const flush = (): void => {
      if (rows > 0) insFields(rows).run(values);
      values.length = 0;
      rows = 0;
    };
    page.files.forEach((f, i) => {
      const local = f.input_file_path === null ? undefined : localFile.get(f.input_file_path, runId);
      const rfId = insFile.get(pageId, runId, i, local?.id ?? null, f.original_file_name, f.input_file_path)!.id;
      out.resultFileIds.push(rfId);
      f.documents.forEach((d, k) => {
        const docId = insDoc.get(rfId, k, d.class_name, JSON.stringify(d.page_numbers), bit(d.validations?.final_result_pass),
          d.classification_confidence?.model ?? null, bit(d.review_completed), d.post_processed_pdf_path ?? null)!.id;
        out.documents++;
        d.fields.forEach((x, n) => {
          if (rows === FIELD_ROWS) flush();
          values.push(docId, n, x.field_name, x.value, x.type, x.error_msg, x.confidence?.model ?? null, x.confidence?.ocr ?? null,
            bit(x.validations?.valid), listOrNull(x.validations?.alerts), listOrNull(x.source_coordinates), listOrNull(x.edit_history), isErrorField(x) ? 1 : 0);
          rows++;
          out.fields++;
        });
      });
    });
    flush();
    // case_info is the run's, sent whole with every page: the newest page's copy replaces the one
    // stored with an earlier page, or a run of 25 pages would list each case field 25 times. (The
    // client reads it from a run's last page only: the others come with none, migration 017.)
    if (page.case_info.fields.length > 0) otherCases.run(runId, pageId);
    page.case_info.fields.forEach((c, i) => {
      insCase.run(pageId, runId, i, c.name, c.value, c.chosen_field === null ? null : JSON.stringify(c.chosen_field), c.error_msg, bit(c.validations?.valid),
        JSON.stringify(c.validations?.failures ?? []), JSON.stringify(c.input_fields));
      out.caseFields++;
    });
    // Before 019 (search-index.ts): indexed for search in large units, now when enough wait, else later.
    index?.maybeCatchUp(batchRows);
    return out;
  });

  const resultFile = (r: RawResultFile): ResultFileRow => ({
    id: r.id, runId: r.run_id, fileId: r.file_id, originalFileName: r.original_file_name, inputFilePath: r.input_file_path,
    documents: docsOf.all(r.id).map((d) => ({
      id: d.id, resultFileId: d.result_file_id, className: d.class_name, pageNumbers: parse<number[]>(d.page_numbers_json),
      finalResultPass: bool(d.final_result_pass), classificationConfidence: d.classification_confidence, reviewCompleted: bool(d.review_completed),
      postProcessedPdfPath: d.post_processed_pdf_path, fields: fieldsOf.all(d.id).map(field),
    })),
  });

  return {
    /**
     * Stores one results page of run `runId` (local runs.id) fetched at `fileOffset`: the raw JSON
     * (deflated, migration 018) and its normalised rows, in one transaction. Storing the same
     * (run, file_offset) again replaces the earlier copy (e.g. results re-fetched after a review).
     * `rawText`, the body `raw` was parsed from, is stored as received when given, instead of
     * serialising `raw` again; a run's pages before the last come with their case_info as null
     * (service/results.ts), so only one page of a run keeps it whole (migration 017).
     */
    storeResultsPage: (runId: number, raw: unknown, page: ResultsPageView, fileOffset = 0, rawText?: string): StoredPage => {
      const out = store.immediate(runId, raw, page, fileOffset, rawText);
      whenIdle();
      return out;
    },
    /** Makes every stored result searchable now (search does this itself before it reads; openStore replaces this with its search file's). */
    indexForSearch: (): void => {
      clearTimeout(idle);
      index?.catchUp();
    },
    /** Stops the idle timer (the store closing). */
    stopIndexing: (): void => clearTimeout(idle),
    /** The raw pages of a run, by file_offset. */
    rawPages(runId: number): { fileOffset: number; raw: unknown }[] {
      return rawPages.all(runId).map((p) => ({ fileOffset: p.file_offset, raw: JSON.parse(pageText(p)) as unknown }));
    },
    /** The result files of a run in service order, with their documents and fields. */
    filesOfRun(runId: number): ResultFileRow[] {
      return filesOfRun.all(runId).map(resultFile);
    },
    /** The documents of a run with a post-processed PDF, in service order: what storing a run downloads, without reading its fields. */
    postProcessedPdfsOfRun(runId: number): { documentId: number; path: string }[] {
      return pdfsOfRun.all(runId).map((d) => ({ documentId: d.id, path: d.post_processed_pdf_path }));
    },
    /** Every result stored for a local file (one per run that processed it). */
    resultsOfFile(fileId: number): ResultFileRow[] {
      return filesOfLocal.all(fileId).map(resultFile);
    },
    caseFields(runId: number): CaseFieldRow[] {
      return casesOf.all(runId).map((c) => ({
        id: c.id, name: c.name, value: c.value, chosenField: chosen(c.chosen_field), errorMsg: c.error_msg, valid: bool(c.valid),
        failures: parse(c.failures_json), inputFields: parse(c.input_fields_json),
      }));
    },
    /** Fields of a run whose extraction failed. */
    errorFields(runId: number): FieldRow[] {
      return errorsOf.all(runId).map(field);
    },

    /** Records a download about to start (idempotent on service path + local path). */
    addArtifact(a: { runId?: number | null; documentId?: number | null; servicePath: string; localPath: string }): ArtifactRow {
      const t = now();
      return artifact(insArtifact.get(a.runId ?? null, a.documentId ?? null, a.servicePath, a.localPath, t, t)!);
    },
    /** Records the bytes written so far, and whether the download is complete. */
    setArtifactProgress(id: number, size: number, complete: boolean): ArtifactRow | undefined {
      const r = setArtifact.get(size, complete ? 1 : 0, now(), id);
      return r && artifact(r);
    },
    incompleteArtifacts(): ArtifactRow[] {
      return incomplete.all().map(artifact);
    },
    artifactsOfRun(runId: number): ArtifactRow[] {
      return artifactsOf.all(runId).map(artifact);
    },
  };
}

export type ResultsQueries = ReturnType<typeof resultsQueries>;
