/** Reads an image file (PNG, JPEG, TIFF of one or many pages) by OCR, into the text model. */
import sharp from 'sharp';
import type { ReadFailure, ReadText } from '../text-model.js';
import { decodeImage, ImageError } from './images.js';
import type { ImageKind } from './images.js';
import type { OcrPool } from './pool.js';
import { ocrPage } from './read-page.js';

export async function readImage(bytes: Uint8Array, kind: ImageKind, pool: OcrPool): Promise<ReadText | ReadFailure> {
  let decoded;
  try {
    decoded = await decodeImage(bytes, kind);
  } catch (err) {
    if (err instanceof ImageError) return { error: err.message, layouts: [] };
    throw err;
  }
  // page_layouts of an image are its pixel size, as the service reports them.
  const layouts = decoded.map((d, page) => ({ page_number: page, width: d.width, height: d.height }));
  let pages;
  try {
    // Pages go to the pool together; it runs as many at once as it has workers.
    pages = await Promise.all(
      decoded.map(async (d, page) => {
        const { png, scale } = await withinOcrSize(d.png, d.width, d.height);
        return ocrPage(pool, png, { page, layout: layouts[page]!, scale });
      }),
    );
  } catch (err) {
    return { error: `OCR failed: ${(err as Error).message}`, layouts };
  }
  if (pages.every((p) => p.lines.length === 0)) return { error: noTextMessage(pages.length, 'image'), layouts };
  return { source: 'ocr', ocr: 0, pages, images: decoded.map((d) => ({ png: d.png, dpi: d.dpi })) };
}

/** Pixels OCR is given at most (a letter page at 600 dpi); tesseract's memory grows with them. */
export const MAX_OCR_PIXELS = 5100 * 6600;

/** A page over MAX_OCR_PIXELS is read from a smaller copy; boxes are scaled back to the page's pixels. */
async function withinOcrSize(png: Buffer, width: number, height: number): Promise<{ png: Buffer; scale: number }> {
  if (width * height <= MAX_OCR_PIXELS) return { png, scale: 1 };
  const scale = Math.sqrt(MAX_OCR_PIXELS / (width * height));
  const smaller = await sharp(png).resize({ width: Math.floor(width * scale) }).png({ compressionLevel: 1 }).toBuffer();
  return { png: smaller, scale: Math.floor(width * scale) / width };
}

/** The file held pages, but OCR found no words on any: blank pages or an unreadable scan. */
export function noTextMessage(pageCount: number, what: 'image' | 'PDF'): string {
  const which = pageCount === 1 ? 'on its page' : `on any of its ${pageCount} pages`;
  return `no text: OCR found no readable text in the ${what} ${which} (blank or unreadable)`;
}
