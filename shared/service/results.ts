import type { RunStatus } from './runs.js';

/** Query flags of GET /v2/apps/runs/{run_id}/results (spec 4.6). */
export interface ResultsQuery {
  include_review_results?: boolean;
  include_confidence_scores?: boolean;
  include_validation_results?: boolean;
  include_source_info?: boolean;
  file_offset?: number;
}

export interface EditHistoryEntry {
  /** `MM/DD/YYYY HH:MM:SS`, UTC (service-shapes.md, "Corrections"); see editTimestamp. */
  timestamp: string;
  user_id: string;
  modifications: { message: string }[];
}

/** Unix ms as the service writes an edit_history timestamp: `08/27/2025 00:58:39` (UTC, no zone). */
export function editTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}/${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}

export interface SourceCoordinate {
  top_x: number;
  top_y: number;
  bottom_x: number;
  bottom_y: number;
  /** 0-based page of the file (unlike a document's page_numbers, which count from 1). */
  page_number: number;
}

/**
 * Where an alert applies. The published description gives objects, without naming their members;
 * the sandbox names the field. Readers keep whatever object comes.
 */
export interface AlertLocation {
  field_name: string;
}

export interface ValidationAlert {
  /** `FAILURE` on the real service; an open string (the sandbox also sends `WARNING`). */
  alert_level: string;
  msg: string;
  blocked: boolean;
  type: string;
  locations: AlertLocation[];
}

export interface ResultField {
  field_name: string;
  /** "ERROR" when extraction failed. */
  value: string;
  type: string;
  /** Absent on a field with no error. */
  error_msg?: string;
  /** include_confidence_scores */
  confidence?: { model: number; ocr: number };
  /** include_source_info */
  source_coordinates?: SourceCoordinate[];
  /** include_review_results */
  edit_history?: EditHistoryEntry[];
  /** include_validation_results */
  validations?: { valid: boolean; alerts: ValidationAlert[] };
}

export interface PageLayout {
  /** 0-based page of the file (unlike a document's page_numbers, which count from 1). */
  page_number: number;
  width: number;
  height: number;
}

export interface ResultDocument {
  class_name: string | null;
  /** Pages of the file that make up this document, counted from 1 (a one-page document is [1]). */
  page_numbers: number[];
  fields: ResultField[];
  /** include_source_info */
  page_layouts?: PageLayout[];
  /** include_source_info */
  post_processed_paths?: string[];
  /** include_source_info; present only when a PDF was generated (runtime_config.generate_post_process_pdf). */
  post_processed_pdf_path?: string;
  /** include_review_results */
  review_completed?: boolean;
  /** include_review_results */
  class_edit_history?: EditHistoryEntry[];
  /** include_validation_results */
  validations?: { final_result_pass: boolean };
  /** include_confidence_scores */
  classification_confidence?: { model: number };
}

export interface ResultFile {
  original_file_name: string;
  input_file_path: string;
  documents: ResultDocument[];
}

/** A field of one document of the run: its position among all documents, and its name. */
export interface CaseFieldInput {
  record_index: number;
  refined_phrase_name: string;
}

export interface CaseField {
  name: string;
  value: string;
  input_fields: CaseFieldInput[];
  /** The input the value was taken from: an object like the items of input_fields, never a string. */
  chosen_field: CaseFieldInput | null;
  /** Absent when there is no error. */
  error_msg?: string;
  /** include_review_results */
  edit_history?: EditHistoryEntry[];
  /** include_validation_results */
  validations?: { valid: boolean; failures: { type: string; msg: string }[] };
}

export interface CaseInfo {
  fields: CaseField[];
}

export interface RunResultsPage {
  id: string;
  status: RunStatus;
  message: string | null;
  start_timestamp: number;
  finish_timestamp: number | null;
  /** A string here ("1235"), an integer in run records. */
  batch_id: string | null;
  files: ResultFile[];
  /** Seen both as an object and as a list of one object. */
  keys: { custom: Record<string, unknown> } | { custom: Record<string, unknown> }[];
  case_info: CaseInfo;
  review_completed: boolean;
  has_more: boolean;
}
