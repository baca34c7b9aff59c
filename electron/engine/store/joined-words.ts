/**
 * Words as people type them: "INV-3003" is one thing to a person but two tokens (inv, 3003) to
 * FTS5's unicode61 tokenizer, and "1,250" printed on an invoice is the number 1250. Each word with
 * punctuation inside is also indexed joined ("inv3003", "1250 00" for "1,250.00"), and a query word
 * is joined the same way, so prefixes match across the punctuation and separators do not matter.
 */
import type { Db } from './db.js';

const PART = /[\p{L}\p{N}\p{M}]+/gu;
const DIGITS = /^\p{Nd}+$/u;
/** Between digits, these separate thousands (before exactly three digits) or decimals (otherwise). */
const NUMBER_SEPARATOR = /^[.,'’ \u00a0\u202f]$/u;

/**
 * A word's parts joined: punctuation inside a word goes, except a decimal separator, which starts a
 * new token ("1.250,00" -> "1250 00", "INV-2026-0042" -> "INV20260042"). Null when joining changes
 * nothing (one part, or "12.50"), so plain words add nothing to the index. Runs for every stored
 * value (the index's `joined` columns): one pass of `PART`, no arrays.
 */
export function joinedWord(word: string): string | null {
  PART.lastIndex = 0;
  let m = PART.exec(word);
  if (m === null) return null;
  let prev = m[0];
  let prevEnd = m.index + prev.length;
  let out = prev;
  let parts = 1;
  let tokens = 1;
  while ((m = PART.exec(word)) !== null) {
    const part = m[0];
    const decimal = part.length !== 3 && DIGITS.test(prev) && DIGITS.test(part) && NUMBER_SEPARATOR.test(word.slice(prevEnd, m.index));
    if (decimal) tokens++;
    out += decimal ? ` ${part}` : part;
    parts++;
    prev = part;
    prevEnd = m.index + part.length;
  }
  return tokens === parts ? null : out;
}

/**
 * A text's words: whitespace separates them, except a space between digits before a group of
 * exactly three, which is a thousands separator ("1 250,00", as French and Swiss invoices print it).
 */
export const TEXT_WORD = /\p{Nd}{1,3}(?:[ \u00a0\u202f]\p{Nd}{3}(?!\p{Nd}))+\S*|\S+/gu;

/** Text with only letters, digits, marks and spaces, and no space between digits (thousands), has nothing to join; other text is read word by word. */
const MAY_JOIN = /[^\p{L}\p{N}\p{M}\s]|\p{Nd}\s\p{Nd}/u;

/** The joined forms of a text's words (those that change), or null: what the index's `joined` columns hold. */
export function joinedWords(text: string | null): string | null {
  if (text === null || !MAY_JOIN.test(text)) return null;
  let out: string | null = null;
  for (const [w] of text.matchAll(TEXT_WORD)) {
    const j = joinedWord(w);
    if (j !== null) out = out === null ? j : `${out} ${j}`;
  }
  return out;
}

/** SQL function `joined_words(text)`: fills the `joined` columns (search-index.ts, migration 008's view and update triggers); registered on every open. */
export function registerJoinedWords(db: Db): void {
  db.function('joined_words', { deterministic: true }, (text: unknown) => joinedWords(typeof text === 'string' ? text : text == null ? null : String(text)));
}
