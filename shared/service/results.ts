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
  timestamp: number;
  user_id: string;
  modifications: { message: string }[];
}

export interface SourceCoordinate {
  top_x: number;
  top_y: number;
  bottom_x: number;
  bottom_y: number;
  /** 0-based. */
  page_number: number;
}

export interface ValidationAlert {
  alert_level: 'ERROR' | 'WARNING' | 'INFO';
  msg: string;
  blocked: boolean;
  type: string;
  locations: string[];
}

export interface ResultField {
  field_name: string;
  /** "ERROR" when extraction failed. */
  value: string;
  type: string;
  error_msg: string | null;
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
  /** 0-based. */
  page_number: number;
  width: number;
  height: number;
}

export interface ResultDocument {
  class_name: string | null;
  /** 0-based page numbers of the file that make up this document. */
  page_numbers: number[];
  fields: ResultField[];
  /** include_source_info */
  page_layouts?: PageLayout[];
  /** include_source_info */
  post_processed_paths?: string[];
  /** include_source_info; populated only with runtime_config.generate_post_process_pdf. */
  post_processed_pdf_path?: string | null;
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

export interface CaseField {
  name: string;
  value: string;
  input_fields: { record_index: number; refined_phrase_name: string }[];
  chosen_field: string | null;
  error_msg: string | null;
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
  batch_id: number | null;
  files: ResultFile[];
  keys: { custom: Record<string, unknown> };
  case_info: CaseInfo;
  review_completed: boolean;
  has_more: boolean;
}
