/** Applies the store's migrations in order, each in its own transaction, tracked with PRAGMA user_version. */
import type { Db } from './db.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export class StoreVersionError extends Error {
  override name = 'StoreVersionError';
}

export function userVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database to `migrations.length`. Returns the versions applied (empty when the
 * database was already current). A database newer than this code is refused, never touched.
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const from = userVersion(db);
  if (from > migrations.length) {
    throw new StoreVersionError(`the local database is at schema version ${from}, newer than this DocSync (${migrations.length}): update DocSync`);
  }
  const applied: number[] = [];
  // A table that others reference can only be rebuilt with foreign keys off (dropping it would
  // otherwise run their ON DELETE actions); they are checked before each migration commits. The
  // setting cannot change inside a transaction, so it is switched around them.
  const fk = db.pragma('foreign_keys', { simple: true }) === 1;
  if (fk) db.pragma('foreign_keys = OFF');
  try {
    for (let v = from; v < migrations.length; v++) {
      const m = migrations[v]!;
      db.transaction(() => {
        m(db);
        const broken = db.pragma('foreign_key_check') as { table: string }[];
        if (broken.length) throw new Error(`migration ${v + 1} left ${broken.length} broken reference(s), first in ${broken[0]!.table}`);
        db.pragma(`user_version = ${v + 1}`);
      }).immediate();
      applied.push(v + 1);
    }
  } finally {
    if (fk) db.pragma('foreign_keys = ON');
  }
  return applied;
}
