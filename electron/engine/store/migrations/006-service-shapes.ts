import type { Db } from '../db.js';

/**
 * 006: the service's real shapes (service-shapes.md, "Corrections after checking against the
 * published description"; issue 11).
 *
 * - `runs.record_json`: the last run record the service sent, as read (shared/service
 *   parseRunRecord: the named members and `extra`, everything the view does not name), so nothing
 *   of it is lost locally.
 * - `case_fields.chosen_field` now holds JSON: the object `{record_index, refined_phrase_name, ...}`
 *   the service sends (or NULL). Rows written before held a bare name (the older sandbox's shape);
 *   they become `{"record_index": <the first input of that name, else null>, "refined_phrase_name": name}`.
 * - `documents.page_numbers_json` counts pages from 1, as the service does. Results stored from the
 *   older sandbox counted from 0. They are recognised by a 0 in any document of a run (the service
 *   never sends page 0, and the older sandbox started every readable file's first document at 0)
 *   and every document of such a run is shifted by one. Runs without a 0 are left as they are. The
 *   raw pages (`result_pages.raw_json`) stay exactly as received; only page_layouts are read from
 *   them, and those count from 0 in both shapes.
 */
export function serviceShapes(db: Db): void {
  db.exec(`
    ALTER TABLE runs ADD COLUMN record_json TEXT CHECK (record_json IS NULL OR json_valid(record_json));

    UPDATE case_fields SET chosen_field = json_object(
        'record_index', (SELECT json_extract(i.value, '$.record_index') FROM json_each(case_fields.input_fields_json) i
                         WHERE json_extract(i.value, '$.refined_phrase_name') = case_fields.chosen_field ORDER BY i.key LIMIT 1),
        'refined_phrase_name', chosen_field)
      WHERE chosen_field IS NOT NULL AND (NOT json_valid(chosen_field) OR json_type(chosen_field) <> 'object');

    CREATE TEMP TABLE runs_from_zero AS
      SELECT DISTINCT rf.run_id FROM documents d JOIN result_files rf ON rf.id = d.result_file_id
      WHERE json_valid(d.page_numbers_json) AND EXISTS (SELECT 1 FROM json_each(d.page_numbers_json) WHERE value = 0);
    UPDATE documents SET page_numbers_json = (SELECT json_group_array(j.value + 1) FROM json_each(documents.page_numbers_json) j)
      WHERE json_valid(page_numbers_json)
        AND result_file_id IN (SELECT rf.id FROM result_files rf JOIN runs_from_zero z ON z.run_id = rf.run_id);
    DROP TABLE runs_from_zero;
  `);
}
