/** The viewer's kinds of originals, told by their first bytes (real files written by sharp and pdf-lib). */
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { sniffMediaType } from '../../../shared/media-type.js';
import { g4Tiff, jpeg, png } from '../../helpers/images.js';

const BAR = { x: 2, y: 2, width: 4, height: 4 };

describe('sniffMediaType', () => {
  it('tells PNG, JPEG, TIFF and PDF by their signatures', async () => {
    const pdf = await (async () => {
      const d = await PDFDocument.create();
      d.addPage();
      return d.save();
    })();
    expect(sniffMediaType(await png(10, 10, BAR))).toBe('image/png');
    expect(sniffMediaType(await jpeg(10, 10, BAR))).toBe('image/jpeg');
    expect(sniffMediaType(await g4Tiff(16, 16, [BAR]))).toBe('image/tiff');
    expect(sniffMediaType(pdf)).toBe('application/pdf');
  });

  it('reads a big-endian TIFF header, and a PDF header after leading junk (as readers allow), but not one past 1 KB', () => {
    expect(sniffMediaType(new Uint8Array([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]))).toBe('image/tiff');
    const junk = (n: number): Uint8Array => new Uint8Array([...new Uint8Array(n).fill(0x20), ...Buffer.from('%PDF-1.7\n')]);
    expect(sniffMediaType(junk(100))).toBe('application/pdf');
    expect(sniffMediaType(junk(2000))).toBeNull();
  });

  it('is null for what the viewer cannot draw, whatever its name says', () => {
    expect(sniffMediaType(Buffer.from('Invoice INV-1, total $10.00'))).toBeNull();
    expect(sniffMediaType(new Uint8Array())).toBeNull();
    expect(sniffMediaType(Buffer.from('GIF89a....'))).toBeNull();
    // A truncated signature is not the format.
    expect(sniffMediaType(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
  });
});
