/** Run results (spec 2.8, 4.6): one page, or every page through an async iterator. */
import { parseResultsPage, type ResultsPageView, type ResultsQuery } from '../../../shared/service/index.js';
import { ServiceError } from './errors.js';
import { seg, type Transport } from './http.js';
import type { CallOptions } from './jobs.js';

export type ResultsFlags = Omit<ResultsQuery, 'file_offset'>;

export interface ResultsPage {
  /** The JSON as received; `raw.files[i]` is the source of `page.files[i]`. */
  raw: unknown;
  /** The body `raw` was parsed from, as received: stored as is, not serialised again (issue 14). */
  rawText: string;
  /** The lenient typed view (shared/service/parse-results.ts). */
  page: ResultsPageView;
  /** The file_offset this page was requested with. */
  fileOffset: number;
}

/** GET /v2/apps/runs/{run_id}/results at one file_offset. */
export async function getResults(t: Transport, runId: string, q: ResultsQuery = {}, o: CallOptions = {}): Promise<ResultsPage> {
  const fileOffset = q.file_offset ?? 0;
  const spec = { op: 'getResults', method: 'GET', path: `/v2/apps/runs/${seg(runId)}/results`, query: { ...q, file_offset: fileOffset }, idempotent: true, ok: [200], ...o } as const;
  // The spread reads the body's text once (a getter), for the parser and for the store.
  const reply = { ...(await t.call(spec)) };
  let raw: unknown;
  const page = t.parseBody(spec.op, reply, (r) => {
    raw = r;
    return parseResultsPage(r);
  });
  return { raw, rawText: reply.text, page, fileOffset };
}

/**
 * Every results page of a run: file_offset starts at 0 and grows by the number of files
 * received, while has_more is true (spec 4.6 rule 5).
 */
export async function* iterateResults(t: Transport, runId: string, flags: ResultsFlags = {}, o: CallOptions = {}): AsyncGenerator<ResultsPage> {
  let offset = 0;
  for (;;) {
    const p = await getResults(t, runId, { ...flags, file_offset: offset }, o);
    yield p;
    if (!p.page.has_more) return;
    const received = Array.isArray((p.raw as { files?: unknown }).files) ? (p.raw as { files: unknown[] }).files.length : 0;
    if (received === 0) {
      throw new ServiceError({ kind: 'bad-response', operation: 'iterateResults', status: 200, message: `results page at file_offset ${offset} says has_more but holds no files: paging cannot go on` });
    }
    offset += received;
  }
}
