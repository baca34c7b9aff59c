/**
 * Results kept in a sandbox --data folder by an older sandbox, in the shapes it sent then, are
 * served in the service's shapes (sandbox/runs/shape.ts upgradeStoredFile/upgradeStoredCaseInfo):
 * page_numbers from 1, edit times as `MM/DD/YYYY HH:MM:SS` (UTC), no null error_msg or
 * post_processed_pdf_path, FAILURE alerts with object locations, chosen_field as an object.
 */
import { describe, expect, it } from 'vitest';
import type { CaseInfo, ResultFile } from '../../../shared/service/results.js';
import { upgradeStoredCaseInfo, upgradeStoredFile } from '../../../sandbox/runs/shape.js';

const MS = Date.UTC(2025, 7, 27, 0, 58, 39);

/** A file as the older sandbox stored it (JSON of its shapes), cast: those shapes no longer type-check. */
function oldFile(): ResultFile {
  return JSON.parse(JSON.stringify({
    original_file_name: 'multi.pdf', input_file_path: 'svc-drive/in/multi.pdf',
    documents: [
      {
        class_name: 'Invoice', page_numbers: [0, 1], post_processed_pdf_path: null, post_processed_paths: [], class_edit_history: [],
        page_layouts: [{ page_number: 0, width: 612, height: 792 }, { page_number: 1, width: 612, height: 792 }],
        fields: [{
          field_name: 'total_amount', value: 'TBD', type: 'NUMBER', error_msg: null,
          source_coordinates: [{ top_x: 1, top_y: 2, bottom_x: 3, bottom_y: 4, page_number: 1 }],
          edit_history: [{ timestamp: MS, user_id: 'admin', modifications: [{ message: 'accepted in review' }] }],
          validations: { valid: false, alerts: [{ alert_level: 'ERROR', msg: 'not a number', blocked: true, type: 'type', locations: ['total_amount'] }] },
        }],
      },
      { class_name: 'Receipt', page_numbers: [2], fields: [], post_processed_pdf_path: 'svc-drive/out/r.pdf' },
    ],
  })) as ResultFile;
}

describe('upgradeStoredFile', () => {
  it('brings an older stored file to the service shapes', () => {
    const f = upgradeStoredFile(oldFile());
    expect(f.documents.map((d) => d.page_numbers)).toEqual([[1, 2], [3]]);
    const [inv, rec] = f.documents;
    expect(inv).not.toHaveProperty('post_processed_pdf_path');
    expect(rec!.post_processed_pdf_path).toBe('svc-drive/out/r.pdf');
    // 0-based stays 0-based.
    expect(inv!.page_layouts!.map((l) => l.page_number)).toEqual([0, 1]);
    const field = inv!.fields[0]!;
    expect(field.source_coordinates![0]!.page_number).toBe(1);
    expect(field).not.toHaveProperty('error_msg');
    expect(field.edit_history).toEqual([{ timestamp: '08/27/2025 00:58:39', user_id: 'admin', modifications: [{ message: 'accepted in review' }] }]);
    expect(field.validations!.alerts).toEqual([{ alert_level: 'FAILURE', msg: 'not a number', blocked: true, type: 'type', locations: [{ field_name: 'total_amount' }] }]);
  });

  it('is idempotent: current shapes pass through unchanged', () => {
    const once = upgradeStoredFile(oldFile());
    const again = upgradeStoredFile(JSON.parse(JSON.stringify(once)) as ResultFile);
    expect(again).toEqual(once);
  });

  it('a file whose documents have no pages (unreadable) is left as it is', () => {
    const f = { original_file_name: 'bad.pdf', input_file_path: 'x', documents: [{ class_name: null, page_numbers: [], fields: [] }] } as ResultFile;
    expect(upgradeStoredFile(structuredClone(f))).toEqual(f);
  });
});

describe('upgradeStoredCaseInfo', () => {
  it('a string chosen_field becomes the object of its first input; null error_msg goes; edit times as strings', () => {
    const c = JSON.parse(JSON.stringify({
      fields: [
        { name: 'total', value: '1', input_fields: [{ record_index: 3, refined_phrase_name: 'total_amount' }], chosen_field: 'total_amount', error_msg: null, edit_history: [{ timestamp: MS, user_id: 'u', modifications: [] }] },
        { name: 'count', value: '1', input_fields: [], chosen_field: null, error_msg: null },
        { name: 'gone', value: '', input_fields: [], chosen_field: 'vanished', error_msg: 'e' },
      ],
    })) as CaseInfo;
    const u = upgradeStoredCaseInfo(c);
    expect(u.fields[0]).toEqual({ name: 'total', value: '1', input_fields: [{ record_index: 3, refined_phrase_name: 'total_amount' }], chosen_field: { record_index: 3, refined_phrase_name: 'total_amount' }, edit_history: [{ timestamp: '08/27/2025 00:58:39', user_id: 'u', modifications: [] }] });
    expect(u.fields[1]).toEqual({ name: 'count', value: '1', input_fields: [], chosen_field: null });
    expect(u.fields[2]).toMatchObject({ chosen_field: null, error_msg: 'e' });
    expect(upgradeStoredCaseInfo(structuredClone(u))).toEqual(u);
  });
});
