/**
 * Image files as scanners write them (PNG, JPEG, TIFF with one page or many, CCITT G4 included),
 * known by their first bytes and decoded page by page with sharp (libvips).
 */
import sharp from 'sharp';
import type { Metadata } from 'sharp';
import type { PageImage } from '../text-model.js';

export type ImageKind = 'PNG' | 'JPEG' | 'TIFF';

/** By magic bytes, never by file name: a scanner's names say little. */
export function imageKind(bytes: Uint8Array): ImageKind | null {
  const b = (i: number): number => bytes[i] ?? -1;
  if (b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47 && b(4) === 0x0d && b(5) === 0x0a && b(6) === 0x1a && b(7) === 0x0a) return 'PNG';
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'JPEG';
  // "II*\0" (little-endian) or "MM\0*" (big-endian); BigTIFF has 43 in place of 42.
  if (b(0) === 0x49 && b(1) === 0x49 && (b(2) === 42 || b(2) === 43) && b(3) === 0) return 'TIFF';
  if (b(0) === 0x4d && b(1) === 0x4d && b(2) === 0 && (b(3) === 42 || b(3) === 43)) return 'TIFF';
  return null;
}

export interface DecodedPage extends PageImage {
  width: number;
  height: number;
}

export class ImageError extends Error {}

/**
 * Every page of the image as PNG, turned upright as its EXIF orientation says (as viewers show it).
 * Throws ImageError, in a person's words, when the file cannot be decoded.
 */
export async function decodeImage(bytes: Uint8Array, kind: ImageKind): Promise<DecodedPage[]> {
  let pageCount: number;
  try {
    pageCount = (await sharp(bytes).metadata()).pages ?? 1;
  } catch (err) {
    throw damaged(kind, err);
  }
  const pages: DecodedPage[] = [];
  for (let page = 0; page < pageCount; page++) {
    try {
      // failOn 'truncated' refuses a cut-off file rather than OCR half a page silently.
      const img = sharp(bytes, { page, pages: 1, failOn: 'truncated' }).rotate();
      const meta = await sharp(bytes, { page, pages: 1 }).metadata();
      const { data, info } = await img.png({ compressionLevel: 3 }).toBuffer({ resolveWithObject: true });
      pages.push({ png: data, width: info.width, height: info.height, dpi: dpiOf(meta) });
    } catch (err) {
      throw damaged(kind, err, pageCount > 1 ? page : undefined);
    }
  }
  return pages;
}

function dpiOf(meta: Metadata): number | null {
  const d = meta.density;
  if (!d || !Number.isFinite(d) || d < 20 || d > 2400) return null;
  // sharp reports pixels per inch whatever unit the file used; 72 is also what files say when they mean nothing.
  return d === 72 ? null : d;
}

function damaged(kind: ImageKind, err: unknown, page?: number): ImageError {
  const detail = (err instanceof Error ? err.message : String(err)).split('\n')[0]?.trim().replace(/\.$/, '') || 'unknown error';
  const where = page === undefined ? '' : ` (page ${page + 1})`;
  return new ImageError(`unreadable image: the ${kind} file is damaged or incomplete${where}: ${detail}`);
}
