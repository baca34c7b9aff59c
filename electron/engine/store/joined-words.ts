/**
 * Words as people type them: "INV-3003" is one thing to a person but two tokens (inv, 3003) to
 * FTS5's unicode61 tokenizer, and "1,250" printed on an invoice is the number 1250. Each word with
 * punctuation inside is also indexed joined ("inv3003", "1250 00" for "1,250.00"), and a query word
 * is joined the same way, so prefixes match across the punctuation and separators do not matter.
 */
import type { Db } from './db.js';

/**
 * The module's code, whole, in one function that uses nothing from outside it: the search index's
 * worker thread (search-worker.ts) runs the same code from this function's text, since the app, the
 * command line and the tests each build the engine differently and share no file a worker could load.
 */
export function joinedWordsModule() {
  const PART = /[\p{L}\p{N}\p{M}]+/gu;
  const DIGITS = /^\p{Nd}+$/u;
  /** Between digits, these separate thousands (before exactly three digits) or decimals (otherwise). */
  const NUMBER_SEPARATOR = /^[.,'’ \u00a0\u202f]$/u;

  /**
   * A word's parts joined: punctuation inside a word goes, except a decimal separator, which starts a
   * new token ("1.250,00" -> "1250 00", "INV-2026-0042" -> "INV20260042"). Null when joining changes
   * nothing (one part, or "12.50"), so plain words add nothing to the index. Runs for every stored
   * value that is not ASCII (the index's `joined` columns) and every query word: one pass of `PART`,
   * no arrays.
   */
  function joinedWord(word: string): string | null {
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
  const TEXT_WORD = /\p{Nd}{1,3}(?:[ \u00a0\u202f]\p{Nd}{3}(?!\p{Nd}))+\S*|\S+/gu;

  /** Text with only letters, digits, marks and spaces, and no space between digits (thousands), has nothing to join; other text is read word by word. */
  const MAY_JOIN = /[^\p{L}\p{N}\p{M}\s]|\p{Nd}\s\p{Nd}/u;

  /**
   * The joined forms of a text's words (those that change), or null: what the index's `joined` columns
   * hold. SQLite calls this for every stored field value as the search index catches up, so its cost is
   * part of results ingest (issue 14): ASCII text, most values, is read by a char-code scanner that
   * gives what the regexes give, several times faster; other text by the regexes.
   */
  function joinedWords(text: string | null): string | null {
    if (text === null) return null;
    // MAY_JOIN by char codes, up to the first char that may join (most values have none): text that
    // has nothing to join gives null before any word is read. The scanner checks the rest for ASCII.
    const n = text.length;
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) return joinedWordsByRegex(text);
      const k = ASCII_CLASS[c]!;
      if (k & PART_CHAR) continue;
      if (!(k & WHITESPACE) || (i > 0 && i + 1 < n && isDigit(text.charCodeAt(i - 1)) && isDigit(text.charCodeAt(i + 1)))) break;
    }
    if (i === n) return null;
    const out = joinedWordsAscii(text);
    return out === undefined ? joinedWordsByRegex(text) : out;
  }

  /** `joinedWords` as the regexes read it (`MAY_JOIN`, `TEXT_WORD`, `joinedWord`), for any text; the tests' reference for the ASCII scanner. */
  function joinedWordsByRegex(text: string): string | null {
    if (!MAY_JOIN.test(text)) return null;
    let out: string | null = null;
    for (const [w] of text.matchAll(TEXT_WORD)) {
      const j = joinedWord(w);
      if (j !== null) out = out === null ? j : `${out} ${j}`;
    }
    return out;
  }

  /*
   * The ASCII scanner. Why ASCII is safe to read by char codes: a char code below 0x80 is a whole code
   * point (no surrogate pairs), and there the regexes' Unicode classes come down to a few fixed sets:
   * letters (\p{L}) are A-Z a-z, numbers (\p{N}) and decimal digits (\p{Nd}) 0-9, marks (\p{M}) none,
   * whitespace (\s) \t \n \v \f \r and space (not 0x1c-0x1f, unlike some other languages' \s); of the
   * thousands spaces only the space, and of NUMBER_SEPARATOR only . , ' and space. Every other char
   * (punctuation, control characters, DEL) is neither part nor whitespace. ASCII_CLASS holds these
   * sets, computed once from the same classes.
   */
  const PART_CHAR = 1;
  const DIGIT = 2;
  const WHITESPACE = 4;
  const DECIMAL_SEPARATOR = 8;
  const SPACE = 0x20;
  const ASCII_CLASS = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    ASCII_CLASS[c] = (/[\p{L}\p{N}\p{M}]/u.test(ch) ? PART_CHAR : 0) | (/\p{Nd}/u.test(ch) ? DIGIT : 0)
      | (/\s/u.test(ch) ? WHITESPACE : 0) | (NUMBER_SEPARATOR.test(ch) ? DECIMAL_SEPARATOR : 0);
  }

  /** \p{Nd} in ASCII. */
  function isDigit(c: number): boolean {
    return c >= 0x30 && c <= 0x39;
  }

  /**
   * `joinedWordsByRegex` for ASCII text, in one pass with no arrays (a word's parts are read again only
   * when decimals come before its first join), slicing the text only for words that join. Undefined if
   * a char above 0x7f turns up: the caller reads the text with the regexes instead. Exported for the
   * tests, which compare it with the regexes directly.
   */
  function joinedWordsAscii(text: string): string | null | undefined {
    const n = text.length;
    let out = '';
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) return undefined;
      if (ASCII_CLASS[c]! & WHITESPACE) {
        i++;
        continue;
      }
      // A word (TEXT_WORD) starts at i. Its first alternative: a run of 1-3 digits, then as many groups
      // as there are of a space and exactly three digits not followed by a digit (at least one), then
      // the rest up to whitespace. A shorter prefix of the run cannot reach the space (a digit follows
      // it), so no other match exists. Otherwise the second alternative: up to whitespace. So
      // "1234 567" is two words, "12 345 6789" is "12 345" and "6789". Spaces before groupsEnd are in
      // the word.
      let groupsEnd = i;
      if (isDigit(c)) {
        let j = i + 1;
        while (j < n && isDigit(text.charCodeAt(j))) j++;
        if (j - i <= 3) {
          const runEnd = j;
          while (
            j + 3 < n && text.charCodeAt(j) === SPACE && isDigit(text.charCodeAt(j + 1)) && isDigit(text.charCodeAt(j + 2)) && isDigit(text.charCodeAt(j + 3))
            && (j + 4 === n || !isDigit(text.charCodeAt(j + 4)))
          ) j += 4;
          if (j > runEnd) groupsEnd = j;
        }
      }
      // The word's parts (joinedWord): runs of letters and digits. Nothing is built until a part joins
      // its previous one (a part after a decimal separator starts a new token instead); a word whose
      // parts all start tokens gives null, as does a word of one part.
      let firstStart = -1;
      let prevStart = -1;
      let prevEnd = -1;
      let prevDigits = false;
      let partStart = -1;
      let digits = false;
      let joins = false;
      for (; ; i++) {
        const d = i < n ? text.charCodeAt(i) : SPACE; // the end of the text ends the word
        if (d > 0x7f) return undefined;
        const k = ASCII_CLASS[d]!;
        if (k & PART_CHAR) {
          if (partStart === -1) {
            partStart = i;
            digits = true;
          }
          if (!(k & DIGIT)) digits = false;
          continue;
        }
        if (partStart !== -1) {
          if (prevStart === -1) firstStart = partStart;
          else {
            // A decimal separator: exactly one of . , ' space between digits, not before three digits.
            const decimal = i - partStart !== 3 && prevDigits && digits && partStart === prevEnd + 1
              && (ASCII_CLASS[text.charCodeAt(prevEnd)]! & DECIMAL_SEPARATOR) !== 0;
            if (!joins && !decimal) {
              joins = true;
              if (out !== '') out += ' ';
              if (prevStart === firstStart) out += text.slice(firstStart, prevEnd);
              else {
                // Parts so far are tokens, each after a one-char separator: the separators become spaces.
                let from = firstStart;
                for (let q = firstStart; q < prevEnd; q++) {
                  if (!(ASCII_CLASS[text.charCodeAt(q)]! & PART_CHAR)) {
                    out += text.slice(from, q);
                    out += ' ';
                    from = q + 1;
                  }
                }
                out += text.slice(from, prevEnd);
              }
            }
            if (joins) out += decimal ? ` ${text.slice(partStart, i)}` : text.slice(partStart, i);
          }
          prevStart = partStart;
          prevEnd = i;
          prevDigits = digits;
          partStart = -1;
        }
        if ((k & WHITESPACE) !== 0 && i >= groupsEnd) break;
      }
    }
    return out === '' ? null : out;
  }

  /** `joinedWords` as the SQL function `joined_words` is called: with any value. */
  const sqlJoinedWords = (text: unknown): string | null => joinedWords(typeof text === 'string' ? text : text == null ? null : String(text));

  return { joinedWord, joinedWords, joinedWordsByRegex, joinedWordsAscii, TEXT_WORD, sqlJoinedWords };
}

export const { joinedWord, joinedWords, joinedWordsByRegex, joinedWordsAscii, TEXT_WORD, sqlJoinedWords } = joinedWordsModule();

/** SQL function `joined_words(text)`: fills the `joined` columns (search-units.ts, and migrations before 019); registered on every open. */
export function registerJoinedWords(db: Db): void {
  db.function('joined_words', { deterministic: true }, sqlJoinedWords);
}
