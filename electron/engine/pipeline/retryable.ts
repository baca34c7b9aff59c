/**
 * Which failed files of a hot folder a change of its settings may fix, so that saving the settings
 * can offer to retry them.
 */
import type { FileRow, Store } from '../store/index.js';

/**
 * The rule: a failed file of the folder that had been taken into a batch (it has a batchId) failed at
 * the service: the service refused its batch (a wrong deployment or app, the target's settings,
 * permissions), its run failed, or the service failed the file (a PDF password missing or wrong).
 * What the service was given (the target and the run options) comes from the folder's settings, so
 * changing them may fix these. A file that failed before any batch could not be read on this
 * computer: no setting fixes that, and it is taken in again by itself once it can be read.
 */
export function failedBySettings(store: Store, folderId: number): FileRow[] {
  return store.files.list({ state: 'failed', folderId }).filter((f) => f.batchId !== null);
}
