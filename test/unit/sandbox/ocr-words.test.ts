/** The pure parts of reading scans: file kinds by magic bytes, OCR words to lines and boxes, confidence. */
import { describe, expect, it } from 'vitest';
import { imageKind } from '../../../sandbox/processing/ocr/images.js';
import { ocrPageText, readability, scannedTransform } from '../../../sandbox/processing/ocr/words.js';
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
