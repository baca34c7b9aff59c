import type { Db } from '../db.js';

/**
 * 018: results pages kept deflated. Each page's body is stored as received, beside its normalised
 * rows, and writing that text (about 32 KB for 200 fields, through the WAL and again at each
 * checkpoint) was a quarter of storing a page (issue 14, fifth round; bench/README.md). A page
 * stored from now on holds its body in `raw_deflated` (raw DEFLATE of the UTF-8 bytes, node:zlib
 * level 1: JSON shrinks 5-15x, at about 75 µs a page) and '' in `raw_json`; pages stored before
 * keep their text in `raw_json`, and reading takes either (results.ts). Nothing is rewritten here:
 * a large store holds gigabytes of pages.
 */
export function rawPagesDeflated(db: Db): void {
  db.exec('ALTER TABLE result_pages ADD COLUMN raw_deflated BLOB');
}
