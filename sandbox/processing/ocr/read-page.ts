/**
 * OCR of one page image, whichever way up it was scanned. Orientation is found by reading the page
 * as it is and, when that reads badly, comparing the four turns on a small copy: this needs no second
 * (legacy-engine OSD) worker per core, and an upright page, the usual case, costs one recognition
 * (see sandbox/README.md, "Reading scans", for the measurements).
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
    const read = async (img: Buffer, rotation: Rotation): Promise<Reading> => {
      const turned = rotation === 0 ? img : await sharp(img).rotate(rotation).png({ compressionLevel: 1 }).toBuffer();
      const { data } = await worker.recognize(turned, {}, { blocks: true, text: false });
      const lines = ocrLines(data);
      return { rotation, lines, score: readability(lines).score };
    };
    const asIs = await read(png, 0);
    if (asIs.score >= UPRIGHT_ENOUGH) return asIs;
    // Which way up: the four turns compared on a small copy (cheap), then the winner read in full.
    const small = await smallCopy(png);
    // A page small already is compared at full size: its readings are the final ones.
    const full = small === png;
    let way = full ? asIs : await read(small, 0);
    for (const rotation of [180, 90, 270] as const) {
      if (way.score >= CLEARLY_RIGHT) break;
      const next = await read(small, rotation);
      if (next.score > way.score) way = next;
    }
    if (way.rotation === 0) return asIs;
    if (full) return way;
    const turned = await read(png, way.rotation);
    return turned.score > asIs.score ? turned : asIs;
  });
  return ocrPageText(best.lines, { ...g, rotation: best.rotation });
}

interface Reading {
  rotation: Rotation;
  lines: OcrWord[][];
  score: number;
}

/** Long enough a side that 10-point print stays readable (about 20 pixels high on a letter page). */
const ORIENTATION_SIDE = 1600;

async function smallCopy(png: Buffer): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(png).metadata();
  if (Math.max(width, height) <= ORIENTATION_SIDE) return png;
  return sharp(png).resize({ width: ORIENTATION_SIDE, height: ORIENTATION_SIDE, fit: 'inside' }).png({ compressionLevel: 1 }).toBuffer();
}
