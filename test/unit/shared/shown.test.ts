// Names as DocSync prints them (issue 26, item 4): every control or hidden character visible, one line.
import { describe, expect, it } from 'vitest';
import { shown, shownLines } from '../../../shared/shown.js';

describe('shown', () => {
  it.each([
    ['x\nfailed   invoice.pdf', 'x\\nfailed   invoice.pdf'],
    ['a\r\nb', 'a\\r\\nb'],
    ['tab\there', 'tab\\there'],
    ['\u001b[2Kclear', '\\x1b[2Kclear'],
    ['nul\u0000', 'nul\\x00'],
    ['del\u007f', 'del\\x7f'],
    ['c1\u0085next line', 'c1\\x85next line'],
    ['gnp.\u202eexe', 'gnp.\\u{202e}exe'],
    ['line\u2028sep', 'line\\u{2028}sep'],
    ['isolate\u2066x\u2069', 'isolate\\u{2066}x\\u{2069}'],
  ])('%j is shown as %j', (raw, want) => {
    expect(shown(raw)).toBe(want);
    expect(shown(raw)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
  });

  it('leaves ordinary names alone, accents, spaces and backslashes included, and is idempotent', () => {
    for (const name of ['invoice 2026-01.pdf', 'Rechnung Müller & Söhne.pdf', 'C:\\scans\\a.pdf', '請求書.pdf', '']) expect(shown(name)).toBe(name);
    expect(shown(shown('x\ny'))).toBe('x\\ny');
  });

  it('shownLines keeps the line breaks of a many-line text and escapes the rest', () => {
    expect(shownLines('first\nsecond \u001b[31mred')).toBe('first\nsecond \\x1b[31mred');
  });
});
