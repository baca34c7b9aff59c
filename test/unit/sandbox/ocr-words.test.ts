/** The pure parts of reading scans: file kinds by magic bytes, OCR words to lines and boxes, confidence. */
import { describe, expect, it } from 'vitest';
import { imageKind } from '../../../sandbox/processing/ocr/images.js';
import type { Page } from 'tesseract.js';
import { ocrLines, ocrPageText, readability, scannedTransform } from '../../../sandbox/processing/ocr/words.js';
import type { OcrWord, Rotation } from '../../../sandbox/processing/ocr/words.js';
import { sourceBox, spanConfidence } from '../../../sandbox/processing/text-model.js';
import type { TextLine } from '../../../sandbox/processing/text-model.js';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const word = (text: string, x0: number, y0: number, x1: number, y1: number, conf = 0.9): OcrWord => ({ text, x0, y0, x1, y1, conf });

describe('imageKind', () => {
  it('knows PNG, JPEG and both TIFF byte orders by their first bytes', () => {
    expect(imageKind(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe('PNG');
    expect(imageKind(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('JPEG');
    expect(imageKind(bytes(0x49, 0x49, 42, 0, 8, 0, 0, 0))).toBe('TIFF');
    expect(imageKind(bytes(0x4d, 0x4d, 0, 42, 0, 0, 0, 8))).toBe('TIFF');
  });

  it('says nothing of text, PDFs, or a file cut off inside its signature', () => {
    expect(imageKind(new TextEncoder().encode('Invoice Number: 1'))).toBeNull();
    expect(imageKind(new TextEncoder().encode('%PDF-1.7'))).toBeNull();
    expect(imageKind(bytes(0x89, 0x50, 0x4e, 0x47))).toBeNull();
    expect(imageKind(bytes())).toBeNull();
  });
});

describe('ocrPageText', () => {
  const layout = { page_number: 0, width: 1000, height: 700 };

  it('joins tesseract lines of one row, left to right, with a tab at a wide gap', () => {
    // Tesseract often gives a label and its value far to the right as two lines (two blocks).
    const page = ocrPageText(
      [
        [word('$1,234.50', 600, 102, 760, 130)],
        [word('Total', 60, 100, 140, 128), word('Due:', 152, 100, 220, 128)],
        [word('ACME', 60, 20, 150, 48)],
      ],
      { page: 0, layout, scale: 1, rotation: 0 },
    );
    expect(page.lines.map((l) => l.text)).toEqual(['ACME', 'Total Due:\t$1,234.50']);
    expect(page.layout).toEqual(layout);
  });

  it('puts a word box back where the word is on the page, in layout units', () => {
    const page = ocrPageText([[word('INV-1', 300, 200, 400, 230)]], { page: 2, layout: { page_number: 2, width: 500, height: 350 }, scale: 2, rotation: 0 });
    const line = page.lines[0]!;
    expect(sourceBox(page, line, 0, 5)).toEqual({ top_x: 150, top_y: 100, bottom_x: 200, bottom_y: 115, page_number: 2 });
  });

  it.each([90, 180, 270] as Rotation[])('maps boxes read on a page turned %i degrees back onto the page as scanned', (rotation) => {
    // The scan is W x H; upright it is w x h. A word at (u0, v0)-(u1, v1) of the upright page.
    const W = rotation === 180 ? 1000 : 700;
    const H = rotation === 180 ? 700 : 1000;
    const scanned = { page_number: 0, width: W, height: H };
    const page = ocrPageText([[word('X', 100, 50, 160, 80)]], { page: 0, layout: scanned, scale: 1, rotation });
    const box = sourceBox(page, page.lines[0]!, 0, 1);
    // Turning the scan clockwise by `rotation` made it upright; the expected boxes turn the upright box back.
    const want = {
      90: { top_x: 50, top_y: H - 160, bottom_x: 80, bottom_y: H - 100 },
      180: { top_x: W - 160, top_y: H - 80, bottom_x: W - 100, bottom_y: H - 50 },
      270: { top_x: W - 80, top_y: 100, bottom_x: W - 50, bottom_y: 160 },
    }[rotation as 90 | 180 | 270];
    expect(box).toEqual({ ...want, page_number: 0 });
  });

  it('has the identity-like transform of an upright page', () => {
    expect(scannedTransform(0, 10, 20)).toEqual([1, 0, 0, -1, 0, 20]);
  });

  it('keeps each word\'s confidence on its span', () => {
    const page = ocrPageText([[word('Total', 0, 0, 50, 20, 0.91), word('Due', 60, 0, 90, 20, 0.456)]], { page: 0, layout, scale: 1, rotation: 0 });
    expect(page.lines[0]!.spans.map((s) => s.conf)).toEqual([0.91, 0.46]);
  });
});

describe('readability', () => {
  it('is the mean confidence of words with a letter or digit', () => {
    expect(readability([[word('ab', 0, 0, 1, 1, 0.8), word('—', 0, 0, 1, 1, 0.1)], [word('12', 0, 0, 1, 1, 0.6)]])).toEqual({ score: 0.7, words: 2 });
    expect(readability([])).toEqual({ score: 0, words: 0 });
  });
});

describe('spanConfidence', () => {
  const line: TextLine = {
    page: 0,
    text: 'Total Due: $1,234.50 USD',
    spans: [
      { start: 0, end: 5, x0: 0, x1: 5, yBottom: 0, yTop: 1, size: 1, conf: 0.96 },
      { start: 6, end: 10, x0: 6, x1: 10, yBottom: 0, yTop: 1, size: 1, conf: 0.9 },
      { start: 11, end: 20, x0: 11, x1: 20, yBottom: 0, yTop: 1, size: 1, conf: 0.5 },
      { start: 21, end: 24, x0: 21, x1: 24, yBottom: 0, yTop: 1, size: 1, conf: 0.8 },
    ],
  };

  it('is the mean over the words a value touches', () => {
    expect(spanConfidence(line, 11, 20, 1)).toBe(0.5);
    expect(spanConfidence(line, 11, 24, 1)).toBe(0.65);
    expect(spanConfidence(line, 0, 10, 1)).toBe(0.93);
  });

  it('falls back to the reader\'s confidence for text that was not OCR\'d', () => {
    const layer: TextLine = { page: 0, text: 'INV-1', spans: [{ start: 0, end: 5, x0: 0, x1: 5, yBottom: 0, yTop: 1, size: 1 }] };
    expect(spanConfidence(layer, 0, 5, 1)).toBe(1);
  });
});

describe('ocrLines', () => {
  // Tesseract's output shape, written by hand: these cases (dust read as punctuation) come from real
  // scans of test/helpers/scans.ts but are hard to produce on purpose with a real image.
  type Sym = [text: string, x0: number, y0: number, x1: number, y1: number];
  const tWord = (conf: number, ...symbols: Sym[]) => ({
    text: symbols.map((x) => x[0]).join(''),
    confidence: conf,
    bbox: { x0: Math.min(...symbols.map((x) => x[1])), y0: Math.min(...symbols.map((x) => x[2])), x1: Math.max(...symbols.map((x) => x[3])), y1: Math.max(...symbols.map((x) => x[4])) },
    symbols: symbols.map(([text, x0, y0, x1, y1]) => ({ text, confidence: conf, bbox: { x0, y0, x1, y1 } })),
  });
  const page = (...words: ReturnType<typeof tWord>[]): Page => ({ blocks: [{ paragraphs: [{ lines: [{ words }] }] }] }) as unknown as Page;
  const letters = (s: string, x: number): Sym[] => [...s].map((c, i) => [c, x + 20 * i, 340, x + 20 * i + 18, 362]);

  it('drops a smudge read as a period after a word, and shrinks the box to the letters', () => {
    const [line] = ocrLines(page(tWord(42, ...letters('Goods', 734), ['.', 841, 320, 849, 356])));
    expect(line).toEqual([{ text: 'Goods', x0: 734, y0: 340, x1: 832, y1: 362, conf: 0.42 }]);
  });

  it('drops a speck read as a period glued before a word', () => {
    const [line] = ocrLines(page(tWord(52, ['.', 700, 357, 703, 360], ...letters('Invoice', 712))));
    expect(line?.[0]?.text).toBe('Invoice');
  });

  it('keeps real punctuation: a final period, a colon, a comma inside an amount', () => {
    const words = ocrLines(page(tWord(95, ...letters('Inc', 100), ['.', 160, 358, 164, 362]), tWord(95, ...letters('Name', 200), [':', 282, 346, 286, 362]), tWord(95, ['$', 300, 338, 312, 364], ['1', 314, 340, 326, 362], [',', 328, 358, 332, 366], ...letters('234', 334))))[0]!;
    expect(words.map((w) => w.text)).toEqual(['Inc.', 'Name:', '$1,234']);
  });

  it('keeps a final period whose loose LSTM box reaches the x-height', () => {
    // As tesseract boxed "Co." on a JPEG scan.
    const [line] = ocrLines(page(tWord(96, ['C', 696, 270, 715, 292], ['o', 710, 270, 724, 292], ['.', 717, 276, 739, 292])));
    expect(line?.[0]?.text).toBe('Co.');
  });

  it('drops specks: a lone character read with little confidence, a "word" far smaller than the print', () => {
    const lines = ocrLines(page(tWord(18, ['i', 22, 340, 34, 362]), tWord(95, ['1', 361, 340, 366, 362]), tWord(60, ['3', 60, 350, 63, 353], ['3', 64, 350, 67, 353]), tWord(95, ...letters('hosting', 400))));
    expect(lines.flat().map((w) => w.text)).toEqual(['1', 'hosting']);
  });

  it('drops what has no letter or digit, and what tesseract scored near zero', () => {
    expect(ocrLines(page(tWord(80, ['|', 10, 10, 12, 60]), tWord(0, ...letters('oo', 100)), tWord(17, ...letters('advice', 200))))).toEqual([
      [{ text: 'advice', x0: 200, y0: 340, x1: 318, y1: 362, conf: 0.17 }],
    ]);
  });
});
