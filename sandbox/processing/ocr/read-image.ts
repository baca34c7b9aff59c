/** Reads an image file (PNG, JPEG, TIFF of one or many pages) by OCR, into the text model. */
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
    pages = await Promise.all(decoded.map((d, page) => ocrPage(pool, d.png, { page, layout: layouts[page]!, scale: 1 })));
  } catch (err) {
    return { error: `OCR failed: ${(err as Error).message}`, layouts };
  }
  if (pages.every((p) => p.lines.length === 0)) return { error: noTextMessage(pages.length, 'image'), layouts };
  return { source: 'ocr', ocr: 0, pages, images: decoded.map((d) => ({ png: d.png, dpi: d.dpi })) };
}

/** The file held pages, but OCR found no words on any: blank pages or an unreadable scan. */
export function noTextMessage(pageCount: number, what: 'image' | 'PDF'): string {
  const which = pageCount === 1 ? 'on its page' : `on any of its ${pageCount} pages`;
  return `no text: OCR found no readable text in the ${what} ${which} (blank or unreadable)`;
}
