/**
 * Full-text search over stored results: field values and names (`field_search`), class and file
 * names (`document_search`), both FTS5 (migration 004), each with a `joined` column of words with
 * punctuation inside joined (migration 008, joined-words.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from './db.js';
import { joinedWord, TEXT_WORD } from './joined-words.js';

export interface SearchHit {
  /** 'field' for an extracted field, 'document' for a document matched by its class or file name. */
  kind: 'field' | 'document';
  fieldId: number | null;
  documentId: number;
  resultFileId: number;
  /** Local runs.id and the service's run id. */
  runId: number;
  serviceRunId: string;
  /** The service the run ran on (services.id). */
  serviceId: number | null;
  /** The local file (files.id) the result belongs to, when known. */
  fileId: number | null;
  fieldName: string | null;
  value: string | null;
  className: string | null;
  fileName: string | null;
  /** Best-matching column's text around the match, matches wrapped in the markers. */
  snippet: string;
  /**
   * bm25 rank (lower is better) of the field's value and name, or of the document's class and
   * file name; 0 when not scored: every hit of a query matching more than BROAD_MATCHES (they come
   * newest first), and a field found with words in its document's class or file name.
   */
  rank: number;
}

export interface SearchOptions {
  /** Markers around matched terms in the snippet; default '[' and ']'. */
  before?: string;
  after?: string;
  /** Treat words whose last part has 3 or more characters as prefixes (search as you type); default true. */
  prefix?: boolean;
}

const MIN_PREFIX = 3;

/** A word of user input joined across its punctuation (joined-words.ts), as searched in the `joined` columns. */
interface Joined { tokens: string[]; prefix: boolean }

/**
 * The input's words: whitespace separates them, except a single space between digit groups before
 * groups of exactly three digits ("1 250", "12 345 678"), which reads as one number, as stored
 * text is read (TEXT_WORD). Control characters separate words (a NUL would end the FTS5 string early).
 */
const inputWords = (input: string): string[] =>
  (input.replace(/[\u0000-\u001f\u007f]/gu, ' ').match(TEXT_WORD) ?? []).filter((w) => /[\p{L}\p{N}]/u.test(w));
// A prefix of one or two characters expands to a large part of the vocabulary (every number
// starting with 4): a word whose last token ("4" in "iban-4") is that short matches it whole.
const isPrefix = (lastToken: string | undefined, prefix: boolean): boolean => prefix && [...(lastToken ?? '')].length >= MIN_PREFIX;
const tokensOf = (word: string, prefix: boolean): Joined => {
  const tokens = word.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return { tokens, prefix: isPrefix(tokens.at(-1), prefix) };
};
const joinedOf = (word: string, prefix: boolean): Joined | null => {
  const j = joinedWord(word);
  if (j === null) return null;
  const tokens = j.split(' ');
  return { tokens, prefix: isPrefix(tokens.at(-1), prefix) };
};

/**
 * A number being typed with thousands separators: groups of three after the first, one separator
 * throughout, a last group of one or two. Not the period: "12.50" is a price, not 1250 half typed
 * (a comma may be a decimal one too, "12,50", which then also finds what starts with 1250).
 */
