/**
 * Which paths of a hot folder are candidates. Default ignores (issue 4): dotfiles and dot-folders, partial
 * downloads and temp files (`*.part`, `*.crdownload`, `*.tmp`) and Office lock files (`~$*`); plus the
 * folder's own ignore patterns. When include patterns are given, a file must also match one of them.
 * Paths are relative to the watched folder with `/` separators.
 */
import { compileGlob, type GlobMatcher } from '../../../shared/glob.js';

export const DEFAULT_IGNORES: readonly string[] = ['.*', '*.part', '*.crdownload', '~$*', '*.tmp'];

export interface PathFilter {
  /** False for a folder the scan must not enter (dot-folders, folders matching an ignore pattern). */
  dirAllowed(rel: string): boolean;
  /** True for a file that is a candidate (its folders are assumed allowed). */
  fileAllowed(rel: string): boolean;
  /** True when any segment of `rel` is ignored (for watcher hints, where file or folder is not known). */
  pathIgnored(rel: string): boolean;
}

export interface FilterOptions {
  include?: readonly string[];
  ignore?: readonly string[];
  /** Case-insensitive matching; default: true on Windows and macOS. */
  nocase?: boolean;
}

export function toRel(p: string): string {
  return p.replace(/\\/g, '/').replace(/^\/+/, '');
}

export function createFilter(opts: FilterOptions = {}): PathFilter {
  const nocase = opts.nocase ?? (process.platform === 'win32' || process.platform === 'darwin');
  const ignores: GlobMatcher[] = [...DEFAULT_IGNORES, ...(opts.ignore ?? [])].map((p) => compileGlob(p, { nocase }));
  const includes: GlobMatcher[] = (opts.include ?? []).map((p) => compileGlob(p, { nocase }));
  const ignored = (rel: string): boolean => ignores.some((m) => m.match(rel));
  return {
    dirAllowed: (rel) => !ignored(toRel(rel)),
    fileAllowed(rel) {
      const r = toRel(rel);
      if (ignored(r)) return false;
      return includes.length === 0 || includes.some((m) => m.match(r));
    },
    pathIgnored(rel) {
      const segs = toRel(rel).split('/');
      for (let i = 1; i <= segs.length; i++) if (ignored(segs.slice(0, i).join('/'))) return true;
      return false;
    },
  };
}
