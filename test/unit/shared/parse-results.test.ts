/**
 * Lenient reading of results pages (shared/service/parse-results.ts) with the variations
 * service-shapes.md lists: ids as number or string, "not yet" timestamps as null or 0, optional
 * blocks as null, {} or [], enum values in either case, dates in more than one format, unknown
 * fields, and a body that is not a results page at all.
 */
import { describe, expect, it } from 'vitest';
import { ShapeError, parseResultsPage } from '../../../shared/service/index.js';

const NOW_MS = Date.UTC(2026, 2, 1, 12, 0, 0);
const NOW_NS = NOW_MS * 1e6;

/** A page shaped as the service documents it, every block present. */
function page(over: Record<string, unknown> = {}, field: Record<string, unknown> = {}, doc: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'run_1', status: 'COMPLETE', message: 'done', start_timestamp: NOW_NS, finish_timestamp: NOW_NS + 5e9, batch_id: 42,
    files: [{
      original_file_name: 'a.pdf', input_file_path: 'svc-drive/in/a.pdf',
      documents: [{
        class_name: 'Invoice', page_numbers: [0, 1],
        fields: [{
          field_name: 'total_amount', value: '80.00', type: 'NUMBER', error_msg: null,
          confidence: { model: 0.9, ocr: 0.95 },
          source_coordinates: [{ top_x: 1, top_y: 2, bottom_x: 3, bottom_y: 4, page_number: 0 }],
          edit_history: [{ timestamp: NOW_MS, user_id: 'u1', modifications: [{ message: 'fixed' }] }],
          validations: { valid: true, alerts: [] },
          ...field,
        }],
        page_layouts: [{ page_number: 0, width: 612, height: 792 }],
        post_processed_paths: ['svc-drive/out/a.pdf'], post_processed_pdf_path: 'svc-drive/out/a.pdf',
        review_completed: true, class_edit_history: [], validations: { final_result_pass: true }, classification_confidence: { model: 0.8 },
        ...doc,
      }],
    }],
    keys: { custom: { currency: 'USD' } },
    case_info: { fields: [{ name: 'total', value: '80.00', input_fields: [{ record_index: 0, refined_phrase_name: 'total_amount' }], chosen_field: 'total_amount', error_msg: null, validations: { valid: true, failures: [] } }] },
    review_completed: true,
    has_more: false,
    ...over,
  };
}
const field0 = (p: ReturnType<typeof parseResultsPage>) => p.files[0]?.documents[0]?.fields[0];
const doc0 = (p: ReturnType<typeof parseResultsPage>) => p.files[0]?.documents[0];

describe('parseResultsPage: the documented shape', () => {
  it('reads every level and block', () => {
    const p = parseResultsPage(page());
    expect(p).toMatchObject({ id: 'run_1', status: 'COMPLETE', message: 'done', start_timestamp: NOW_NS, batch_id: 42, has_more: false, review_completed: true, keys: { custom: { currency: 'USD' } } });
    expect(field0(p)).toEqual({
      field_name: 'total_amount', value: '80.00', type: 'NUMBER', error_msg: null,
      confidence: { model: 0.9, ocr: 0.95 },
      source_coordinates: [{ top_x: 1, top_y: 2, bottom_x: 3, bottom_y: 4, page_number: 0 }],
      edit_history: [{ timestamp: NOW_MS, user_id: 'u1', modifications: [{ message: 'fixed' }] }],
      validations: { valid: true, alerts: [] },
    });
    expect(doc0(p)).toMatchObject({ class_name: 'Invoice', page_numbers: [0, 1], post_processed_pdf_path: 'svc-drive/out/a.pdf', validations: { final_result_pass: true }, classification_confidence: { model: 0.8 } });
    expect(p.case_info.fields[0]).toMatchObject({ name: 'total', input_fields: [{ record_index: 0, refined_phrase_name: 'total_amount' }] });
  });

  it('a field whose extraction failed keeps the value "ERROR" and its error message', () => {
    const p = parseResultsPage(page({}, { value: 'ERROR', error_msg: 'unreadable' }));
    expect(field0(p)).toMatchObject({ value: 'ERROR', error_msg: 'unreadable' });
  });
});

