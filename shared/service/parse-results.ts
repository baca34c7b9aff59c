/**
 * Lenient reading of a run results page (spec 2.8, service-shapes.md "Run results" and
 * "Corrections after checking against the published description"). Pure.
 * The typed view below is what the engine uses; the raw JSON is kept beside it by the client
 * (`{ raw, page }`), and `raw.files[i]` is always the source of `page.files[i]` (nothing is
 * reordered or dropped), so fields this view does not know stay reachable.
 *
 * Rules: ids may be numbers or strings; timestamps may be null or 0 ("not yet"), epoch numbers in
 * any unit, or date strings, and are given in the unit the spec names (run times in ns, edit times
 * in ms, date strings without a zone as UTC); optional blocks that come as null, {} or [] are
 * absent (list blocks keep []); enum values are read in either case; the run status, a closed set
 * the engine acts on, becomes null when unknown (see the raw JSON), while descriptive enum-like
 * strings (alert_level, type) are open: kept as sent. Page numbers keep the service's meaning:
 * a document's page_numbers count from 1, page_layouts and source_coordinates from 0.
 */
import {
  bool, block, enumOf, id, int, isObject, list, listBlock, need, num, openEnum, preview, ShapeError, str, strOrNull, timestamp,
  type JsonObject, type Open,
} from './lenient.js';
import { RUN_STATUSES, type RunStatus } from './runs.js';

/** Alert levels known by name; any other level is kept as sent. `FAILURE` is the real service's. */
export const ALERT_LEVELS = ['FAILURE', 'ERROR', 'WARNING', 'INFO'] as const;
export type AlertLevel = Open<(typeof ALERT_LEVELS)[number]>;

export interface EditView {
  /** Unix milliseconds (a zone-less string such as `08/27/2025 00:58:39` is UTC), or null when missing or unreadable. */
  timestamp: number | null;
  /** The timestamp exactly as sent (numbers written out), or null when there was none. */
  timestamp_text: string | null;
  user_id: string | null;
  modifications: { message: string | null }[];
}

/** An alert's location as sent: an object (the service's form) or, in older payloads, a field name. */
export type AlertLocationView = JsonObject | string;

export interface AlertView {
  /** Open: `FAILURE` on the real service; known levels in upper case, others as sent. */
  alert_level: AlertLevel | null;
  msg: string | null;
  blocked: boolean | null;
  type: string | null;
  locations: AlertLocationView[];
}

export interface CoordinateView {
  top_x: number | null;
  top_y: number | null;
  bottom_x: number | null;
  bottom_y: number | null;
  /** 0-based page of the file. */
  page_number: number | null;
}

export interface FieldView {
  field_name: string;
  /** "ERROR" when extraction failed; null when the payload had none. */
  value: string | null;
  /** Upper case (e.g. TEXT). */
  type: string | null;
  error_msg: string | null;
  confidence?: { model: number | null; ocr: number | null };
  source_coordinates?: CoordinateView[];
  edit_history?: EditView[];
  validations?: { valid: boolean | null; alerts: AlertView[] };
}

export interface PageLayoutView {
  /** 0-based page of the file. */
  page_number: number | null;
  width: number | null;
  height: number | null;
}

export interface DocumentView {
  class_name: string | null;
  /** The pages of the file in this document as the service numbers them: counted from 1. */
  page_numbers: number[];
  fields: FieldView[];
  page_layouts?: PageLayoutView[];
  post_processed_paths?: string[];
  post_processed_pdf_path?: string | null;
  review_completed?: boolean | null;
  class_edit_history?: EditView[];
  validations?: { final_result_pass: boolean | null };
  classification_confidence?: { model: number | null };
}

export interface FileView {
  original_file_name: string | null;
  input_file_path: string | null;
  documents: DocumentView[];
}

/** An item of input_fields, or chosen_field; members this view does not name are kept. */
export interface CaseInputView {
  record_index: number | null;
  refined_phrase_name: string | null;
  [other: string]: unknown;
}

export interface CaseFieldView {
  name: string;
  value: string | null;
  input_fields: CaseInputView[];
  /** An object like the items of input_fields (a bare string from older payloads is read as its refined_phrase_name). */
  chosen_field: CaseInputView | null;
  error_msg: string | null;
  edit_history?: EditView[];
  validations?: { valid: boolean | null; failures: { type: string | null; msg: string | null }[] };
}

export interface ResultsPageView {
  id: string | null;
  /** null when the payload's status is not one of spec 2.6 (see the raw JSON). */
  status: RunStatus | null;
  message: string | null;
  /** Unix nanoseconds; null when absent or 0. */
  start_timestamp: number | null;
  finish_timestamp: number | null;
  /** As a string: the results body sends "1235" (run records send an integer). */
  batch_id: string | null;
  files: FileView[];
  keys: { custom: Record<string, unknown> };
  case_info: { fields: CaseFieldView[] };
  review_completed: boolean | null;
  has_more: boolean;
}

const nullable = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const objects = (v: unknown): JsonObject[] => list(v).filter(isObject);
const strings = (v: unknown): string[] => list(v).map(str).filter((s): s is string => s !== undefined);

function edits(v: unknown): EditView[] | undefined {
  const l = listBlock(v);
  if (!l) return undefined;
  return l.filter(isObject).map((e) => ({
    timestamp: nullable(timestamp(e.timestamp, 'ms')),
    timestamp_text: strOrNull(e.timestamp),
    user_id: nullable(id(e.user_id)),
    modifications: objects(e.modifications).map((m) => ({ message: strOrNull(m.message) })),
  }));
}

