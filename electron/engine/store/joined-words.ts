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
 * nothing (one part, or "12.50"), so plain words add nothing to the index.
 */
export function joinedWord(word: string): string | null {
  const parts = [...word.matchAll(PART)];
  if (parts.length < 2) return null;
  const tokens = [parts[0]![0]];
  for (let i = 1; i < parts.length; i++) {
    const prev = parts[i - 1]!;
    const part = parts[i]![0];
    const sep = word.slice(prev.index + prev[0].length, parts[i]!.index);
    const decimal = DIGITS.test(prev[0]) && DIGITS.test(part) && NUMBER_SEPARATOR.test(sep) && part.length !== 3;
    if (decimal) tokens.push(part);
    else tokens[tokens.length - 1] += part;
  }
  return tokens.length === parts.length ? null : tokens.join(' ');
}

/**
 * A text's words: whitespace separates them, except a space between digits before a group of
 * exactly three, which is a thousands separator ("1 250,00", as French and Swiss invoices print it).
 */
export const TEXT_WORD = /\p{Nd}{1,3}(?:[ \u00a0\u202f]\p{Nd}{3}(?!\p{Nd}))+\S*|\S+/gu;

/** The joined forms of a text's words (those that change), or null: what the index's `joined` columns hold. */
export function joinedWords(text: string | null): string | null {
  if (text === null) return null;
  const out = (text.match(TEXT_WORD) ?? []).flatMap((w) => joinedWord(w) ?? []);
  return out.length === 0 ? null : out.join(' ');
}

/** SQL function `joined_words(text)` used by the search triggers (migration 008); registered on every open. */
export function registerJoinedWords(db: Db): void {
  db.function('joined_words', { deterministic: true }, (text: unknown) => joinedWords(typeof text === 'string' ? text : text == null ? null : String(text)));
}
