/**
 * Files dropped on the UI in a browser are staged as copies in `<data>/dropped/<drop id>/` before
 * upload (handlers.ts). A copy is deleted once its file is done, its results stored (issue 26): it
 * holds the same invoice or payslip as the results, and kept for good it would only pile up. The copy
 * of a file that failed stays, so that "retry" can send it again; it goes once the retry is done. The
 * viewer shows a done file's original from the service's copy of the upload (handlers.ts).
 */
import { rm, rmdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

export const DROPPED_DIR = 'dropped';

/** The drop folder (`<home>/dropped/<id>`) holding `path`, or null when `path` is not a staged copy. */
function dropFolderOf(home: string, path: string): string | null {
  const rel = relative(join(home, DROPPED_DIR), path);
  const parts = rel.split(sep);
  if (rel === '' || parts[0] === '..' || parts.length < 2) return null;
  return join(home, DROPPED_DIR, parts[0] as string);
}

/** Whether `path` is a copy staged from a drop. */
export const isStagedCopy = (home: string, path: string): boolean => dropFolderOf(home, path) !== null;

/** What the viewer says for a staged copy that is gone, before why the service's copy cannot stand in. */
export const STAGED_COPY_GONE = 'DocSync does not keep a copy of a file dropped in the browser once its results are stored';

/** Deletes a staged copy, then its folders up to its drop's folder while they are empty. */
export async function removeStagedCopy(home: string, path: string): Promise<void> {
  const top = dropFolderOf(home, path);
  if (!top) return;
  await rm(path, { force: true });
  for (let dir = dirname(path); dir.startsWith(top); dir = dirname(dir)) {
    const gone = await rmdir(dir).then(() => true, () => false);
    if (!gone || dir === top) return;
  }
}