function alerts(v: unknown): AlertView[] {
  return objects(v).map((a) => ({
    alert_level: nullable(openEnum(a.alert_level, ALERT_LEVELS)),
    msg: strOrNull(a.msg),
    blocked: nullable(bool(a.blocked)),
    type: strOrNull(a.type),
    locations: list(a.locations).filter((l): l is AlertLocationView => isObject(l) || (typeof l === 'string' && l !== '')),
  }));
}

function caseInput(x: unknown): CaseInputView | null {
  if (typeof x === 'string') return x === '' ? null : { record_index: null, refined_phrase_name: x };
  if (!isObject(x)) return null;
  return { ...x, record_index: nullable(int(x.record_index)), refined_phrase_name: strOrNull(x.refined_phrase_name) };
}

function field(f: JsonObject, where: string): FieldView {
  const out: FieldView = {
    field_name: need(str(f.field_name), `${where}.field_name`, f.field_name),
    value: strOrNull(f.value),
    type: str(f.type)?.toUpperCase() ?? null,
    error_msg: strOrNull(f.error_msg),
  };
  const conf = block(f.confidence);
  if (conf) out.confidence = { model: nullable(num(conf.model)), ocr: nullable(num(conf.ocr)) };
  const coords = listBlock(f.source_coordinates);
  if (coords) {
    out.source_coordinates = coords.filter(isObject).map((c) => ({
      top_x: nullable(num(c.top_x)),
      top_y: nullable(num(c.top_y)),
      bottom_x: nullable(num(c.bottom_x)),
      bottom_y: nullable(num(c.bottom_y)),
      page_number: nullable(int(c.page_number)),
    }));
  }
  const history = edits(f.edit_history);
  if (history) out.edit_history = history;
  const val = block(f.validations);
  if (val) out.validations = { valid: nullable(bool(val.valid)), alerts: alerts(val.alerts) };
  return out;
}

function document(d: JsonObject, where: string): DocumentView {
  const out: DocumentView = {
    class_name: strOrNull(d.class_name),
    page_numbers: list(d.page_numbers).map(int).filter((n): n is number => n !== undefined),
    fields: objects(d.fields).map((f, i) => field(f, `${where}.fields[${i}]`)),
  };
  const layouts = listBlock(d.page_layouts);
  if (layouts) {
    out.page_layouts = layouts.filter(isObject).map((l) => ({
      page_number: nullable(int(l.page_number)),
      width: nullable(num(l.width)),
      height: nullable(num(l.height)),
    }));
  }
  const paths = listBlock(d.post_processed_paths);
  if (paths) out.post_processed_paths = strings(paths);
  if (d.post_processed_pdf_path !== undefined) out.post_processed_pdf_path = strOrNull(d.post_processed_pdf_path) || null;
  if ('review_completed' in d && d.review_completed !== null) out.review_completed = nullable(bool(d.review_completed));
  const classHistory = edits(d.class_edit_history);
  if (classHistory) out.class_edit_history = classHistory;
  const val = block(d.validations);
  if (val) out.validations = { final_result_pass: nullable(bool(val.final_result_pass)) };
  const cc = block(d.classification_confidence);
  if (cc) out.classification_confidence = { model: nullable(num(cc.model)) };
  return out;
}

function caseField(c: JsonObject, where: string): CaseFieldView {
  const out: CaseFieldView = {
    name: need(str(c.name), `${where}.name`, c.name),
    value: strOrNull(c.value),
    input_fields: objects(c.input_fields).map((x) => caseInput(x) as CaseInputView),
    chosen_field: caseInput(c.chosen_field),
    error_msg: strOrNull(c.error_msg),
  };
  const history = edits(c.edit_history);
  if (history) out.edit_history = history;
  const val = block(c.validations);
  if (val) {
    out.validations = {
      valid: nullable(bool(val.valid)),
      failures: objects(val.failures).map((f) => ({ type: strOrNull(f.type), msg: strOrNull(f.msg) })),
    };
  }
  return out;
}

/**
 * Reads one results page. Throws ShapeError only when the payload is not an object, when
 * `has_more` cannot be read (paging would be guesswork), or when a field or case field has no name.
 */
export function parseResultsPage(raw: unknown): ResultsPageView {
  if (!isObject(raw)) throw new ShapeError(`a results page must be a JSON object, got ${preview(raw)}`);
  const hasMore = raw.has_more === undefined || raw.has_more === null ? false : bool(raw.has_more);
  if (hasMore === undefined) throw new ShapeError(`has_more must be a boolean, got ${preview(raw.has_more)}`);
  // keys: {custom: {...}}, or a list of such objects ([{custom: {}}]); custom keys of a list are merged.
  const keyBlocks = Array.isArray(raw.keys) ? raw.keys.filter(isObject) : isObject(raw.keys) ? [raw.keys] : [];
  const custom = Object.assign({}, ...keyBlocks.map((k) => block(k.custom) ?? {})) as Record<string, unknown>;
  const caseInfo = block(raw.case_info);
  return {
    id: nullable(id(raw.id)),
    status: nullable(enumOf(raw.status, RUN_STATUSES)),
    message: strOrNull(raw.message ?? raw.msg),
    start_timestamp: nullable(timestamp(raw.start_timestamp, 'ns')),
    finish_timestamp: nullable(timestamp(raw.finish_timestamp, 'ns')),
    batch_id: nullable(id(raw.batch_id)),
    files: objects(raw.files).map((f, i) => ({
      original_file_name: strOrNull(f.original_file_name),
      input_file_path: strOrNull(f.input_file_path),
      documents: objects(f.documents).map((d, k) => document(d, `files[${i}].documents[${k}]`)),
    })),
    keys: { custom },
    case_info: { fields: caseInfo ? objects(caseInfo.fields).map((c, i) => caseField(c, `case_info.fields[${i}]`)) : [] },
    review_completed: nullable(bool(raw.review_completed)),
    has_more: hasMore,
  };
}
