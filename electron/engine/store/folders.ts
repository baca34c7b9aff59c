/** Hot folders and their settings (table `folders`). */
import type { Db } from './db.js';

export interface FolderRow {
  id: number;
  path: string;
  deploymentId: string | null;
  appId: string | null;
  /** The folder's rich settings, as given to `add`/`update` (JSON round-trip). */
  settings: Record<string, unknown>;
  enabled: boolean;
  createdMs: number;
  updatedMs: number;
}

export interface NewFolder {
  path: string;
  deploymentId?: string | null;
  appId?: string | null;
  settings?: Record<string, unknown>;
  enabled?: boolean;
}

interface Raw { id: number; path: string; deployment_id: string | null; app_id: string | null; settings_json: string; enabled: number; created_ms: number; updated_ms: number }

const row = (r: Raw): FolderRow => ({
  id: r.id, path: r.path, deploymentId: r.deployment_id, appId: r.app_id,
  settings: JSON.parse(r.settings_json) as Record<string, unknown>, enabled: r.enabled === 1,
  createdMs: r.created_ms, updatedMs: r.updated_ms,
});

export function foldersQueries(db: Db, now: () => number = Date.now) {
  const insert = db.prepare<[string, string | null, string | null, string, number, number, number], Raw>(
    'INSERT INTO folders (path, deployment_id, app_id, settings_json, enabled, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *');
  const byId = db.prepare<[number], Raw>('SELECT * FROM folders WHERE id = ?');
  const byPath = db.prepare<[string], Raw>('SELECT * FROM folders WHERE path = ?');
  const existsById = db.prepare<[number], { n: number }>('SELECT 1 AS n FROM folders WHERE id = ?');
  const all = db.prepare<[], Raw>('SELECT * FROM folders ORDER BY id');
  const upd = db.prepare<[string | null, string | null, string, number, number, number], Raw>(
    'UPDATE folders SET deployment_id = ?, app_id = ?, settings_json = ?, enabled = ?, updated_ms = ? WHERE id = ? RETURNING *');
  const del = db.prepare<[number]>('DELETE FROM folders WHERE id = ?');
  const unreadableOf = db.prepare<[number], { path: string }>('SELECT path FROM folder_unreadable WHERE folder_id = ? ORDER BY path');
  const clearUnreadable = db.prepare<[number]>('DELETE FROM folder_unreadable WHERE folder_id = ?');
  const addUnreadable = db.prepare<[number, string, number]>('INSERT OR IGNORE INTO folder_unreadable (folder_id, path, seen_ms) VALUES (?, ?, ?)');
  const setUnreadable = db.transaction((id: number, paths: readonly string[]) => {
    clearUnreadable.run(id);
    const t = now();
    for (const p of paths) addUnreadable.run(id, p, t);
  });

  return {
    /** Adds a hot folder; throws (SQLITE_CONSTRAINT_UNIQUE) when the path is already a hot folder. */
    add(f: NewFolder): FolderRow {
      const t = now();
      return row(insert.get(f.path, f.deploymentId ?? null, f.appId ?? null, JSON.stringify(f.settings ?? {}), f.enabled === false ? 0 : 1, t, t)!);
    },
    /** Whether the folder is still there (asked per file taken in: no settings parsed). */
    exists(id: number): boolean {
      return existsById.get(id) !== undefined;
    },
    get(id: number): FolderRow | undefined {
      const r = byId.get(id);
      return r && row(r);
    },
    byPath(path: string): FolderRow | undefined {
      const r = byPath.get(path);
      return r && row(r);
    },
    list(): FolderRow[] {
      return all.all().map(row);
    },
    /** Changes the given properties; returns the updated row, or undefined when there is no such folder. */
    update(id: number, change: Partial<Omit<NewFolder, 'path'>>): FolderRow | undefined {
      const cur = byId.get(id);
      if (!cur) return undefined;
      const c = row(cur);
      return row(upd.get(
        change.deploymentId !== undefined ? change.deploymentId : c.deploymentId,
        change.appId !== undefined ? change.appId : c.appId,
        JSON.stringify(change.settings ?? c.settings),
        (change.enabled ?? c.enabled) ? 1 : 0,
        now(), id)!);
    },
    /** Subfolders (absolute paths) the folder's last scan could not read. */
    unreadable(id: number): string[] {
      return unreadableOf.all(id).map((r) => r.path);
    },
    /** Replaces the folder's unreadable subfolders (an empty list clears them); leaves the folder row as it is. */
    setUnreadable(id: number, paths: readonly string[]): void {
      if (byId.get(id)) setUnreadable.immediate(id, paths);
    },
    /** Removes a hot folder; the files seen in it stay (their folder_id becomes null). */
    remove(id: number): boolean {
      return del.run(id).changes > 0;
    },
  };
}

export type FoldersQueries = ReturnType<typeof foldersQueries>;