describe('parseResultsPage: ids as number or string', () => {
  it('run id, batch id, user id and record index read from either form', () => {
    const p = parseResultsPage(page(
      { id: 12345, batch_id: '42', case_info: { fields: [{ name: 'n', value: 'v', input_fields: [{ record_index: '3', refined_phrase_name: 'x' }] }] } },
      { edit_history: [{ timestamp: NOW_MS, user_id: 77, modifications: [] }] },
    ));
    expect(p.id).toBe('12345');
    expect(p.batch_id).toBe(42);
    expect(field0(p)?.edit_history?.[0]?.user_id).toBe('77');
    expect(p.case_info.fields[0]?.input_fields[0]?.record_index).toBe(3);
  });

  it('numbers sent as strings are numbers (confidence, coordinates, page numbers)', () => {
    const p = parseResultsPage(page({}, { confidence: { model: '0.5', ocr: '1' }, source_coordinates: [{ top_x: '1.5', top_y: 2, bottom_x: 3, bottom_y: 4, page_number: '2' }] }, { page_numbers: ['0', 1, 'x'] }));
    expect(field0(p)?.confidence).toEqual({ model: 0.5, ocr: 1 });
    expect(field0(p)?.source_coordinates?.[0]).toMatchObject({ top_x: 1.5, page_number: 2 });
    expect(doc0(p)?.page_numbers).toEqual([0, 1]);
  });
});

describe('parseResultsPage: timestamps', () => {
  it.each([
    ['null', null],
    ['0', 0],
    ['"0"', '0'],
    ['absent', undefined],
  ])('a not-yet finish_timestamp given as %s is null', (_what, v) => {
    expect(parseResultsPage(page({ finish_timestamp: v })).finish_timestamp).toBeNull();
  });

  it.each([
    ['nanoseconds', NOW_NS],
    ['nanoseconds as a string', String(NOW_NS)],
    ['microseconds', NOW_MS * 1000],
    ['milliseconds', NOW_MS],
    ['seconds', NOW_MS / 1000],
    ['an ISO 8601 date', new Date(NOW_MS).toISOString()],
    ['an RFC 1123 date', new Date(NOW_MS).toUTCString()],
  ])('a run start_timestamp in %s is read as nanoseconds', (_what, v) => {
    expect(parseResultsPage(page({ start_timestamp: v })).start_timestamp).toBe(NOW_NS);
  });

  it('edit history timestamps are read as milliseconds, whatever form they take', () => {
    for (const ts of [NOW_MS, NOW_MS / 1000, new Date(NOW_MS).toISOString(), String(NOW_MS)]) {
      const p = parseResultsPage(page({}, { edit_history: [{ timestamp: ts, user_id: 'u', modifications: [{ message: 'm' }] }] }));
      expect(field0(p)?.edit_history?.[0]?.timestamp, String(ts)).toBe(NOW_MS);
    }
  });

  it('an unreadable date is null, not an error', () => {
    expect(parseResultsPage(page({ start_timestamp: 'soon' })).start_timestamp).toBeNull();
  });
});

