/**
 * OCR of one page image, whichever way up it was scanned. Orientation is found by reading the page
 * as it is (unless its ink runs sideways) and, when that reads badly, comparing the turns on a small
 * copy: this needs no second (legacy-engine OSD) worker per core, and an upright page, the usual
 * case, costs one recognition (see sandbox/README.md, "Reading scans", for the measurements).
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
  // A page on its side is not read as it is first: that is slow (tesseract makes thousands of
  // tiny "words" of turned print) as well as useless. A wrong guess costs only small readings.
  const sideways = await looksSideways(png);
  const best = await pool.run(async (worker) => {
    const read = async (img: Buffer, rotation: Rotation): Promise<Reading> => {
      const turned = rotation === 0 ? img : await sharp(img).rotate(rotation).png({ compressionLevel: 1 }).toBuffer();
      const { data } = await worker.recognize(turned, {}, { blocks: true, text: false });
      const lines = ocrLines(data);
      return { rotation, lines, score: readability(lines).score };
    };
    const asIs = sideways ? null : await read(png, 0);
    if (asIs && asIs.score >= UPRIGHT_ENOUGH) return asIs;
    // Which way up: the turns compared on a small copy (cheap), then the winner read in full.
    const small = await smallCopy(png);
    // A page small already is compared at full size: its readings are the final ones.
    const full = small === png;
    let way: Reading | null = null;
    for (const rotation of sideways ? ([90, 270, 0, 180] as const) : ([0, 180, 90, 270] as const)) {
      if (way && way.score >= CLEARLY_RIGHT) break;
      const next = rotation === 0 && asIs && full ? asIs : await read(small, rotation);
      if (!way || next.score > way.score) way = next;
    }
    if (!way) throw new Error('no orientation was tried');
    if (asIs && (way.rotation === 0 || asIs.score >= way.score)) return asIs;
    if (full) return way;
    const turned = await read(png, way.rotation);
    return asIs && asIs.score > turned.score ? asIs : turned;
  });
  return ocrPageText(best.lines, { ...g, rotation: best.rotation });
}

/**
 * A landscape image of a page is, for scans of letter and A4 paper, most often a portrait page on
 * its side. Ink statistics (row against column profiles) did not tell turned invoices apart reliably
 * here; the shape did, for every turned scan of test/helpers/scans.ts.
 */
export async function looksSideways(png: Buffer): Promise<boolean> {
  const { width = 0, height = 0 } = await sharp(png).metadata();
  return width > 1.05 * height;
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
