/**
 * OCR of one page image, whichever way up it was scanned. Orientation is found by reading the page
 * as it is and, when that reads badly, turned by 90, 180 and 270 degrees, keeping the turn that reads
 * best: with the same LSTM worker, no second (legacy-engine OSD) worker per core is needed, and an
 * upright page, the usual case, costs one recognition (see sandbox/README.md, "Reading scans").
 */
import sharp from 'sharp';
import type { PageText } from '../text-model.js';
import type { OcrPool } from './pool.js';
import { ocrLines, ocrPageText, readability } from './words.js';
import type { OcrWord, PageGeometry, Rotation } from './words.js';

/** A page read as it is with at least this mean word confidence is taken as upright. */
const UPRIGHT_ENOUGH = 0.6;
/** A turn that reads this well ends the search. */
const CLEARLY_RIGHT = 0.8;
/** Below this standard deviation of grey levels, a page is blank (or a uniform smear): nothing to OCR. */
const BLANK_STDEV = 3;

export async function isBlank(png: Buffer): Promise<boolean> {
  const { channels } = await sharp(png).stats();
  return channels.slice(0, 3).every((c) => c.stdev < BLANK_STDEV);
}

export async function ocrPage(pool: OcrPool, png: Buffer, g: Omit<PageGeometry, 'rotation'>): Promise<PageText> {
  if (await isBlank(png)) return ocrPageText([], { ...g, rotation: 0 });
  const best = await pool.run(async (worker) => {
    const read = async (rotation: Rotation): Promise<{ rotation: Rotation; lines: OcrWord[][]; score: number }> => {
      const img = rotation === 0 ? png : await sharp(png).rotate(rotation).png({ compressionLevel: 1 }).toBuffer();
      const { data } = await worker.recognize(img, {}, { blocks: true, text: false });
      const lines = ocrLines(data);
      return { rotation, lines, score: readability(lines).score };
    };
    let top = await read(0);
    if (top.score >= UPRIGHT_ENOUGH) return top;
    for (const rotation of [180, 90, 270] as const) {
      const next = await read(rotation);
      if (next.score > top.score) top = next;
      if (top.score >= CLEARLY_RIGHT) break;
    }
    return top;
  });
  return ocrPageText(best.lines, { ...g, rotation: best.rotation });
}
