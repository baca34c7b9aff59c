// Words as people type them (issue 12): what the search indexes hold joined, and what they leave alone.
import { describe, expect, it } from 'vitest';
import { joinedWord, joinedWords, joinedWordsAscii, joinedWordsByRegex, TEXT_WORD } from '../../../../electron/engine/store/joined-words.js';

describe('joinedWord', () => {
  it.each([
    ['INV-3003', 'INV3003'],
    ['INV-2026-0042', 'INV20260042'],
    ['1,250', '1250'],
    ['1,250.00', '1250 00'],
    ['1.250,00', '1250 00'],
    ["1'250.50", '1250 50'],
    ['1,250,000', '1250000'],
    ['scan_0007.pdf', 'scan0007pdf'],
    ['Müller-Lüdenscheid', 'MüllerLüdenscheid'],
    ['(1,250.00)', '1250 00'],
  ])('%s -> %s', (word, joined) => expect(joinedWord(word)).toBe(joined));

  it.each(['INV', '1250', '12.50', '3.14159', '-', '', 'Café'])('%j is left alone (nothing to join, or decimals only)', (word) => expect(joinedWord(word)).toBeNull());
});

describe('joinedWords', () => {
  it('gives the joined form of each word that has one; spaced thousands are one number; null when none', () => {
    expect(joinedWords('Desk chair 1,250.00 EUR, ref INV-3003')).toBe('1250 00 INV3003');
    expect(joinedWords('2 480,00 € and 12 345 678')).toBe('2480 00 12345678');
    expect(joinedWords('2026 100 items')).toBeNull();
    expect(joinedWords('Müller Bürobedarf GmbH')).toBeNull();
    expect(joinedWords(null)).toBeNull();
  });
});

/** The first version (issue 12), kept as the reference: every word split into parts, then joined. */
function reference(text: string | null): string | null {
  if (text === null) return null;
  const word = (w: string): string | null => {
    const parts = [...w.matchAll(/[\p{L}\p{N}\p{M}]+/gu)];
    if (parts.length < 2) return null;
    const tokens = [parts[0]![0]];
    for (let i = 1; i < parts.length; i++) {
      const prev = parts[i - 1]!;
      const part = parts[i]![0];
      const sep = w.slice(prev.index + prev[0].length, parts[i]!.index);
      const decimal = /^\p{Nd}+$/u.test(prev[0]) && /^\p{Nd}+$/u.test(part) && /^[.,'’ \u00a0\u202f]$/u.test(sep) && part.length !== 3;
      if (decimal) tokens.push(part);
      else tokens[tokens.length - 1] += part;
    }
    return tokens.length === parts.length ? null : tokens.join(' ');
  };
  const out = (text.match(/\p{Nd}{1,3}(?:[ \u00a0\u202f]\p{Nd}{3}(?!\p{Nd}))+\S*|\S+/gu) ?? []).flatMap((w) => word(w) ?? []);
  return out.length === 0 ? null : out.join(' ');
}

describe('joinedWords: the single-pass version (issue 14) gives what the first one gave', () => {
  it('on 20,000 random texts of letters, digits, separators, spaces and marks', () => {
    const alphabet = ['a', 'Z', 'ü', 'e\u0301', '0', '1', '7', '١', ',', '.', "'", '’', '-', '_', '/', ' ', ' ', '\u00a0', '\u202f', '\t', '€', '(', ')'];
    let seed = 14;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let joined = 0;
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: 1 + rnd(14) }, () => alphabet[rnd(alphabet.length)]).join('');
      const want = reference(text);
      expect(joinedWords(text), JSON.stringify(text)).toBe(want);
      if (want !== null) joined++;
    }
    // Both kinds were drawn often enough to compare.
    expect(joined).toBeGreaterThan(2000);
    expect(joined).toBeLessThan(18_000);
  });
});

