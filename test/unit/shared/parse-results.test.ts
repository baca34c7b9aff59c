/**
 * Lenient reading of results pages (shared/service/parse-results.ts) with the variations
 * service-shapes.md lists: ids as number or string, "not yet" timestamps as null or 0, optional
 * blocks as null, {} or [], enum values in either case, dates in more than one format, unknown
 * fields, and a body that is not a results page at all; and the exact shapes of its "Corrections
 * after checking against the published description" (issue 11).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ShapeError, parseResultsPage } from '../../../shared/service/index.js';

const NOW_MS = Date.UTC(2026, 2, 1, 12, 0, 0);
const NOW_NS = NOW_MS * 1e6;
/** `08/27/2025 00:58:39` read as UTC. */
const EDIT_TEXT = '08/27/2025 00:58:39';
const EDIT_MS = Date.UTC(2025, 7, 27, 0, 58, 39);

/**
 * A page shaped as the real service sends it (service-shapes.md, "Corrections"), every block
 * present: batch_id a string, page_numbers from 1 with page_layouts and source_coordinates from 0,
 * no error_msg on a field without error, edit times as `MM/DD/YYYY HH:MM:SS`, keys as a list,
 * chosen_field an object.
 */
function page(over: Record<string, unknown> = {}, field: Record<string, unknown> = {}, doc: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'run_1', status: 'COMPLETE', message: 'done', start_timestamp: NOW_NS, finish_timestamp: NOW_NS + 5e9, batch_id: '1235',
    files: [{
      original_file_name: 'a.pdf', input_file_path: 'svc-drive/in/a.pdf',
      documents: [{
        class_name: 'Invoice', page_numbers: [1, 2],
        fields: [{
          field_name: 'total_amount', value: '80.00', type: 'NUMBER',
          confidence: { model: 0.9, ocr: 0.95 },
          source_coordinates: [{ top_x: 1, top_y: 2, bottom_x: 3, bottom_y: 4, page_number: 1 }],
          edit_history: [{ timestamp: EDIT_TEXT, user_id: 'u1', modifications: [{ message: 'fixed' }] }],
          validations: { valid: true, alerts: [] },
          ...field,
        }],
        page_layouts: [{ page_number: 0, width: 612, height: 792 }, { page_number: 1, width: 612, height: 792 }],
        post_processed_paths: ['svc-drive/out/a.pdf'], post_processed_pdf_path: 'svc-drive/out/a.pdf',
        review_completed: true, class_edit_history: [], validations: { final_result_pass: true }, classification_confidence: { model: 0.8 },
        ...doc,
      }],
    }],
    keys: [{ custom: { currency: 'USD' } }],
    case_info: { fields: [{ name: 'total', value: '80.00', input_fields: [{ record_index: 0, refined_phrase_name: 'total_amount' }], chosen_field: { record_index: 0, refined_phrase_name: 'total_amount' }, validations: { valid: true, failures: [] } }] },
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
    expect(p).toMatchObject({ id: 'run_1', status: 'COMPLETE', message: 'done', start_timestamp: NOW_NS, batch_id: '1235', has_more: false, review_completed: true, keys: { custom: { currency: 'USD' } } });
    expect(field0(p)).toEqual({
      field_name: 'total_amount', value: '80.00', type: 'NUMBER', error_msg: null,
      confidence: { model: 0.9, ocr: 0.95 },
      source_coordinates: [{ top_x: 1, top_y: 2, bottom_x: 3, bottom_y: 4, page_number: 1 }],
      edit_history: [{ timestamp: EDIT_MS, timestamp_text: EDIT_TEXT, user_id: 'u1', modifications: [{ message: 'fixed' }] }],
      validations: { valid: true, alerts: [] },
    });
    expect(doc0(p)).toMatchObject({ class_name: 'Invoice', page_numbers: [1, 2], post_processed_pdf_path: 'svc-drive/out/a.pdf', validations: { final_result_pass: true }, classification_confidence: { model: 0.8 } });
    expect(doc0(p)?.page_layouts?.map((l) => l.page_number)).toEqual([0, 1]);
    expect(p.case_info.fields[0]).toMatchObject({ name: 'total', input_fields: [{ record_index: 0, refined_phrase_name: 'total_amount' }], chosen_field: { record_index: 0, refined_phrase_name: 'total_amount' }, error_msg: null });
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
    expect(p.batch_id).toBe('42');
    expect(parseResultsPage(page({ batch_id: 42 })).batch_id).toBe('42');
    expect(parseResultsPage(page({ batch_id: null })).batch_id).toBeNull();
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

  it('edit history timestamps are read as milliseconds, whatever form they take, and kept as sent', () => {
    for (const ts of [NOW_MS, NOW_MS / 1000, new Date(NOW_MS).toISOString(), String(NOW_MS), '03/01/2026 12:00:00', '3/1/2026 12:00', '2026-03-01T12:00:00', '2026-03-01 12:00:00.000']) {
      const p = parseResultsPage(page({}, { edit_history: [{ timestamp: ts, user_id: 'u', modifications: [{ message: 'm' }] }] }));
      expect(field0(p)?.edit_history?.[0]?.timestamp, String(ts)).toBe(NOW_MS);
      expect(field0(p)?.edit_history?.[0]?.timestamp_text, String(ts)).toBe(String(ts));
    }
  });

  it('an edit time that is no date (13/45/2025, 02/30/2025 24:00:00) is null, its text kept', () => {
    for (const ts of ['13/45/2025 00:00:00', '02/30/2025 10:00:00', '08/27/2025 24:00:00', 'yesterday']) {
      const e = field0(parseResultsPage(page({}, { edit_history: [{ timestamp: ts, user_id: 'u', modifications: [] }] })))?.edit_history?.[0];
      expect(e, ts).toMatchObject({ timestamp: null, timestamp_text: ts });
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

  it.each([
    ['an object', { custom: { currency: 'USD' } }],
    ['a list of one object', [{ custom: { currency: 'USD' } }]],
    ['a list whose objects split the custom keys', [{ custom: { currency: 'USD' } }, { custom: {} }, null]],
  ])('keys as %s give the same custom keys', (_what, keys) => {
    expect(parseResultsPage(page({ keys })).keys).toEqual({ custom: { currency: 'USD' } });
  });

  it('top-level keys, case_info and files as null or {} read as empty', () => {
    const p = parseResultsPage(page({ keys: null, case_info: {}, files: null }));
    expect(p.keys).toEqual({ custom: {} });
    expect(p.case_info).toEqual({ fields: [] });
    expect(p.files).toEqual([]);
  });

  it('an empty post_processed_pdf_path is null; an absent one (no PDF generated) is absent', () => {
    expect(doc0(parseResultsPage(page({}, {}, { post_processed_pdf_path: '' })))?.post_processed_pdf_path).toBeNull();
    expect(doc0(parseResultsPage(page({}, {}, { post_processed_pdf_path: undefined })))).not.toHaveProperty('post_processed_pdf_path');
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

  it.each([
    ['FAILURE', 'FAILURE'],
    ['failure', 'FAILURE'],
    ['ERROR', 'ERROR'],
    ['CRITICAL', 'CRITICAL'],
    ['Needs Review', 'Needs Review'],
  ])('alert_level %j is kept (an open string): %j', (v, want) => {
    const p = parseResultsPage(page({}, { validations: { valid: false, alerts: [{ alert_level: v, msg: 'm', blocked: true, type: 't', locations: [] }] } }));
    expect(field0(p)?.validations?.alerts[0]?.alert_level).toBe(want);
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

/**
 * One results page exactly as the published description's examples have it (service-shapes.md,
 * "Corrections after checking against the published description"), and what the view must read.
 */
const PUBLISHED = {
  id: 'c5b5c4a2-0d8c-4a6e-9a59-5d8d7e1f2b10', status: 'COMPLETE', message: null, start_timestamp: NOW_NS, finish_timestamp: NOW_NS + 9e9,
  batch_id: '1235',
  files: [{
    original_file_name: 'packet.pdf', input_file_path: 'svc-drive/workspaces/team/batches/1235/packet.pdf',
    documents: [
      {
        class_name: 'Invoice', page_numbers: [1, 2],
        page_layouts: [{ page_number: 0, width: 612, height: 792 }, { page_number: 1, width: 612, height: 792 }],
        post_processed_paths: [], review_completed: true,
        class_edit_history: [{ timestamp: '08/27/2025 00:58:39', user_id: 'reviewer@org', modifications: [{ message: 'class confirmed' }] }],
        validations: { final_result_pass: false }, classification_confidence: { model: 0.93 },
        fields: [
          {
            field_name: 'due_date', value: '2025-08-01', type: 'DATE', confidence: { model: 0.8, ocr: 0.99 },
            source_coordinates: [{ top_x: 100, top_y: 200, bottom_x: 180, bottom_y: 212, page_number: 1 }],
            edit_history: [{ timestamp: '12/31/2025 23:59:59', user_id: 'reviewer@org', modifications: [{ message: 'value changed' }] }],
            validations: { valid: false, alerts: [{ alert_level: 'FAILURE', msg: 'due date before invoice date', blocked: true, type: 'consistency', locations: [{ field_name: 'due_date', record_index: 0 }, { field_name: 'invoice_date' }] }] },
          },
          { field_name: 'total_amount', value: 'ERROR', type: 'NUMBER', error_msg: 'no amount found', confidence: { model: 0, ocr: 0 }, source_coordinates: [], edit_history: [], validations: { valid: false, alerts: [] } },
        ],
      },
      { class_name: null, page_numbers: [3], fields: [], page_layouts: [{ page_number: 2, width: 612, height: 792 }], post_processed_paths: ['svc-drive/out/p-doc2.pdf'], post_processed_pdf_path: 'svc-drive/out/p-doc2.pdf' },
    ],
  }],
  keys: [{ custom: { currency: 'EUR' } }],
  case_info: {
    fields: [{
      name: 'packet_due_date', value: '2025-08-01',
      input_fields: [{ record_index: 0, refined_phrase_name: 'due_date' }, { record_index: 1, refined_phrase_name: 'due_date' }],
      chosen_field: { record_index: 0, refined_phrase_name: 'due_date', score: 0.8 },
      edit_history: [{ timestamp: '01/02/2026 03:04:05', user_id: 'u', modifications: [] }],
      validations: { valid: true, failures: [] },
    }, { name: 'packet_total', value: '', input_fields: [], chosen_field: null, error_msg: 'no input', validations: { valid: false, failures: [{ type: 'required', msg: 'missing' }] } }],
  },
  review_completed: true,
  has_more: false,
};

describe('parseResultsPage: the published description\'s shapes (issue 11), read without loss', () => {
  const p = parseResultsPage(PUBLISHED);
  const [invoice, other] = p.files[0]!.documents;
  const due = invoice!.fields[0]!;
  const total = invoice!.fields[1]!;
  const [chosenCase, missingCase] = p.case_info.fields;

  it.each<[string, () => unknown, unknown]>([
    ['batch_id in a results body is a string', () => p.batch_id, '1235'],
    ['keys given as a list', () => p.keys, { custom: { currency: 'EUR' } }],
    ['page_numbers count from 1, as sent', () => invoice!.page_numbers, [1, 2]],
    ['page_layouts count from 0, as sent', () => invoice!.page_layouts!.map((l) => l.page_number), [0, 1]],
    ['source_coordinates count from 0, as sent (page 2 of the file)', () => due.source_coordinates![0]!.page_number, 1],
    ['a second document: page_numbers [3] with page_layouts page 2', () => [other!.page_numbers, other!.page_layouts![0]!.page_number], [[3], 2]],
    ['error_msg absent on a field without error reads as null', () => due.error_msg, null],
    ['error_msg of a failed field', () => [total.value, total.error_msg], ['ERROR', 'no amount found']],
    ['post_processed_pdf_path absent when no PDF was generated', () => 'post_processed_pdf_path' in invoice!, false],
    ['post_processed_pdf_path when one was', () => other!.post_processed_pdf_path, 'svc-drive/out/p-doc2.pdf'],
    ['alert_level FAILURE is kept', () => due.validations!.alerts[0]!.alert_level, 'FAILURE'],
    ['alert locations given as objects are kept whole', () => due.validations!.alerts[0]!.locations, [{ field_name: 'due_date', record_index: 0 }, { field_name: 'invoice_date' }]],
    ['alert blocked, msg, type', () => [due.validations!.alerts[0]!.blocked, due.validations!.alerts[0]!.msg, due.validations!.alerts[0]!.type], [true, 'due date before invoice date', 'consistency']],
    ['field edit time: UTC, and the text as sent', () => due.edit_history![0], { timestamp: Date.UTC(2025, 11, 31, 23, 59, 59), timestamp_text: '12/31/2025 23:59:59', user_id: 'reviewer@org', modifications: [{ message: 'value changed' }] }],
    ['document edit time (class_edit_history)', () => invoice!.class_edit_history![0]!.timestamp, EDIT_MS],
    ['case field edit time', () => chosenCase!.edit_history![0]!.timestamp, Date.UTC(2026, 0, 2, 3, 4, 5)],
    ['chosen_field is an object, its unknown members kept', () => chosenCase!.chosen_field, { record_index: 0, refined_phrase_name: 'due_date', score: 0.8 }],
    ['chosen_field null', () => missingCase!.chosen_field, null],
    ['case field error_msg', () => missingCase!.error_msg, 'no input'],
    ['input_fields', () => chosenCase!.input_fields, [{ record_index: 0, refined_phrase_name: 'due_date' }, { record_index: 1, refined_phrase_name: 'due_date' }]],
  ])('%s', (_what, get, want) => {
    expect(get()).toEqual(want);
  });

  it('older payloads still read: chosen_field as a string, locations as strings', () => {
    const q = parseResultsPage(page(
      { case_info: { fields: [{ name: 'n', value: 'v', input_fields: [], chosen_field: 'total_amount' }] } },
      { validations: { valid: false, alerts: [{ alert_level: 'ERROR', msg: 'm', blocked: true, type: 't', locations: ['total_amount', 7, null, { field_name: 'x' }] }] } },
    ));
    expect(q.case_info.fields[0]?.chosen_field).toEqual({ record_index: null, refined_phrase_name: 'total_amount' });
    expect(field0(q)?.validations?.alerts[0]?.locations).toEqual(['total_amount', { field_name: 'x' }]);
  });
});

/**
 * Edit times carry no zone and are UTC. Node re-reads process.env.TZ when it is set, so each case
 * runs in that zone in this very process (checked by the offset it sees).
 */
describe('edit times are UTC whatever the machine\'s time zone', () => {
  const saved = process.env.TZ;
  afterEach(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it.each([
    ['UTC', 0],
    ['America/New_York', 240],
    ['Asia/Kolkata', -330],
  ])('in %s (offset %i min)', (tz, offset) => {
    process.env.TZ = tz;
    // The zone really is in force: local midnight of that day is `offset` minutes from UTC.
    expect(new Date(2025, 7, 27).getTimezoneOffset()).toBe(offset);
    const q = parseResultsPage(PUBLISHED);
    expect(q.files[0]!.documents[0]!.class_edit_history![0]).toMatchObject({ timestamp: EDIT_MS, timestamp_text: '08/27/2025 00:58:39' });
    expect(new Date(q.files[0]!.documents[0]!.class_edit_history![0]!.timestamp!).toISOString()).toBe('2025-08-27T00:58:39.000Z');
    // Zone-less ISO is UTC too; a date with its own offset keeps it.
    const iso = (ts: string) => field0(parseResultsPage(page({}, { edit_history: [{ timestamp: ts, user_id: 'u', modifications: [] }] })))?.edit_history?.[0]?.timestamp;
    expect(iso('2025-08-27T00:58:39')).toBe(EDIT_MS);
    expect(iso('2025-08-27T06:28:39+05:30')).toBe(EDIT_MS);
    expect(iso('Wed, 27 Aug 2025 00:58:39 GMT')).toBe(EDIT_MS);
    expect(iso('Aug 27 2025 00:58:39')).toBe(EDIT_MS);
  });
});
