/** The database handle type and small helpers shared by the store's modules. */
import type BetterSqlite3 from 'better-sqlite3';

export type Db = BetterSqlite3.Database;

/** SQLite booleans: 1, 0 or NULL. */
export const bit = (v: boolean | null | undefined): 0 | 1 | null => (v === undefined || v === null ? null : v ? 1 : 0);
export const bool = (v: unknown): boolean | null => (v === null || v === undefined ? null : v === 1 || v === 1n);
