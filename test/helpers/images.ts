/**
 * Small real images for the viewer's tests, written by sharp (libvips): pages that are white with
 * one black bar at a known place, so a decoder that reads the wrong page or rows is caught.
 */
import sharp from 'sharp';

export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Grey pixels of `pages` pages of width x height, page p with its own bar. */
function pixels(width: number, height: number, bars: Bar[]): Buffer {
  const px = Buffer.alloc(width * height * bars.length, 255);
  bars.forEach((b, p) => {
    for (let y = b.y; y < b.y + b.height; y++) px.fill(0, (p * height + y) * width + b.x, (p * height + y) * width + b.x + b.width);
  });
  return px;
}

/** A bilevel fax-compressed (CCITT G4) TIFF, one page per bar, at `dpi`, as a scanner writes it. */
export function g4Tiff(width: number, height: number, bars: Bar[], dpi = 300): Promise<Buffer> {
  const raw = { width, height: height * bars.length, channels: 1 as const, pageHeight: height };
  return sharp(pixels(width, height, bars), { raw }).toColourspace('b-w').tiff({ compression: 'ccittfax4', bitdepth: 1, xres: dpi / 25.4, yres: dpi / 25.4 }).toBuffer();
}

/** A one-page LZW RGB TIFF. */
export function lzwTiff(width: number, height: number, bar: Bar): Promise<Buffer> {
  return sharp(pixels(width, height, [bar]), { raw: { width, height, channels: 1 } }).toColourspace('srgb').tiff({ compression: 'lzw' }).toBuffer();
}

export function png(width: number, height: number, bar: Bar, dpi?: number): Promise<Buffer> {
  const s = sharp(pixels(width, height, [bar]), { raw: { width, height, channels: 1 } });
  return (dpi ? s.withMetadata({ density: dpi }) : s).png().toBuffer();
}

export function jpeg(width: number, height: number, bar: Bar, dpi?: number): Promise<Buffer> {
  const s = sharp(pixels(width, height, [bar]), { raw: { width, height, channels: 1 } });
  return (dpi ? s.withMetadata({ density: dpi }) : s).jpeg({ quality: 90 }).toBuffer();
}
