/**
 * Text from outside (a file name, a path, a service's message) as DocSync prints or shows it
 * (issue 26). Anyone who can write into a hot folder chooses its names: a name holding a newline,
 * a carriage return or a terminal escape could otherwise print a convincing false line ("failed
 * invoice.pdf: ...") or rewrite the terminal. Control characters, and the invisible ones that
 * reorder or break lines (bidi overrides, line separators), are shown escaped and visible instead.
 * JSON output is exact and does not use this.
 */

// C0 and C1 controls, DEL, the Arabic letter mark, LRM/RLM, line/paragraph separators, bidi embeddings,
// overrides and isolates.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escape = (c: string): string => {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0) as number;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
};

/** `text` with every control or hidden character shown as an escape (`\n`, `\x1b`, `\u{202e}`): one visible line. */
export function shown(text: string): string {
  return text.replace(HIDDEN, escape);
}

/** Like `shown`, but keeps the line breaks of text that is meant to have several lines (a notice's detail). */
export function shownLines(text: string): string {
  return text.split('\n').map(shown).join('\n');
}