const TYPING_NUMBER = /^[^\p{L}\p{N}]*\p{Nd}{1,3}(?:([,'’\u00a0\u202f ])\p{Nd}{3})*([,'’\u00a0\u202f ])(\p{Nd}{1,2})$/u;

/**
 * "1,25" may be "1,250" half typed: as a prefix it is also the number so far, joined ("125"*), as
 * "125" itself would be. Only as a prefix, and only where the separators are thousands ones.
 */
function typingNumberOf(word: string, prefix: boolean): Joined | null {
  const m = prefix ? TYPING_NUMBER.exec(word) : null;
  if (!m || (m[1] !== undefined && m[1] !== m[2])) return null;
  const missing = 3 - m[3]!.length;
  // Completed with zeros, the word joins as a whole number; the zeros come off again.
  const whole = joinedWord(word + '0'.repeat(missing));
  if (whole === null || whole.includes(' ')) return null;
  const typed = whole.slice(0, -missing);
  return isPrefix(typed, prefix) ? { tokens: [typed], prefix: true } : null;
}

/** Every joined form a word may have matched as (for snippets of hits found in `joined` alone). */
const joinedForms = (word: string, prefix: boolean): Joined[] => {
  const forms = [joinedOf(word, prefix), typingNumberOf(word, prefix)].filter((j): j is Joined => j !== null);
  return forms.length ? forms : [tokensOf(word, prefix)];
};

const phrase = (j: Joined): string => `"${j.tokens.join(' ')}"${j.prefix ? '*' : ''}`;

/** One input word as an FTS5 term: the word as typed, or joined, or (a number with spaces) its parts. */
function termOf(w: string, prefix: boolean): string {
  const spaced = w.split(/[ \u00a0\u202f]/u);
  const alts = spaced.length > 1
    // "1 250": the number ("1250"*), or its groups as words, each as any other word.
    ? [`(${allOf(spaced.map((x) => termOf(x, prefix)))})`]
    : [`"${w.replace(/"/g, '""')}"${tokensOf(w, prefix).prefix ? '*' : ''}`];
  for (const j of [joinedOf(w, prefix), typingNumberOf(w, prefix)]) if (j) alts.push(phrase(j));
  return alts.length === 1 ? alts[0]! : `(${alts.join(' OR ')})`;
}

/**
 * Turns user input into FTS5 terms that cannot fail to parse: each word (inputWords) becomes a
 * quoted string (quotes doubled), so operators (AND, OR, NOT, NEAR), column filters, parentheses
 * and stray quotes are plain text. Words without a letter or digit are dropped (the tokenizer
 * would give nothing to match). A word with punctuation inside may also match joined ("INV-30" as
 * "INV30"*, "1,250" as "1250"*), which the `joined` columns hold for stored words and the word's
 * own tokens hold for plain ones; a number half typed may match as the number so far ("1,25" as
 * "125"*); a number with spaces matches as the number or as its groups ("1 250").
 */
export function ftsTerms(input: string, prefix = true): string[] {
  return inputWords(input).map((w) => termOf(w, prefix));
}

/** Terms joined so that all must match: FTS5 takes no implicit AND next to a parenthesised OR. */
const allOf = (terms: string[]): string => terms.join(' AND ');

/** The terms of ftsTerms as one FTS5 query in which all words must match; null when nothing is left. */
export function ftsQuery(input: string, prefix = true): string | null {
  const terms = ftsTerms(input, prefix);
  return terms.length === 0 ? null : allOf(terms);
}

/**
 * bm25 weighs each term by how many rows hold it, so ranking costs what the query's terms' postings
 * cost ("invoice" over a million fields: hundreds of milliseconds when every match is scored).
 * Above this many matches the newest hits are returned instead, which FTS5 finds by walking rowids
 * backwards and stopping early (measured: bench/store.ts).
 */
export const BROAD_MATCHES = 2000;
const CAP = BROAD_MATCHES + 1;
/** Words found on both sides are tried both ways up to this many (2^n splits); more count as field words. */
const MAX_EITHER = 4;

type Table = 'field_search' | 'document_search';

/**
 * A hit before its details are read: a field or a document, its document (recency order), the
 * FTS5 query that found it, its rank when scored (0: not scored) and its snippet once made.
 */
interface Candidate { table: Table; rowid: number; doc: number; query: string; rank: number; snippet?: string }

interface HitRaw {
  field_id: number | null; document_id: number; result_file_id: number; run_id: number; service_run_id: string; service_id: number | null; file_id: number | null;
  value: string | null; name: string | null; class_name: string | null; file_name: string | null;
}

const ids = (xs: number[]): string => JSON.stringify(xs);
/*
 * Snippets of the first two columns only (value and name; class and file name), marked with
 * control characters that marked() turns into the caller's: the third, `joined`, holds text
 * nobody typed ("inv3003") and must not be shown.
 */
const snippetOf = (t: Table): string =>
  `coalesce(snippet(${t}, 0, char(1), char(2), '…', 12), '') || char(30) || coalesce(snippet(${t}, 1, char(1), char(2), '…', 12), '')`;
const OPEN = '\u0001';
const CLOSE = '\u0002';
/** Lower case without diacritics, as the tokenizer folds (remove_diacritics 2). */
const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** Marks the words of `text` whose joined form matches one of the input's words (a hit found only in `joined`). */
function markJoined(text: string, joined: Joined[]): string {
  return text.replace(TEXT_WORD, (w) => {
    const j = joinedWord(w);
    if (j === null) return w;
    const have = fold(j).split(' ');
    const hit = joined.some(({ tokens, prefix }) => {
      const want = tokens.map(fold);
      return have.some((_, at) => want.every((t, i) => (i === want.length - 1 && prefix ? have[at + i]?.startsWith(t) : have[at + i] === t)));
    });
    return hit ? `${OPEN}${w}${CLOSE}` : w;
  });
}

/**
 * The snippet shown: the column with more marked matches (the first on a tie, as FTS5's own
 * choice), or, for a hit found by joined words alone, the first column that has such a word marked.
 */
function shownSnippet(raw: string, joined: Joined[], before: string, after: string): string {
  const cols = raw.split('\u001e');
  const marks = (c: string) => c.split(OPEN).length - 1;
  let text = cols.reduce((best, c) => (marks(c) > marks(best) ? c : best), cols[0] ?? '');
  if (marks(text) === 0) text = cols.map((c) => markJoined(c, joined)).find((c) => marks(c) > 0) ?? text;
  return text.replaceAll(OPEN, before).replaceAll(CLOSE, after);
}
/** Selects a row's rowid and its document: itself for a document, fields.document_id for a field. */
const rowsOf = (t: Table, cols = ''): string => (t === 'field_search'
  ? `SELECT field_search.rowid AS id, f.document_id AS doc${cols} FROM field_search JOIN fields f ON f.id = field_search.rowid`
  : `SELECT rowid AS id, rowid AS doc${cols} FROM document_search`);
/** Newest document first, a document before its fields, fields in the order stored. */
const newest = (a: Candidate, b: Candidate): number =>
  b.doc - a.doc || (a.table === b.table ? a.rowid - b.rowid : a.table === 'document_search' ? -1 : 1);

/*
 * Cost model: every MATCH reads its terms' postings, so each FTS5 query below runs once per
 * search, never once per candidate row, and walks rowids newest first with a LIMIT where it can
 * (field ids grow with their document's: a document's fields are stored with it).
 */
export function searchQueries(db: Db) {
  // Prepared on first use (then cached): a store opened at an older schema version has no index yet.
  const cache = new Map<string, BetterSqlite3.Statement<unknown[]>>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare<unknown[]>(sql)));
    return s;
  };
  const all = <T>(sql: string, ...params: unknown[]): T[] => stmt(sql).all(...params) as T[];
  const has = (t: Table, q: string): boolean => stmt(`SELECT 1 FROM ${t} WHERE ${t} MATCH ? LIMIT 1`).get(q) !== undefined;
  const count = (t: Table, q: string): number =>
    (stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM ${t} WHERE ${t} MATCH ? LIMIT ${CAP})`).get(q) as { n: number }).n;
  const latest = (t: Table, q: string, n: number) => all<{ id: number; doc: number }>(`${rowsOf(t)} WHERE ${t} MATCH ? ORDER BY ${t}.rowid DESC LIMIT ?`, q, n);
  /** The best `n` by bm25, with snippets. */
  const best = (t: Table, q: string, n: number) =>
    all<{ id: number; doc: number; rank: number; snippet: string }>(`${rowsOf(t, `, rank, ${snippetOf(t)} AS snippet`)} WHERE ${t} MATCH ? ORDER BY rank LIMIT ?`, q, n);

  /** Rows among `rowids` that match `q` (the newest `limit`), with `what` computed for them: one pass over their rowid range. */
  function within(t: Table, q: string, rowids: number[], what: string, params: unknown[], limit?: number): { id: number; v: unknown }[] {
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of rowids) {
      lo = Math.min(lo, r);
      hi = Math.max(hi, r);
    }
    // FTS5 ignores a rowid bound that is not an integer, and JS numbers are bound as REAL.
    return all(`SELECT rowid AS id, ${what} AS v FROM ${t} WHERE ${t} MATCH ? AND rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)
      AND +rowid IN (SELECT value FROM json_each(?)) ${limit === undefined ? '' : 'ORDER BY rowid DESC LIMIT ?'}`,
    ...params, q, lo, hi, ids(rowids), ...(limit === undefined ? [] : [limit]));
  }

  /** The newest `n` fields holding every term of `fq` whose document's class and file name hold every term of `dq`. */
  function crossed(fq: string, dq: string, n: number): { id: number; doc: number }[] {
    const docs = all<{ id: number }>(`SELECT rowid AS id FROM document_search WHERE document_search MATCH ? ORDER BY rowid DESC LIMIT ${CAP}`, dq);
    if (docs.length < CAP) {
      // Few documents: their fields, then one pass over the field index within their rowid range.
      const own = all<{ id: number; doc: number }>('SELECT id, document_id AS doc FROM fields WHERE document_id IN (SELECT value FROM json_each(?))', ids(docs.map((d) => d.id)));
      if (own.length === 0) return [];
      const docOf = new Map(own.map((f) => [f.id, f.doc]));
      return within('field_search', fq, [...docOf.keys()], 'NULL', [], n)
        .map((r) => ({ id: r.id, doc: docOf.get(r.id)! }));
    }
    // Many documents: walk both indexes newest first, keeping the fields whose document is in both walks.
    const fIt = stmt(`${rowsOf('field_search')} WHERE field_search MATCH ? ORDER BY field_search.rowid DESC`).iterate(fq) as IterableIterator<{ id: number; doc: number }>;
    const dIt = stmt('SELECT rowid AS id FROM document_search WHERE document_search MATCH ? ORDER BY rowid DESC').iterate(dq) as IterableIterator<{ id: number }>;
    const out: { id: number; doc: number }[] = [];
    try {
      let d = dIt.next();
      for (const f of fIt) {
        while (!d.done && d.value.id > f.doc) d = dIt.next();
        if (d.done || out.length === n) break;
        if (d.value.id === f.doc) out.push(f);
      }
    } finally {
      fIt.return?.();
      dIt.return?.();
    }
    return out;
  }

  /**
   * The ways to split the terms between a field (value, name) and its document (class, file
   * name) with at least one term on each side; a term found in no document stays on the field.
   */
  function splits(terms: string[]): { fq: string; dq: string }[] {
    const side = terms.map((t) => (!has('document_search', t) ? 'field' : has('field_search', t) ? 'either' : 'document'));
    const either = side.flatMap((s, i) => (s === 'either' ? [i] : [])).slice(0, MAX_EITHER);
    const out: { fq: string; dq: string }[] = [];
    for (let mask = 0; mask < 1 << either.length; mask++) {
      const toDoc = new Set(either.filter((_, b) => mask & (1 << b)));
      const f = terms.filter((_, i) => side[i] !== 'document' && !toDoc.has(i));
      const d = terms.filter((_, i) => side[i] === 'document' || toDoc.has(i));
      if (f.length > 0 && d.length > 0) out.push({ fq: allOf(f), dq: allOf(d) });
    }
    return out;
  }

  /** What a hit shows: field, document, result file and run. */
  function details(cs: Candidate[]): Map<Candidate, HitRaw> {
    const sql = (cols: string, from: string, key: string) => `
      SELECT ${cols}, d.id AS document_id, d.result_file_id, rf.run_id, r.service_run_id, r.service_id, rf.file_id, d.class_name, rf.original_file_name AS file_name
      FROM ${from} JOIN result_files rf ON rf.id = d.result_file_id JOIN runs r ON r.id = rf.run_id
      WHERE ${key} IN (SELECT value FROM json_each(?))`;
    const rowids = (t: Table) => ids(cs.filter((c) => c.table === t).map((c) => c.rowid));
    const fr = new Map(all<HitRaw>(sql('f.id AS field_id, f.value, f.name', 'fields f JOIN documents d ON d.id = f.document_id', 'f.id'), rowids('field_search')).map((r) => [r.field_id, r]));
    const dr = new Map(all<HitRaw>(sql('NULL AS field_id, NULL AS value, NULL AS name', 'documents d', 'd.id'), rowids('document_search')).map((r) => [r.document_id, r]));
    return new Map(cs.flatMap((c) => {
      const r = (c.table === 'field_search' ? fr : dr).get(c.rowid);
      return r ? [[c, r] as const] : [];
    }));
  }

  return {
    /**
     * Hits for free-text user input, best first; never throws on odd input (see ftsTerms). Every
     * word must match. A document hit has all of them in its class or file name; a field hit in
     * its value or name, scored (bm25). A field hit may also have some words in its document's
     * class or file name ("receipt café"): those come after the scored hits, newest first. A
     * class name alone finds the documents, not each of their fields. Above BROAD_MATCHES
     * documents and fields, every hit comes newest first, unscored.
     */
    search(query: string, limit = 50, o: SearchOptions = {}): SearchHit[] {
      const terms = ftsTerms(query, o.prefix ?? true);
      const n = Math.floor(limit);
      if (terms.length === 0 || n <= 0) return [];
      const q = allOf(terms);
      // Every input word as it may have matched a stored word's joined form, for snippets found there alone.
      const joined = inputWords(query).flatMap((w) => joinedForms(w, o.prefix ?? true));
      const tables = (['document_search', 'field_search'] as const).map((t) => ({ t, n: count(t, q) })).filter((x) => x.n > 0);
      const broad = tables.reduce((sum, x) => sum + x.n, 0) > BROAD_MATCHES;

      const found: Candidate[] = tables.flatMap(({ t }) => (broad
        ? latest(t, q, n).map((r) => ({ table: t, rowid: r.id, doc: r.doc, query: q, rank: 0 }))
        : best(t, q, n).map((r) => ({ table: t, rowid: r.id, doc: r.doc, query: q, rank: r.rank, snippet: r.snippet }))));
      const seen = new Set(found.filter((c) => c.table === 'field_search').map((c) => c.rowid));
      // Unscored hits come after n scored ones: no need to look for them then.
      const more = terms.length > 1 && (broad || found.length < n);
      for (const p of more ? splits(terms) : []) {
        for (const f of crossed(p.fq, p.dq, n)) {
          if (!seen.has(f.id)) found.push({ table: 'field_search', rowid: f.id, doc: f.doc, query: p.fq, rank: 0 });
          seen.add(f.id);
        }
      }
      const chosen = found.sort(broad ? newest : (a, b) => (a.rank || Infinity) - (b.rank || Infinity) || newest(a, b)).slice(0, n);

      // Snippets not made yet: one pass per query over the rowid range of its hits.
      const groups = new Map<string, Candidate[]>();
      for (const c of chosen) {
        const key = `${c.table}\n${c.query}`;
        if (c.snippet === undefined) groups.set(key, [...(groups.get(key) ?? []), c]);
      }
      for (const cs of groups.values()) {
        const { table, query: fq } = cs[0]!;
        const byId = new Map(cs.map((c) => [c.rowid, c]));
        for (const r of within(table, fq, [...byId.keys()], snippetOf(table), [])) byId.get(r.id)!.snippet = String(r.v);
      }

      const rows = details(chosen);
      return chosen.flatMap((c): SearchHit[] => {
        const r = rows.get(c);
        if (!r) return [];
        const field = c.table === 'field_search';
        return [{
          kind: field ? 'field' : 'document', fieldId: r.field_id, documentId: r.document_id, resultFileId: r.result_file_id,
          runId: r.run_id, serviceRunId: r.service_run_id, serviceId: r.service_id, fileId: r.file_id, fieldName: r.name, value: r.value,
          className: r.class_name, fileName: r.file_name, snippet: shownSnippet(c.snippet ?? '', joined, o.before ?? '[', o.after ?? ']'), rank: c.rank,
        }];
      });
    },
  };
}

export type SearchQueries = ReturnType<typeof searchQueries>;
