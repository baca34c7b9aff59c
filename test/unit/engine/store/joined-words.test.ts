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
