import type { Db } from '../db.js';

/**
 * 009: `runs.review_since_ms`, when this client first saw a run waiting for review
 * (STOPPED_AT_CHECKPOINT). The service's run record has no such time (start and finish only), so
 * "waiting for review (N s)" counted from the run's start. A run already waiting gets the time its
 * status was last seen: a lower bound, the best there is.
 */
export function reviewSince(db: Db): void {
  db.exec(`
    ALTER TABLE runs ADD COLUMN review_since_ms INTEGER;
    UPDATE runs SET review_since_ms = updated_ms WHERE review_waiting = 1;
  `);
}