describe('parseResultsPage: optional blocks as null, {} or []', () => {
  it.each([['null', null], ['{}', {}], ['[]', []]])('object blocks given as %s are absent', (_what, v) => {
    const p = parseResultsPage(page({}, { confidence: v, validations: v }, { validations: v, classification_confidence: v }));
    expect(field0(p)).not.toHaveProperty('confidence');
    expect(field0(p)).not.toHaveProperty('validations');
    expect(doc0(p)).not.toHaveProperty('validations');
    expect(doc0(p)).not.toHaveProperty('classification_confidence');
  });

  it('list blocks given as null or {} are absent; [] stays an empty list', () => {
    const absent = parseResultsPage(page({}, { source_coordinates: null, edit_history: {} }, { page_layouts: null, post_processed_paths: {} }));
    expect(field0(absent)).not.toHaveProperty('source_coordinates');
    expect(field0(absent)).not.toHaveProperty('edit_history');
    expect(doc0(absent)).not.toHaveProperty('page_layouts');
    expect(doc0(absent)).not.toHaveProperty('post_processed_paths');
    const empty = parseResultsPage(page({}, { source_coordinates: [] }, { page_layouts: [] }));
    expect(field0(empty)?.source_coordinates).toEqual([]);
    expect(doc0(empty)?.page_layouts).toEqual([]);
  });

  it('blocks left out by the include_* flags are absent from the view', () => {
    const p = parseResultsPage(page({}, { confidence: undefined, source_coordinates: undefined, edit_history: undefined, validations: undefined }));
    expect(Object.keys(field0(p) ?? {}).sort()).toEqual(['error_msg', 'field_name', 'type', 'value']);
  });

  it('top-level keys, case_info and files as null or {} read as empty', () => {
    const p = parseResultsPage(page({ keys: null, case_info: {}, files: null }));
    expect(p.keys).toEqual({ custom: {} });
    expect(p.case_info).toEqual({ fields: [] });
    expect(p.files).toEqual([]);
  });

  it('an empty post_processed_pdf_path is null', () => {
    expect(doc0(parseResultsPage(page({}, {}, { post_processed_pdf_path: '' })))?.post_processed_pdf_path).toBeNull();
  });
});

describe('parseResultsPage: enums in either case', () => {
  it.each([['complete', 'COMPLETE'], ['Stopped_At_Checkpoint', 'STOPPED_AT_CHECKPOINT'], ['stopped-at-checkpoint', 'STOPPED_AT_CHECKPOINT'], [' running ', 'RUNNING']])('status %j is %s', (v, want) => {
    expect(parseResultsPage(page({ status: v })).status).toBe(want);
  });

  it('an unknown status is null (the raw JSON keeps it), not an error', () => {
    expect(parseResultsPage(page({ status: 'ARCHIVED' })).status).toBeNull();
  });

  it('alert levels and field types in lower case', () => {
    const p = parseResultsPage(page({}, { type: 'text', validations: { valid: 'false', alerts: [{ alert_level: 'warning', msg: 'm', blocked: 0, type: 'consistency', locations: ['due_date'] }] } }));
    expect(field0(p)?.type).toBe('TEXT');
    expect(field0(p)?.validations).toEqual({ valid: false, alerts: [{ alert_level: 'WARNING', msg: 'm', blocked: false, type: 'consistency', locations: ['due_date'] }] });
  });
});

describe('parseResultsPage: unknown fields and malformed pages', () => {
  it('unknown fields are no error, and the raw object is left as it was', () => {
    const raw = page({ future_block: { x: 1 } }, { new_score: 3 });
    const copy = structuredClone(raw);
    expect(() => parseResultsPage(raw)).not.toThrow();
    expect(raw).toEqual(copy);
  });

  it('has_more as a string is read; absent means no more pages; anything else is an error', () => {
    expect(parseResultsPage(page({ has_more: 'true' })).has_more).toBe(true);
    expect(parseResultsPage(page({ has_more: undefined })).has_more).toBe(false);
    expect(() => parseResultsPage(page({ has_more: 'maybe' }))).toThrow(/has_more must be a boolean/);
  });

  it.each([['a string', 'not a page'], ['an array', []], ['null', null], ['a number', 7]])('a body that is %s is a ShapeError', (_what, v) => {
    expect(() => parseResultsPage(v)).toThrow(ShapeError);
    expect(() => parseResultsPage(v)).toThrow(/results page must be a JSON object/);
  });

  it('a field without a name is an error naming where it is', () => {
    expect(() => parseResultsPage(page({}, { field_name: null }))).toThrow(/files\[0\]\.documents\[0\]\.fields\[0\]\.field_name is missing/);
  });

  it('entries that are not objects are skipped in the view (the raw keeps them)', () => {
    const [file] = page().files as unknown[];
    const p = parseResultsPage(page({ files: [null, 'x', file] }));
    expect(p.files).toHaveLength(1);
  });
});
