/**
 * Keyboard movement for lists and trees (WAI-ARIA patterns), as pure functions of the key and the
 * visible rows, so components stay thin and the rules are unit-tested.
 */

/** The row to focus after `key` in a list of `count` rows; null when the key does not move. */
export function listMove(key: string, index: number, count: number, pageSize = 10): number | null {
  if (count <= 0) return null;
  const last = count - 1;
  const i = Math.min(Math.max(index, 0), last);
  switch (key) {
    case 'ArrowDown':
      return Math.min(last, index < 0 ? 0 : i + 1);
    case 'ArrowUp':
      return Math.max(0, index < 0 ? 0 : i - 1);
    case 'Home':
      return 0;
    case 'End':
      return last;
    case 'PageDown':
      return Math.min(last, i + pageSize);
    case 'PageUp':
      return Math.max(0, i - pageSize);
    default:
      return null;
  }
}

export interface TreeRow {
  key: string;
  /** 1-based depth, as aria-level. */
  level: number;
  parent: string | null;
  expandable: boolean;
  expanded: boolean;
}

export type TreeAction =
  | { kind: 'focus'; index: number }
  | { kind: 'expand'; key: string }
  | { kind: 'collapse'; key: string }
  | { kind: 'activate'; index: number }
  | { kind: 'none' };

/** ArrowRight opens a closed node, then steps into it; ArrowLeft closes an open one, then steps out. */
export function treeMove(key: string, rows: readonly TreeRow[], index: number): TreeAction {
  const row = rows[index];
  const moved = listMove(key, index, rows.length);
  if (moved !== null) return { kind: 'focus', index: moved };
  if (!row) return { kind: 'none' };
  switch (key) {
    case 'ArrowRight':
      if (row.expandable && !row.expanded) return { kind: 'expand', key: row.key };
      if (row.expandable && rows[index + 1]?.parent === row.key) return { kind: 'focus', index: index + 1 };
      return { kind: 'none' };
    case 'ArrowLeft': {
      if (row.expandable && row.expanded) return { kind: 'collapse', key: row.key };
      const p = row.parent === null ? -1 : rows.findIndex((r) => r.key === row.parent);
      return p >= 0 ? { kind: 'focus', index: p } : { kind: 'none' };
    }
    case 'Enter':
    case ' ':
      return { kind: 'activate', index };
    default:
      return { kind: 'none' };
  }
}
