/**
 * A link to a file outside its hot folder (watch/links.ts) shows in Activity as skipped with the reason,
 * and is taken after all once the folder allows such links or the link is replaced by a file.
 */
import type { FileRow } from '../store/index.js';
import type { StableFile } from '../watch/watcher.js';
import { OUTSIDE_LINK } from '../watch/links.js';
import { shown } from '../../../shared/shown.js';
import type { PipelineContext } from './context.js';
import { markSetAside } from './set-aside.js';

/** A row skipped only because it was a link leading outside its folder. */
export const isOutsideLink = (f: FileRow): boolean => f.state === 'skipped' && f.batchId === null && (f.error?.startsWith(OUTSIDE_LINK) ?? false);

/** The reason stored: the first line is shown on the row; where the link leads, behind it. */
export const outsideLinkReason = (real: string): string => `${OUTSIDE_LINK}\nIt leads to ${shown(real)}`;

/** Records the version seen as skipped (once: a rescan that finds the same link adds nothing). */
export function markOutsideLink(ctx: PipelineContext, folderId: number, obs: StableFile, real: string): void {
  markSetAside(ctx, folderId, obs, { state: 'skipped', why: outsideLinkReason(real), setAside: isOutsideLink });
}