/** Seeded (mulberry32), so a failure names an input that can be run again. */
function prng(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

/** The first input on which the ASCII scanner (directly, and through joinedWords) and the regexes differ. */
function firstDifference(texts: Iterable<string>): { text: string; regex: string | null; joinedWords: string | null; ascii: string | null | undefined } | undefined {
  for (const text of texts) {
    const regex = joinedWordsByRegex(text);
    const fast = joinedWords(text);
    const ascii = joinedWordsAscii(text);
    if (fast !== regex || ascii !== regex) return { text, regex, joinedWords: fast, ascii };
  }
  return undefined;
}

describe('joinedWords: the ASCII scanner (issue 14, ingest cost) gives what the regexes give', () => {
  it('on the tricky cases', () => {
    // How words are split (TEXT_WORD, with its backtracking) and joined, as the regexes read them.
    const known: [string, string | null][] = [
      ['1 250,00', '1250 00'], ['12 345 678', '12345678'], ['1234 567', null], ['234 567', '234567'], ['12 345 6789', '12345'], ['1 2345', null],
      ['a 1 250', '1250'], [' 1 250 ', '1250'], ['1  250', null], ['1\t250', null], ['1.250,00', '1250 00'], ['12.50', null], ['INV-2026-0042', 'INV20260042'],
      ['1.5-2', '1 52'], ['1 250abc', '1250abc'], ['12 345x 678', '12345x'],
    ];
    for (const [text, joined] of known) expect(joinedWordsByRegex(text), JSON.stringify(text)).toBe(joined);
    const tricky = [
      ...known.map(([text]) => text),
      '', ' ', 'INV-3003', '1,250', '1,250.00', "1'250.50", '1,250,000', '3.14159', 'scan_0007.pdf', '(1,250.00)', '1\n250', '1\u000b250', '1\r250',
      '2026 100 items', 'Desk chair 1,250.00 EUR, ref INV-3003', '123 456 789', '1 250,5 000', '1 234 5678', '0 000 000', '1 250 1 250', '1 250\u00010',
      '1.5.7', '1.5.7-x', '1.5 7', '1.5,7-2', '1,25-3', 'a.b', "1'5", '1-5', '1_5', '1/5', '\u00011\u0001', '1\u001f250', '\u007f', 'a\u007fb', '1\u007f2',
      '-', '--1--', '1..5', '1.-5', '1 250.', '.1 250', 'INV-1 250', '1 250-INV', '1 250\t', '12 345\n678',
    ];
    expect(firstDifference(tricky)).toBeUndefined();
  });

  it('on 200,000 random ASCII texts of digits, letters, separators, whitespace and control chars', () => {
    // Digits and spaces weigh more, so spaced thousands ("1 250", "12 345 678") and their near misses come up often.
    const alphabet = ['0', '1', '2', '5', '9', '0', '3', '7', 'a', 'Z', 'x', '.', ',', "'", '-', '_', '/', ' ', ' ', ' ', '\t', '\n', '\r', '\u000b', '\f', '\u0001', '\u001f', '\u007f'];
    // Pieces: digit runs around three long, with and without a space before them, and separators.
    const pieces = ['1', '12', '123', '1234', '250', '5', ' 000', ' 250', ' 12', ' 1234', ' ', '.', ',', "'", '-', 'a', 'INV', '\t', '\u0001'];
    const seed = 20_261_114;
    const rnd = prng(seed);
    let joined = 0;
    let spaced = 0; // texts with a spaced-thousands word
    function* texts(): Generator<string> {
      for (let i = 0; i < 200_000; i++) {
        let text = '';
        if (i % 2 === 0) for (let len = rnd(31); text.length < len;) text += alphabet[rnd(alphabet.length)];
        else for (let k = rnd(12); k > 0; k--) text += pieces[rnd(pieces.length)];
        if (joinedWordsByRegex(text) !== null) joined++;
        if ((text.match(TEXT_WORD) ?? []).some((w) => w.includes(' '))) spaced++;
        yield text;
      }
    }
    const difference = firstDifference(texts());
    expect(difference, `seed ${seed}: ${JSON.stringify(difference)}`).toBeUndefined();
    // Both results and the word split's first alternative were drawn often enough to compare.
    expect(joined).toBeGreaterThan(40_000);
    expect(joined).toBeLessThan(160_000);
    expect(spaced).toBeGreaterThan(5_000);
  });
});
