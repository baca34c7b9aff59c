/**
 * Indexing stored results into the search file (search-file.ts) in units: on a connection to the
 * search file with the store attached as `store`, either the worker's (search-worker.ts) or the
 * engine's own (a search catching up first). The watermark (`search_state`) holds the last field and
 * document ids indexed and the last `search_changes` seq applied; index and watermark change in one
 * transaction, so after a crash it says what is left.
 *
 * Why in units: FTS5 writes a segment per statement and merges segments again as they gather; a unit
 * of up to `batchRows` fields is about one segment (hashsize 8 MB). Why bounded: a search waits for
 * the unit in progress before it catches up (bench/README.md, "Store ingest").
 */
import type { Db } from './db.js';

/** Fields indexed in one unit (one transaction, about one FTS5 segment). */
export const SEARCH_BATCH_ROWS = 20_000;

export interface SearchUnits {
  /** Fields stored but not yet indexed. */
  pendingFields(): number;
  /** Anything not yet indexed: fields, documents, or changed rows. */
  pending(): boolean;
  /** Indexes one unit: changed rows, then up to `batchRows` new fields and every new document. */
  unit(): void;
  /** Units until nothing waits. */
  catchUp(): void;
}

/**
 * Uses nothing from outside the function: the worker thread runs it from its text (as
 * joinedWordsModule). The connection needs `joined_words` registered.
 *
 * Transactions are DEFERRED and begin with a write to the search file: IMMEDIATE would take the
 * store's write lock too (SQLite begins a write on every attached database), and the store's pages
 * would wait for the index. Reads of the store in the unit see one snapshot.
 */
export function searchUnits(db: Db, batchRows: number, clearLog?: (seq: number) => void): SearchUnits {
  type Changes = { from: number; to: number };
  const state = db.prepare<[], { f: number; d: number; c: number }>('SELECT fields_id AS f, documents_id AS d, changes_seq AS c FROM main.search_state');
  const lock = db.prepare('UPDATE main.search_state SET changes_seq = changes_seq');
  const tops = db.prepare<[], { f: number; d: number; c: number }>(
    `SELECT coalesce((SELECT max(id) FROM store.fields), 0) AS f, coalesce((SELECT max(id) FROM store.documents), 0) AS d,
       coalesce((SELECT max(seq) FROM store.search_changes), 0) AS c`);
  const FIELDS = 'SELECT id, value, name, joined_words(value) FROM store.fields';
  const DOCUMENTS = `SELECT d.id, d.class_name, rf.original_file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name))
    FROM store.documents d JOIN store.result_files rf ON rf.id = d.result_file_id`;
  const changed = (tbl: string): string => `SELECT id FROM store.search_changes WHERE tbl = '${tbl}' AND seq > @from AND seq <= @to`;
  // A changed row's old words go; its words now are written again if it is still there and was
  // indexed (at or below the watermark: rows above it are indexed as new).
  const forgetFields = db.prepare<[Changes]>(`DELETE FROM main.field_search WHERE rowid IN (${changed('fields')})`);
  const refreshFields = db.prepare<[Changes & { upTo: number }]>(
    `INSERT INTO main.field_search (rowid, value, name, joined) ${FIELDS} WHERE id IN (${changed('fields')}) AND id <= @upTo`);
  const forgetDocuments = db.prepare<[Changes]>(`DELETE FROM main.document_search WHERE rowid IN (${changed('documents')})`);
  const refreshDocuments = db.prepare<[Changes & { upTo: number }]>(
    `INSERT INTO main.document_search (rowid, class_name, file_name, joined) ${DOCUMENTS} WHERE d.id IN (${changed('documents')}) AND d.id <= @upTo`);
  const unitEnd = db.prepare<[number], { id: number }>(`SELECT id FROM store.fields WHERE id > ? ORDER BY id LIMIT 1 OFFSET ${Math.max(0, batchRows - 1)}`);
  const addFields = db.prepare<[number, number]>(`INSERT INTO main.field_search (rowid, value, name, joined) ${FIELDS} WHERE id > ? AND id <= ? ORDER BY id`);
  const addDocuments = db.prepare<[number, number]>(
    `INSERT INTO main.document_search (rowid, class_name, file_name, joined) ${DOCUMENTS} WHERE d.id > ? AND d.id <= ? ORDER BY d.id`);
  const save = db.prepare<[number, number, number]>('UPDATE main.search_state SET fields_id = ?, documents_id = ?, changes_seq = ?');
  // On the engine's thread, through the store's own connection (`clearLog`): inside a transaction of
  // that connection it joins it, where this connection would wait for that transaction's lock.
  const applied = clearLog ?? ((seq: number): void => void db.prepare<[number]>('DELETE FROM store.search_changes WHERE seq <= ?').run(seq));

  const unit = db.transaction((): number => {
    lock.run();
    const at = state.get()!;
    const top = tops.get()!;
    if (top.c > at.c) {
      const changes = { from: at.c, to: top.c };
      forgetFields.run(changes);
      refreshFields.run({ ...changes, upTo: at.f });
      forgetDocuments.run(changes);
      refreshDocuments.run({ ...changes, upTo: at.d });
    }
    // Rows deleted at the end lower the watermark: SQLite gives the next row stored the last id + 1,
    // which must be indexed as new. (Their old words went with the changes above.)
    const f = Math.min(at.f, top.f);
    const d = Math.min(at.d, top.d);
    const end = unitEnd.get(f)?.id ?? top.f;
    if (end > f) addFields.run(f, end);
    if (top.d > d) addDocuments.run(d, top.d);
    save.run(end, top.d, Math.max(at.c, top.c));
    return top.c > at.c ? top.c : 0;
  });
  const pendingFields = (): number => {
    const at = state.get()!;
    return Math.max(0, tops.get()!.f - at.f);
  };
  const pending = (): boolean => {
    const at = state.get()!;
    const top = tops.get()!;
    return top.f !== at.f || top.d !== at.d || top.c > at.c;
  };
  const oneUnit = (): void => {
    const seq = unit.deferred();
    // The log's applied rows go once the index holds their changes (a write to the store, after the
    // search file's commit: no lock is held while waiting for the store's). If this fails, the
    // watermark still says they were applied, and the next unit that applies changes removes them too.
    if (seq > 0) {
      try {
        applied(seq);
      } catch {
        // as said
      }
    }
  };
  return {
    pendingFields,
    pending,
    unit: oneUnit,
    catchUp: () => {
      while (pending()) oneUnit();
    },
  };
}
