/**
 * Local names for strings that come from the service (issue 26, item 3): a run id becomes a folder
 * under `artifacts/`, a post-processed PDF's service path a file name, a shared folder's record a
 * path in the hot folder. A hostile or careless service must not reach outside the folder meant for
 * it, nor turn two of its names into one local file (Windows and macOS compare names without case).
 * safe-names.ts is the other direction: local names as the service gets them.
 */
import { createHash } from 'node:crypto';
import nodePath, { type PlatformPath } from 'node:path';
import { safeFileName } from '../watch/safe-names.js';

/** Longest name made here: leaves room for the data home and the rest of a path on Windows. */
export const MAX_LOCAL = 120;

/** Ids kept as they are (a sandbox run id, a UUID, a number): lower case only, so no two differ by case alone. */
const PLAIN = /^[a-z0-9_-][a-z0-9._-]*$/;
/** Names Windows reserves, also with an extension (`con.pdf`, `con.tar.gz`). */
const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;
const HASH = 10;

const isDevice = (name: string): boolean => DEVICE.test((name.split('.')[0] ?? '').trimEnd());
/** Over the exact UTF-16 code units: lone surrogates must not make two ids one. */
const shortHash = (s: string): string => createHash('sha256').update(Buffer.from(s, 'utf16le')).digest('hex').slice(0, HASH);

/**
 * The folder or file name for a service id. An ordinary id (lower-case letters, digits, `._-`) stays
 * as it is, so existing data homes keep their folders. Any other id becomes its readable part plus
 * `~` and a hash of the exact id: `~` never occurs in an id kept as it is, so two ids never share a
 * name, not even compared without case.
 */
export function localName(id: string): string {
  if (id.length <= MAX_LOCAL && PLAIN.test(id) && !id.endsWith('.') && !isDevice(id)) return id;
  // Only a hint for a person looking at the folder: the hash tells ids apart.
  let readable = id.replace(/[^A-Za-z0-9._-]|\.{2,}/g, '_').replace(/_{2,}/g, '_').slice(0, MAX_LOCAL - HASH - 2).replace(/^[._]+|[._]+$/g, '');
  if (readable === '') readable = '_';
  if (isDevice(readable)) readable = `_${readable}`;
  return `${readable}~${shortHash(id)}`;
}

/** How a file system that ignores case and Unicode normalisation (Windows, macOS) may see a name; merging too much only costs a suffix. */
const sameAs = (s: string): string => s.normalize('NFC').toUpperCase().toLowerCase();

function splitExt(name: string): [string, string] {
  const m = /\.[A-Za-z0-9]{1,10}$/.exec(name);
  return m && m.index > 0 ? [name.slice(0, m.index), m[0]] : [name, ''];
}

/** `stem` cut (by code points) so that `stem + tail` fits MAX_LOCAL characters and 255 UTF-8 bytes. */
function fit(stem: string, tail: string): string {
  const points = [...stem];
  const fits = (n: number): boolean => {
    const s = points.slice(0, n).join('') + tail;
    return s.length <= MAX_LOCAL && Buffer.byteLength(s) <= 255;
  };
  let n = points.length;
  while (n > 1 && !fits(n)) n--;
  return points.slice(0, n).join('').trimEnd() + tail;
}

/**
 * File names for one local folder, from names or paths the service gives: safe (see safeFileName),
 * not a Windows device name, and unique in the folder without case (`a.pdf`, `A (2).pdf`). A name's
 * `.part` (downloads.ts writes there first) is kept free too.
 */
export class LocalFileNames {
  readonly #taken = new Set<string>();

  /** `existing`: names already used in the folder. */
  constructor(existing: Iterable<string> = []) {
    for (const n of existing) this.#take(n);
  }

  assign(serviceName: string): string {
    let safe = safeFileName(serviceName);
    if (isDevice(safe)) safe = `_${safe}`;
    const [stem, ext] = splitExt(safe);
    let name = fit(stem, ext);
    for (let n = 2; this.#taken.has(sameAs(name)) || this.#taken.has(sameAs(`${name}.part`)); n++) name = fit(stem, ` (${n})${ext}`);
    this.#take(name);
    return name;
  }

  #take(name: string): void {
    this.#taken.add(sameAs(name));
    this.#taken.add(sameAs(`${name}.part`));
  }
}

/** A name from the service would have put a file outside the folder meant for it. */
export class OutsideFolderError extends Error {
  override name = 'OutsideFolderError';
}

/** Whether `path` lies strictly inside `root` once both are resolved. */
export function isInside(root: string, path: string, p: PlatformPath = nodePath): boolean {
  const rel = p.relative(p.resolve(root), p.resolve(root, path));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${p.sep}`) && !p.isAbsolute(rel);
}

/** `root` joined with names already made safe: the second guard, refusing whatever still resolves outside `root`. */
export function pathInside(root: string, names: readonly string[], p: PlatformPath = nodePath): string {
  const path = p.resolve(root, ...names);
  if (!isInside(root, path, p)) throw new OutsideFolderError(`DocSync did not save ${JSON.stringify(names.join('/'))}: the service's name would have put it outside ${root}.`);
  return path;
}

/**
 * The local path of a file that a shared folder's record names by `rel` (`sub/a.pdf`, relative to the
 * folder). Another agent wrote the record through the service, so a `rel` that climbs out of the
 * folder, or could on Windows (`\`, `C:`), is refused: the file is not taken, and never moved or deleted.
 */
export function sharedFilePath(folder: string, rel: string, p: PlatformPath = nodePath): string {
  const parts = rel.split('/');
  const bad = (s: string): boolean => s === '' || s === '.' || s === '..' || s.includes('\0') || (p.sep === '\\' && /[\\:]/.test(s));
  if (parts.some(bad)) throw new OutsideFolderError(`The shared folder's records name a file that is not inside the folder (${JSON.stringify(rel)}); DocSync does not take it.`);
  return pathInside(folder, parts, p);
}
