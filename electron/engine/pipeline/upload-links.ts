/**
 * The link rule again at upload (issue 26; watch/links.ts): a file taken in as a plain file of its
 * folder may have been swapped for a link to the owner's files before its bytes are read.
 *
 * How the race is closed: compare the file actually read with where the path leads, not the path twice.
 * A small file's bytes are read in one look (file-worker.ts `snapshot`), which gives the device and
 * inode of the open file they came from; right after, the path is resolved (realpath) and the file it
 * leads to must lie inside the folder and be that same device and inode. A larger file is read later,
 * part by part: those reads check the same device and inode on each open (file-slice.ts). A realpath
 * right before reading alone would leave the moment between it and the open to a swap.
 */
import { realpath } from 'node:fs/promises';
import type { BatchRow } from '../store/index.js';
import { insideReal } from '../watch/links.js';
import { settingsOf, type PipelineContext } from './context.js';
import { realSeen, type Snapshot } from './file-worker.js';

/** A batch's folder, when links leading outside it are not taken: its real path. */
export interface LinkRule {
  realRoot: string;
}

/** The rule for a batch's files; undefined for a drop (the user chose those files) or a folder that takes such links. */
export async function linkRule(ctx: PipelineContext, b: BatchRow): Promise<LinkRule | undefined> {
  const folder = b.folderId === null ? undefined : ctx.store.folders.get(b.folderId);
  if (!folder || settingsOf(folder).followLinks) return undefined;
  // The folder gone or unreachable: its files then cannot be read either (the look says so).
  const realRoot = await realpath(settingsOf(folder).path).catch(() => null);
  return realRoot === null ? undefined : { realRoot };
}

export type LinkCheck = { is: 'same'; dev: number; ino: number } | { is: 'outside'; real: string } | { is: 'changed' | 'missing' };

/** After `snap`, the look that read the file (or only stat'ed it, for a large one): may it go? */
export async function checkLinks(path: string, rule: LinkRule, snap: Snapshot): Promise<LinkCheck> {
  const r = await realSeen(path).catch(() => null);
  if (!r?.isFile) return { is: 'missing' };
  if (!insideReal(r.real, rule.realRoot)) return { is: 'outside', real: r.real };
  // The bytes read were of another file than the one the path leads to now: swapped meanwhile.
  if (snap.ino !== undefined && (snap.ino !== r.ino || snap.dev !== r.dev)) return { is: 'changed' };
  return { is: 'same', dev: r.dev, ino: r.ino };
}
