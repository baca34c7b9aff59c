/**
 * TIFF pages decoded by lib/tiff.ts (utif2) as the renderer does, here in Node: every page of a
 * multi-page CCITT G4 scan, its resolution, and its pixels in the right place on the right page.
 */
import UTIF from 'utif2';
import { describe, expect, it } from 'vitest';
import { readTiff } from '../../../renderer/src/lib/tiff.js';
import { g4Tiff, lzwTiff, type Bar } from '../../helpers/images.js';

const W = 240;
const H = 320;
/** One bar per page, each lower than the last: a page read as another shows its bar elsewhere. */
const BARS: Bar[] = [0, 1, 2].map((p) => ({ x: 20 + p * 10, y: 40 + p * 80, width: 100, height: 30 }));

const dark = (rgba: Uint8ClampedArray, x: number, y: number): boolean => (rgba[(y * W + x) * 4] ?? 255) < 128;

describe('readTiff', () => {
  it('reads every page of a multi-page G4 fax TIFF with its size and resolution', async () => {
    const t = readTiff(await g4Tiff(W, H, BARS, 300));
    expect(t.pages).toHaveLength(3);
    for (const p of t.pages) {
      expect([p.width, p.height]).toEqual([W, H]);
      expect(p.dpi).toBeCloseTo(300, 0);
    }
  });

  it('decodes each page to its own pixels: its bar is black where it was drawn, the rest white', async () => {
    const t = readTiff(await g4Tiff(W, H, BARS));
    BARS.forEach((b, page) => {
      const rgba = t.rgba(page);
      expect(rgba.length).toBe(W * H * 4);
      expect(dark(rgba, b.x + 1, b.y + 1)).toBe(true);
      expect(dark(rgba, b.x + b.width - 2, b.y + b.height - 2)).toBe(true);
      expect(dark(rgba, b.x - 2, b.y + 5)).toBe(false);
      expect(dark(rgba, b.x + 5, b.y + b.height + 2)).toBe(false);
      // Every other page's bar is white here.
      for (const o of BARS.filter((_, i) => i !== page)) expect(dark(rgba, o.x + o.width - 2, o.y + 5) && o.y !== b.y).toBe(false);
      const black = rgba.filter((v, i) => i % 4 === 0 && v < 128).length;
      expect(black).toBe(b.width * b.height);
    });
  });

  it('reads a one-page LZW colour TIFF', async () => {
    const t = readTiff(await lzwTiff(W, H, BARS[1] as Bar));
    expect(t.pages).toHaveLength(1);
    expect(t.pages[0]).toMatchObject({ width: W, height: H });
    // libvips' default: 1 pixel per mm, which the viewer takes as no resolution (image-size.ts).
    expect(t.pages[0]?.dpi).toBeCloseTo(25.4, 1);
    expect(dark(t.rgba(0), 40, 130)).toBe(true);
  });

  it('says in words what is wrong with bytes that are not a readable TIFF, or a page that is not there', async () => {
    expect(() => readTiff(Buffer.from('II*\0 this is no tiff'))).toThrow(/^The TIFF image (cannot be read|has no page in it)/);
    const t = readTiff(await g4Tiff(W, H, BARS));
    expect(() => t.rgba(7)).toThrow('The TIFF image has no page 8.');
  });

  it('a TIFF cut short inside its pixels says so instead of showing a blank page', () => {
    // utif2's own writer puts the directory before the pixels, so a cut keeps the page's directory.
    const rgba = new Uint8Array(W * H * 4).fill(255);
    const whole = Buffer.from(UTIF.encodeImage(rgba, W, H));
    expect(readTiff(whole).rgba(0).length).toBe(W * H * 4);
    const t = readTiff(whole.subarray(0, whole.length - 100));
    expect(t.pages).toHaveLength(1);
    expect(() => t.rgba(0)).toThrow('Page 1 of the TIFF image cannot be shown: the file ends before the page does (it was cut short).');
  });
});
