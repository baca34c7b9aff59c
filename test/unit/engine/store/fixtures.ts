/** Shared by the store tests: a store in a fresh temp dir, and a results page shaped as the service sends it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type OpenOptions, type Store } from '../../../../electron/engine/store/index.js';

export interface TempStore {
  dir: string;
  path: string;
  open(o?: OpenOptions): Store;
  /** Closes every store opened here and removes the directory. */
  cleanup(): void;
}

export function tempStore(): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'docsync-store-'));
  const path = join(dir, 'data', 'docsync.db');
  const opened: Store[] = [];
  return {
    dir,
    path,
    open(o) {
      const s = openStore(path, o);
      opened.push(s);
      return s;
    },
    cleanup() {
      for (const s of opened) s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const NOW_MS = Date.UTC(2026, 10, 1, 9, 30);
/** An edit time as the service writes it (UTC, no zone): 11/01/2026 09:30:00 is NOW_MS. */
export const EDIT_TEXT = '11/01/2026 09:30:00';
const NOW_NS = NOW_MS * 1e6;

/**
 * A results page with every include_* block, in the real service's shapes (shared/service/results.ts,
 * service-shapes.md "Corrections"): two files, an invoice with a failed field and a validation
 * alert, a two-document file, and case fields. page_numbers count from 1, page_layouts and
 * source_coordinates from 0; no error_msg where there is no error, no post_processed_pdf_path where
 * no PDF was made; edit times `MM/DD/YYYY HH:MM:SS` (UTC); keys a list; chosen_field an object.
 */
export function resultsPage(over: Record<string, unknown> = {}): Record<string, unknown> {
  const coords = (p: number) => [{ top_x: 0.1, top_y: 0.2, bottom_x: 0.4, bottom_y: 0.25, page_number: p }];
  return {
    id: 'run_8f2a', status: 'COMPLETE', message: null, start_timestamp: NOW_NS, finish_timestamp: NOW_NS + 4e9, batch_id: '17',
    files: [
      {
        original_file_name: 'Rechnung Müller 2026-03.pdf', input_file_path: 'svc-drive/workspaces/team/batches/17/Rechnung_Muller_2026-03.pdf',
        documents: [{
          class_name: 'Invoice', page_numbers: [1, 2],
          fields: [
            { field_name: 'supplier_name', value: 'Müller Bürobedarf GmbH', type: 'text', confidence: { model: 0.97, ocr: 0.99 }, source_coordinates: coords(0), edit_history: [], validations: { valid: true, alerts: [] } },
            { field_name: 'invoice_number', value: 'INV-2026-0042', type: 'TEXT', confidence: { model: 0.93, ocr: 0.98 }, source_coordinates: coords(0), edit_history: [], validations: { valid: true, alerts: [] } },
            { field_name: 'total_amount', value: '1234.50', type: 'NUMBER', confidence: { model: 0.61, ocr: 0.9 }, source_coordinates: coords(1),
              edit_history: [{ timestamp: EDIT_TEXT, user_id: 'u-7', modifications: [{ message: 'value changed from 1234.00' }] }],
              validations: { valid: false, alerts: [{ alert_level: 'FAILURE', msg: 'confidence below 0.8', blocked: false, type: 'min_confidence', locations: [{ field_name: 'total_amount' }] }] } },
            { field_name: 'due_date', value: 'ERROR', type: 'DATE', error_msg: 'no date found on the page', confidence: { model: 0, ocr: 0 }, source_coordinates: [], edit_history: [], validations: { valid: false, alerts: [] } },
          ],
          page_layouts: [{ page_number: 0, width: 612, height: 792 }, { page_number: 1, width: 612, height: 792 }],
          post_processed_paths: ['svc-drive/workspaces/team/batches/17/out/Rechnung_Muller_2026-03.pdf'],
          post_processed_pdf_path: 'svc-drive/workspaces/team/batches/17/out/Rechnung_Muller_2026-03.pdf',
          review_completed: false, class_edit_history: [], validations: { final_result_pass: false }, classification_confidence: { model: 0.88 },
        }],
      },
      {
        original_file_name: 'scan_0007.pdf', input_file_path: 'svc-drive/workspaces/team/batches/17/scan_0007.pdf',
        documents: [
          { class_name: 'Receipt', page_numbers: [1], fields: [{ field_name: 'merchant', value: 'Café Olé', type: 'TEXT', confidence: { model: 0.9, ocr: 0.95 }, source_coordinates: coords(0), edit_history: [], validations: { valid: true, alerts: [] } }],
            page_layouts: [], post_processed_paths: [], review_completed: false, class_edit_history: [], validations: { final_result_pass: true }, classification_confidence: { model: 0.7 } },
          { class_name: 'Cover Letter', page_numbers: [2, 3], fields: [],
            page_layouts: [], post_processed_paths: [], review_completed: false, class_edit_history: [], validations: { final_result_pass: true }, classification_confidence: { model: 0.55 } },
        ],
      },
    ],
    keys: [{ custom: { currency: 'EUR' } }],
    case_info: { fields: [
      { name: 'case_total', value: '1234.50', input_fields: [{ record_index: 0, refined_phrase_name: 'total_amount' }], chosen_field: { record_index: 0, refined_phrase_name: 'total_amount' }, edit_history: [], validations: { valid: true, failures: [] } },
      { name: 'case_due', value: null, input_fields: [], chosen_field: null, error_msg: 'no input', edit_history: [], validations: { valid: false, failures: [{ type: 'required', msg: 'due date missing' }] } },
    ] },
    review_completed: false,
    has_more: false,
    ...over,
  };
}
