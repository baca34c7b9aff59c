/** Full-text search over stored results (FTS5 table `search_index`, migration 002). */
import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from './db.js';

export interface SearchHit {
  /** 'field' for an extracted field, 'document' for a document matched by its class or file name. */
  kind: 'field' | 'document';
  fieldId: number | null;
  documentId: number;
  resultFileId: number;
  /** Local runs.id and the service's run id. */
  runId: number;
  serviceRunId: string;
  /** The local file (files.id) the result belongs to, when known. */
  fileId: number | null;
  fieldName: string | null;
  value: string | null;
  className: string | null;
  fileName: string | null;
  /** Best-matching column's text around the match, matches wrapped in the markers. */
  snippet: string;
  /** bm25 rank: lower is better. For a query matching more than BROAD_MATCHES rows, hits come newest first. */
  rank: number;
}

export interface SearchOptions {
  /** Markers around matched terms in the snippet; default '[' and ']'. */
  before?: string;
  after?: string;
  /** Treat each word of 3 or more characters as a prefix (search as you type); default true. */
  prefix?: boolean;
}

/**
 * Turns user input into an FTS5 query that cannot fail to parse: each whitespace-separated word
 * becomes a quoted string (quotes doubled), so operators (AND, OR, NOT, NEAR), column filters,
 * parentheses and stray quotes are plain text; words all must match. Control characters
 * separate words. Words without a letter or
 * digit are dropped (the tokenizer would give nothing to match). Returns null when nothing is left.
 */
const MIN_PREFIX = 3;

export function ftsQuery(input: string, prefix = true): string | null {
  // Control characters separate words (a NUL would end the FTS5 string early).
  const words = input.replace(/[\u0000-\u001f\u007f]/gu, ' ').split(/\s+/u).filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length === 0) return null;
  // A prefix of one or two characters expands to a large part of the vocabulary (every number
  // starting with 4): such short words match whole tokens only.
  return words.map((w) => `"${w.replace(/"/g, '""')}"${prefix && [...w].length >= MIN_PREFIX ? '*' : ''}`).join(' ');
}

interface RawHit {
  rowid: number; field_id: number | null; document_id: number; result_file_id: number; run_id: number; value: string | null; name: string | null;
  class_name: string | null; file_name: string | null; snippet: string; rank: number; service_run_id: string; file_id: number | null;
}

const hitsSql = (order: 'rank' | 'recent'): string => `
    SELECT s.*, r.service_run_id, rf.file_id FROM (
      SELECT rowid, field_id, document_id, result_file_id, run_id, value, name, class_name, file_name,
             snippet(search_index, -1, ?, ?, '…', 12) AS snippet, rank
      FROM search_index WHERE search_index MATCH ? ORDER BY ${order === 'rank' ? 'rank' : 'rowid DESC'} LIMIT ?
    ) s
    JOIN runs r ON r.id = s.run_id
    JOIN result_files rf ON rf.id = s.result_file_id
    ORDER BY ${order === 'rank' ? 's.rank' : 's.rowid DESC'}`;

/**
 * Ranking scores every match, so a query that matches a large part of the index ("invoice" over a
 * million fields) would take hundreds of milliseconds. Above this many matches the newest hits are
 * returned instead, which FTS5 finds without scoring the rest (measured: bench/store.ts).
 */
export const BROAD_MATCHES = 2000;

export function searchQueries(db: Db) {
  // Prepared on first use (then cached): a store opened at an older schema version has no index yet.
  let ranked: BetterSqlite3.Statement<[string, string, string, number], RawHit> | undefined;
  let recent: BetterSqlite3.Statement<[string, string, string, number], RawHit> | undefined;
  let count: BetterSqlite3.Statement<[string], { n: number }> | undefined;

  return {
    /** Hits for free-text user input, best first; never throws on odd input (see ftsQuery). */
    search(query: string, limit = 50, o: SearchOptions = {}): SearchHit[] {
      const q = ftsQuery(query, o.prefix ?? true);
      if (q === null || limit <= 0) return [];
      count ??= db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM search_index WHERE search_index MATCH ? LIMIT ${BROAD_MATCHES + 1})`);
      const broad = (count.get(q)?.n ?? 0) > BROAD_MATCHES;
      const stmt = broad ? (recent ??= db.prepare(hitsSql('recent'))) : (ranked ??= db.prepare(hitsSql('rank')));
      return stmt.all(o.before ?? '[', o.after ?? ']', q, Math.floor(limit)).map((h) => ({
        kind: h.rowid > 0 ? 'field' : 'document',
        fieldId: h.field_id, documentId: h.document_id, resultFileId: h.result_file_id, runId: h.run_id, serviceRunId: h.service_run_id,
        fileId: h.file_id, fieldName: h.name, value: h.value, className: h.class_name, fileName: h.file_name, snippet: h.snippet, rank: h.rank,
      }));
    },
  };
}

export type SearchQueries = ReturnType<typeof searchQueries>;
