/** File names made safe and unique within a batch (issue 4; spec: filename max 255 characters). */
import { describe, expect, it } from 'vitest';
import { BatchNames, MAX_NAME, safeFileName, uniqueSafeNames } from '../../../../electron/engine/watch/safe-names.js';

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe('safeFileName', () => {
  it.each([
    ['invoice.pdf', 'invoice.pdf'],
    ['/home/u/in/sub/invoice.pdf', 'invoice.pdf'],
    ['C:\\in\\scan.tiff', 'scan.tiff'],
    ['a\u0000b\u001fc\u007f.pdf', 'a_b_c_.pdf'],
    ['what?: "x" <y>|*.pdf', 'what__ _x_ _y___.pdf'],
    ['  spaced  .pdf  ', 'spaced  .pdf'],
    ['trailing dots...', 'trailing dots'],
    ['..', 'file'],
    ['', 'file'],
    ['CON.pdf', '_CON.pdf'],
    ['nul', '_nul'],
    ['.pdf', '.pdf'],
  ])('%j -> %j', (input, out) => expect(safeFileName(input)).toBe(out));

  it('normalises unicode to NFC and keeps it', () => {
    const decomposed = 'Re\u0301sume\u0301 日本語.pdf';
    expect(safeFileName(decomposed)).toBe('Résumé 日本語.pdf');
    expect(safeFileName(decomposed)).toBe(safeFileName(decomposed.normalize('NFC')));
  });

  it('cuts long names in the stem and keeps the extension', () => {
    const name = safeFileName(`${'x'.repeat(400)}.pdf`);
    expect(name).toHaveLength(MAX_NAME);
    expect(name.endsWith('x.pdf')).toBe(true);
  });

  it('counts UTF-8 bytes too and never splits a character', () => {
    const name = safeFileName(`${'日'.repeat(200)}.pdf`);
    expect(bytes(name)).toBeLessThanOrEqual(MAX_NAME);
    expect(name).toBe(`${'日'.repeat(83)}.pdf`);
    const emoji = safeFileName(`${'😀'.repeat(100)}.pdf`);
    expect(bytes(emoji)).toBeLessThanOrEqual(MAX_NAME);
    expect(emoji).toBe(`${'😀'.repeat(62)}.pdf`);
  });

  it('a long pseudo-extension is treated as part of the stem', () => {
    const name = safeFileName(`report.${'y'.repeat(300)}`);
    expect(name).toHaveLength(MAX_NAME);
    expect(name.startsWith('report.')).toBe(true);
  });
});

describe('unique within a batch', () => {
  it('collisions get (2), (3), ... before the extension, case-insensitively', () => {
    expect(uniqueSafeNames(['/x/a.pdf', '/y/a.pdf', '/z/A.PDF', '/w/b.pdf'])).toEqual(['a.pdf', 'a (2).pdf', 'A (3).PDF', 'b.pdf']);
  });
  it('names that only collide after being made safe are told apart', () => {
    expect(uniqueSafeNames(['a:b.pdf', 'a?b.pdf', 'a_b.pdf'])).toEqual(['a_b.pdf', 'a_b (2).pdf', 'a_b (3).pdf']);
  });
  it('skips a suffix an original already uses', () => {
    expect(uniqueSafeNames(['a (2).pdf', 'a.pdf', 'a.pdf'])).toEqual(['a (2).pdf', 'a.pdf', 'a (3).pdf']);
  });
  it('a suffixed long name still fits in 255 characters', () => {
    const long = `${'z'.repeat(300)}.pdf`;
    const names = new BatchNames();
    const first = names.assign(long);
    const second = names.assign(long);
    expect(first).toHaveLength(MAX_NAME);
    expect(second).toHaveLength(MAX_NAME);
    expect(second.endsWith(' (2).pdf')).toBe(true);
    expect(second).not.toBe(first);
  });
  it('names without an extension', () => {
    expect(uniqueSafeNames(['README', 'readme'])).toEqual(['README', 'readme (2)']);
  });
});
