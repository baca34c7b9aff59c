// Words as people type them (issue 12): what the search indexes hold joined, and what they leave alone.
import { describe, expect, it } from 'vitest';
import { joinedWord, joinedWords } from '../../../../electron/engine/store/joined-words.js';

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
