/**
 * Where one top-level key's value lies in a JSON body, found without parsing it: a results page
 * repeats the run's whole case_info (several MB for a large run) on every page, and only the last
 * page's copy is read (results.ts).
 *
 * Written here rather than taken from the registry: the streaming JSON parsers (stream-json and
 * the like) tokenize every value and emit events for them, which is what this avoids; this only
 * tracks strings and nesting, on the received bytes, with the string ends found natively
 * (Buffer.indexOf). JSON's structural characters are ASCII, so a UTF-8 byte scan is exact.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

export interface Span {
  /** Offset of the value's first byte. */
  start: number;
  /** Offset just past its last byte. */
  end: number;
}

/** The offset just past the string whose opening quote is at `at`, or -1 when it never closes. */
function skipString(b: Buffer, at: number): number {
  for (let i = at + 1; ; ) {
    const q = b.indexOf(QUOTE, i);
    if (q === -1) return -1;
    // Escaped when an odd number of backslashes precede it.
    let n = 0;
    while (b[q - 1 - n] === BACKSLASH) n++;
    if (n % 2 === 0) return q + 1;
    i = q + 1;
  }
}

/** The offset just past the value starting at `at` (after any white space), or -1 when it does not end. */
function skipValue(b: Buffer, at: number): number {
  const first = b[at];
  if (first === QUOTE) return skipString(b, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number, true, false or null: up to the next delimiter. (Checked by JSON.parse later, if read.)
    let i = at;
    while (i < b.length && !isSpace(b[i]) && b[i] !== COMMA && b[i] !== CLOSE_OBJECT && b[i] !== CLOSE_ARRAY) i++;
    return i === at ? -1 : i;
  }
  let depth = 0;
  for (let i = at; i < b.length; i++) {
    const c = b[i];
    if (c === QUOTE) {
      i = skipString(b, i);
      if (i === -1) return -1;
      i--;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

const skipSpace = (b: Buffer, i: number): number => {
  while (isSpace(b[i])) i++;
  return i;
};

/**
 * The span of the value of `key` in the top-level object of `body`. Null when the body is not a
 * JSON object as far as the scan can tell, when the key is absent or there twice, or when it is
 * written with escapes: the caller then parses the body whole, as before, and JSON.parse reports
 * whatever is wrong. Keys of nested objects are never matched.
 */
export function topLevelValueSpan(body: Buffer, key: string): Span | null {
  const want = Buffer.from(JSON.stringify(key));
  let found: Span | null = null;
  let i = skipSpace(body, 0);
  if (body[i] !== OPEN_OBJECT) return null;
  i = skipSpace(body, i + 1);
  if (body[i] === CLOSE_OBJECT) return null;
  for (;;) {
    if (body[i] !== QUOTE) return null;
    const keyEnd = skipString(body, i);
    if (keyEnd === -1) return null;
    const matches = keyEnd - i === want.length && body.compare(want, 0, want.length, i, keyEnd) === 0;
    i = skipSpace(body, keyEnd);
    if (body[i] !== COLON) return null;
    const start = skipSpace(body, i + 1);
    const end = skipValue(body, start);
    if (end === -1) return null;
    if (matches) {
      if (found) return null;
      found = { start, end };
    }
    i = skipSpace(body, end);
    if (body[i] === COMMA) {
      i = skipSpace(body, i + 1);
      continue;
    }
    if (body[i] !== CLOSE_OBJECT) return null;
    // Only white space may follow the object.
    return skipSpace(body, i + 1) === body.length ? found : null;
  }
}
