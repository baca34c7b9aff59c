/**
 * Links in a hot folder (issue 26). On a shared scan folder anyone who may write there can make a link;
 * followed blindly, it had the owner's own files (~/.ssh, payroll) uploaded and shown. So:
 * - a link whose target lies outside the folder is not taken unless the folder allows it
 *   (`followLinks`); it shows as skipped with OUTSIDE_LINK;
 * - a link to a file inside the folder is not taken itself: its target is, as a file of the folder,
 *   once (and only when the folder's rules take it);
 * - links to folders are never descended into (scan.ts), inside or out.
 * "Outside" is decided on real paths (realpath: links to links and relative links resolved, the
 * folder's own path too, when it is itself reached through a link).
 */
import path from 'node:path';
import { realSeen, type Real } from '../pipeline/file-worker.js';

/** Why such a link is skipped, in the user's words (the file's first line in Activity). */
export const OUTSIDE_LINK = 'a link to a file outside the hot folder';

/**
 * Where a path below a hot folder leads: to itself (no link on the way), to another file of the
 * folder, or outside it. null: nowhere (a dangling link, a loop, gone). Other failures (a folder on the
 * way that may not be searched) reject, as reading the file would.
 */
export type Leads = { to: 'itself' | 'inside' | 'outside'; real: Real };

const NOWHERE = new Set(['ENOENT', 'ENOTDIR', 'ELOOP']);

/** `real` lies below `realRoot` (both real paths). */
export function insideReal(real: string, realRoot: string): boolean {
  const rel = path.relative(realRoot, real);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * `p` is a path below `root` (the folder as configured); `realRoot` is realpath(root). One realpath,
 * in the file worker: called for every file taken in, so no trip of its own to the thread pool.
 */
export async function whereLeads(p: string, root: string, realRoot: string): Promise<Leads | null> {
  let real: Real;
  try {
    real = await realSeen(p);
  } catch (err) {
    if (NOWHERE.has((err as NodeJS.ErrnoException).code ?? '')) return null;
    throw err;
  }
  if (real.real === path.join(realRoot, path.relative(root, p))) return { to: 'itself', real };
  return { to: insideReal(real.real, realRoot) ? 'inside' : 'outside', real };
}
