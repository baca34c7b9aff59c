/** Run results (spec 2.8, 4.6): one page, or every page through an async iterator; bodies read into pooled buffers (raw-get.ts). */
import { parseResultsPage, type ResultsPageView, type ResultsQuery } from '../../../shared/service/index.js';
import { ServiceError } from './errors.js';
import { seg, type Reply, type Transport } from './http.js';
import type { CallOptions } from './jobs.js';
import { topLevelValueSpan } from './json-key-span.js';

export type ResultsFlags = Omit<ResultsQuery, 'file_offset'>;

export interface ResultsPage {
  /** The JSON as received; `raw.files[i]` is the source of `page.files[i]`. */
  raw: unknown;
  /**
   * The body `raw` was parsed from, as received: stored as is, not serialised again (issue 14).
   * From iterateResults, a page before the last has its case_info replaced by `null` (`caseInfoElided`).
   */
  rawText: string;
  /** The lenient typed view (shared/service/parse-results.ts). */
  page: ResultsPageView;
  /** The file_offset this page was requested with. */
  fileOffset: number;
  /**
   * The run's case_info, which the service repeats whole on every page, was skipped on this page
   * (not the last): `raw.case_info` and rawText's are null, `page.case_info` has no fields.
   */
  caseInfoElided?: true;
}

const pageSpec = (runId: string, q: ResultsQuery, o: CallOptions) =>
  ({ op: 'getResults', method: 'GET', path: `/v2/apps/runs/${seg(runId)}/results`, query: { ...q, file_offset: q.file_offset ?? 0 }, idempotent: true, ok: [200], ...o }) as const;

/** The whole page: its text, the JSON and the typed view. */
function wholePage(t: Transport, reply: Reply, fileOffset: number): ResultsPage {
  // The spread reads the body's text once (a getter), for the parser and for the store.
  const r = { ...reply };
  let raw: unknown;
  const page = t.parseBody('getResults', r, (x) => {
    raw = x;
    return parseResultsPage(x);
  });
  return { raw, rawText: r.text, page, fileOffset };
}

/**
 * The page without its case_info, when it is not the last page; else undefined (then read whole).
 * For a run of 500 files that is about 0.25 MB of text parsed instead of 4 MB (3.9 MB of it the
 * case_info) on each of 24 pages of 25 (issue 14, the engine's memory while results are stored).
 */
function pageWithoutCaseInfo(t: Transport, reply: Reply, fileOffset: number): ResultsPage | undefined {
  const span = topLevelValueSpan(reply.body, 'case_info');
  if (!span) return undefined;
  const text = `${reply.body.toString('utf8', 0, span.start)}null${reply.body.toString('utf8', span.end)}`;
  let raw: unknown;
  let page: ResultsPageView;
  try {
    page = t.parseBody('getResults', { status: reply.status, headers: reply.headers, body: reply.body, attempts: reply.attempts, afterAmbiguous: reply.afterAmbiguous, text }, (x) => {
      raw = x;
      return parseResultsPage(x);
    });
  } catch {
    return undefined; // read whole, which reports what is wrong as before
  }
  return page.has_more ? { raw, rawText: text, page, fileOffset, caseInfoElided: true } : undefined;
}

/** GET /v2/apps/runs/{run_id}/results at one file_offset: the whole page. */
export async function getResults(t: Transport, runId: string, q: ResultsQuery = {}, o: CallOptions = {}): Promise<ResultsPage> {
  const spec = pageSpec(runId, q, o);
  return t.callPooled(spec, (reply) => wholePage(t, reply, spec.query.file_offset));
}

/**
 * Every results page of a run: file_offset starts at 0 and grows by the number of files
 * received, while has_more is true (spec 4.6 rule 5). The run's case_info, which the service
 * sends whole with every page, is read from the last page only (`caseInfoElided` on the others).
 */
export async function* iterateResults(t: Transport, runId: string, flags: ResultsFlags = {}, o: CallOptions = {}): AsyncGenerator<ResultsPage> {
  let offset = 0;
  for (;;) {
    const spec = pageSpec(runId, { ...flags, file_offset: offset }, o);
    // The body (several MB) is read into a pooled buffer, given back once the page is parsed (raw-get.ts);
    // the page is dropped before the next one is fetched.
    let p: ResultsPage | undefined = await t.callPooled(spec, (reply) => pageWithoutCaseInfo(t, reply, offset) ?? wholePage(t, reply, offset));
    const hasMore = p.page.has_more;
    const received = Array.isArray((p.raw as { files?: unknown }).files) ? (p.raw as { files: unknown[] }).files.length : 0;
    yield p;
    p = undefined;
    if (!hasMore) return;
    if (received === 0) {
      throw new ServiceError({ kind: 'bad-response', operation: 'iterateResults', status: 200, message: `results page at file_offset ${offset} says has_more but holds no files: paging cannot go on` });
    }
    offset += received;
  }
}
