import type { Db } from '../db.js';

/**
 * 015: one copy of each run's case fields. The service sends a run's whole case_info with every
 * results page, and each page's copy was stored, so a run of 25 pages listed every case field 25
 * times (in Results and in exports). The copy of the newest page that has any is kept, as storing
 * a page now does (results.ts).
 */
export function caseFieldsOnce(db: Db): void {
  db.exec(`
    DELETE FROM case_fields WHERE page_id <> (
      SELECT MAX(c.page_id) FROM case_fields c WHERE c.run_id = case_fields.run_id
    );
  `);
}
