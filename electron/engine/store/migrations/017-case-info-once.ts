import { topLevelValueSpan } from '../../service/json-key-span.js';
import type { Db } from '../db.js';

/**
 * 017: one whole copy of each run's case_info in its raw pages. The service sends a run's whole
 * case_info with every results page (3.9 MB of a 4.1 MB page for a run of 500 files), and every
 * page was stored as received. The client now reads it from a run's last page only and stores the
 * pages before it with `"case_info":null` (service/results.ts); here the pages stored before are
 * made the same. Kept whole: the page holding the run's case fields (migration 015), else the
 * run's last page. The rest of each text stays as received.
 */
export function caseInfoOnce(db: Db): void {
  const others = db.prepare<[], number>(
    `SELECT p.id FROM result_pages p WHERE p.id <> coalesce(
       (SELECT c.page_id FROM case_fields c WHERE c.run_id = p.run_id LIMIT 1),
       (SELECT q.id FROM result_pages q WHERE q.run_id = p.run_id ORDER BY q.file_offset DESC LIMIT 1))`).pluck().all();
  // As bytes: the scan works on UTF-8, as the client's does on the received body.
  const read = db.prepare<[number], Buffer>('SELECT CAST(raw_json AS BLOB) FROM result_pages WHERE id = ?').pluck();
  const write = db.prepare<[string, number]>('UPDATE result_pages SET raw_json = ? WHERE id = ?');
  // One page at a time: a large store holds gigabytes of them.
  for (const id of others) {
    const body = read.get(id);
    if (!body) continue;
    const span = topLevelValueSpan(body, 'case_info');
    if (!span || body.toString('utf8', span.start, span.end) === 'null') continue;
    write.run(`${body.toString('utf8', 0, span.start)}null${body.toString('utf8', span.end)}`, id);
  }
}
