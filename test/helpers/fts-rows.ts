/**
 * How many rows an FTS5 index holds. The search indexes keep no row per indexed row
 * (`columnsize = 0`, migration 012), so this reads the index's own total: the first varint of its
 * "averages" record (`<table>_data` row 1), in SQLite's varint format (7 bits a byte, high bit set
 * on every byte but the last; big-endian).
 */
interface Db { prepare(sql: string): { get(): unknown } }

export function ftsRows(db: Db, table: 'field_search' | 'document_search'): number {
  const row = db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).get() as { block: Uint8Array } | undefined;
  // A new index's record is empty until its first row.
  if (row === undefined || row.block.length === 0) return 0;
  let n = 0;
  for (const [i, b] of row.block.entries()) {
    // The ninth byte of a varint holds 8 bits; totals in tests never get there.
    if (i === 8) throw new Error('FTS5 row total too large for this helper');
    n = n * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) return n;
  }
  throw new Error(`${table}: the averages record ends inside its row total`);
}
