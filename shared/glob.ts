/**
 * A small glob matcher for hot-folder include/ignore patterns (no dependencies, no Node built-ins, so the UI
 * can validate patterns as they are typed).
 *
 * Syntax: `*` any run of characters except `/`; `**` any run including `/` (as a whole segment, `a/**\/b`
 * also matches `a/b`); `?` one character except `/`; `[abc]`, `[a-z]`, `[!abc]` a class; `{a,b}` alternatives
 * (nested allowed); `\x` a literal x. Paths are matched with `/` separators, relative to the watched folder.
 * A pattern without `/` matches the file's (or folder's) base name at any depth, as in .gitignore; a pattern
 * with `/` matches the whole relative path (a leading `/` is allowed and ignored).
 */

export interface GlobMatcher {
  readonly pattern: string;
  /** `rel` is a path relative to the watched folder with `/` separators. */
  match(rel: string): boolean;
}

export class GlobSyntaxError extends Error {
  constructor(pattern: string, why: string) {
    super(`bad pattern ${JSON.stringify(pattern)}: ${why}`);
    this.name = 'GlobSyntaxError';
  }
}

const REGEX_SPECIAL = /[.+^$()|{}[\]\\*?]/;
const escapeChar = (c: string): string => (REGEX_SPECIAL.test(c) ? `\\${c}` : c);

/** Translate a glob into regular-expression source; throws GlobSyntaxError on malformed input. */
function translate(pattern: string, src: string): string {
  let out = '';
  let braceDepth = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      const next = src[i + 1];
      if (next === undefined) throw new GlobSyntaxError(pattern, 'ends with a lone backslash');
      out += escapeChar(next);
      i++;
    } else if (c === '*') {
      if (src[i + 1] === '*') {
        const atSegmentStart = i === 0 || src[i - 1] === '/';
        i++;
        while (src[i + 1] === '*') i++;
        if (atSegmentStart && src[i + 1] === '/') {
          out += '(?:.*/)?';
          i++;
        } else {
          out += '.*';
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = src.indexOf(']', i + 2);
      if (close < 0) throw new GlobSyntaxError(pattern, 'a "[" is never closed');
      let body = src.slice(i + 1, close);
      let negate = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negate = true;
        body = body.slice(1);
      }
      if (body === '') throw new GlobSyntaxError(pattern, 'an empty [] class');
      const cls = [...body].map((ch) => (ch === '-' ? '-' : ch === '\\' || ch === ']' || ch === '^' ? `\\${ch}` : ch)).join('');
      out += negate ? `(?!/)[^${cls}]` : `[${cls}]`;
      i = close;
    } else if (c === '{') {
      braceDepth++;
      out += '(?:';
    } else if (c === '}') {
      if (braceDepth === 0) throw new GlobSyntaxError(pattern, 'a "}" without its "{"');
      braceDepth--;
      out += ')';
    } else if (c === ',' && braceDepth > 0) {
      out += '|';
    } else {
      out += escapeChar(c);
    }
  }
  if (braceDepth > 0) throw new GlobSyntaxError(pattern, 'a "{" is never closed');
  return out;
}

/** Compile one pattern. `nocase` compares case-insensitively (Windows and macOS default volumes). */
export function compileGlob(pattern: string, opts: { nocase?: boolean } = {}): GlobMatcher {
  if (typeof pattern !== 'string' || pattern.trim() === '') throw new GlobSyntaxError(String(pattern), 'empty pattern');
  let src = pattern.trim();
  if (src.endsWith('/')) src = src.slice(0, -1);
  const anchored = src.includes('/');
  if (src.startsWith('/')) src = src.slice(1);
  const re = new RegExp(`^${translate(pattern, src)}$`, opts.nocase ? 'iu' : 'u');
  return {
    pattern,
    match(rel: string): boolean {
      if (anchored) return re.test(rel);
      const slash = rel.lastIndexOf('/');
      return re.test(slash < 0 ? rel : rel.slice(slash + 1));
    },
  };
}

/** Checks a pattern without throwing: undefined when it compiles, otherwise the reason. */
export function globError(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return `pattern must be a string, got ${typeof pattern}`;
  try {
    compileGlob(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
