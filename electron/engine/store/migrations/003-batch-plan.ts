import type { Db } from '../db.js';

/**
 * What a batch is for, recorded when it closes so a restart can finish it: the name it has on
 * the service (unique, so a batch created just before a crash is found again by name) and the
 * run it must start (target and run settings as JSON, since manual uploads have no folder).
 */
export function batchPlan(db: Db): void {
  db.exec(`
    ALTER TABLE batches ADD COLUMN name TEXT;
    ALTER TABLE batches ADD COLUMN plan TEXT;
  `);
}
