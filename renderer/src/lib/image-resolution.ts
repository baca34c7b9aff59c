/**
 * The pixels per inch a PNG (pHYs chunk) or JPEG (JFIF APP0 density, else its EXIF block, read by
 * utif2 as the TIFF structure it is) records, so an image page's zoom label can say its real paper
 * size like a PDF's. The segment walking is written here: two fixed-layout header fields, where the
 * registry's image-metadata readers are whole parsers of every format. Pure. null when the file does
 * not say (the viewer then takes 96 per inch: 100 % = one pixel per CSS px).
 */
import { tiffDpi } from './tiff.js';

const be32 = (b: Uint8Array, i: number): number => ((b[i] ?? 0) << 24 >>> 0) + ((b[i + 1] ?? 0) << 16) + ((b[i + 2] ?? 0) << 8) + (b[i + 3] ?? 0);
const be16 = (b: Uint8Array, i: number): number => ((b[i] ?? 0) << 8) + (b[i + 1] ?? 0);
const ascii = (b: Uint8Array, i: number, n: number): string => String.fromCharCode(...b.subarray(i, i + n));

/** PNG: walk the chunks to pHYs (pixels per metre, unit 1) before the image data. */
export function pngDpi(b: Uint8Array): number | null {
  let i = 8;
  while (i + 12 <= b.length) {
    const len = be32(b, i);
    const type = ascii(b, i + 4, 4);
    if (type === 'pHYs' && len >= 9 && i + 17 <= b.length) {
      const perMetre = be32(b, i + 8);
      return b[i + 16] === 1 && perMetre > 0 ? perMetre * 0.0254 : null;
    }
    if (type === 'IDAT' || type === 'IEND') return null;
    i += 12 + len;
  }
  return null;
}

/** JPEG: the JFIF APP0 density (unit 1 per inch, 2 per cm), else EXIF's XResolution; segments are walked up to the first scan. */
export function jpegDpi(b: Uint8Array): number | null {
  let exif: number | null = null;
  let i = 2;
  while (i + 4 <= b.length && b[i] === 0xff) {
    const marker = b[i + 1] ?? 0;
    if (marker === 0xda || marker === 0xd9) break;
    const len = be16(b, i + 2);
    if (marker === 0xe0 && len >= 16 && ascii(b, i + 4, 5) === 'JFIF\0') {
      const unit = b[i + 11];
      const x = be16(b, i + 12);
      // Unit 0 is an aspect ratio only: look on for EXIF.
      if (x > 0 && (unit === 1 || unit === 2)) return unit === 1 ? x : x * 2.54;
    }
    if (marker === 0xe1 && len > 8 && ascii(b, i + 4, 6) === 'Exif\0\0') exif = tiffDpi(b.subarray(i + 10, i + 2 + len));
    i += 2 + len;
  }
  return exif;
}
