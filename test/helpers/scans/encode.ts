/** Page images to the files a scanner writes: PNG, JPEG, multi-page CCITT G4 TIFF, image-only PDF. */
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import type { Sharp } from 'sharp';
import type { Gray } from './render.js';

const load = (g: Gray): Sharp => sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } });

export const png = (g: Gray, dpi: number): Promise<Buffer> => load(g).withDensity(dpi).png().toBuffer();

export const jpeg = (g: Gray, dpi: number, quality: number): Promise<Buffer> => load(g).withDensity(dpi).jpeg({ quality }).toBuffer();

/**
 * Every page in one TIFF, bilevel with CCITT Group 4 compression as office scanners write it. libvips
 * writes one directory per page when the image carries a page height, so the pages (all the same
 * size) are stacked into one tall image first.
 */
export async function tiffG4(pages: Gray[], dpi: number): Promise<Buffer> {
  const [first] = pages;
  if (!first) throw new Error('a TIFF needs at least one page');
  if (pages.some((p) => p.width !== first.width || p.height !== first.height)) throw new Error('the pages of a TIFF must share one size');
  const stacked = Buffer.concat(pages.map((p) => p.data));
  return sharp(stacked, { raw: { width: first.width, height: first.height * pages.length, channels: 1, pageHeight: first.height } })
    .threshold(128)
    .toColourspace('b-w')
    .tiff({ compression: 'ccittfax4', bitdepth: 1, xres: dpi / 25.4, yres: dpi / 25.4, resolutionUnit: 'inch' })
    .toBuffer();
}

/** A PDF whose pages are images only (no text layer), each page the image's size at `dpi`. */
export async function imagePdf(pages: Gray[], dpi: number, quality: number | undefined): Promise<Buffer> {
  // updateMetadata: false keeps dates out, so equal inputs give equal bytes.
  const doc = await PDFDocument.create({ updateMetadata: false });
  for (const p of pages) {
    const image = quality === undefined ? await doc.embedPng(await png(p, dpi)) : await doc.embedJpg(await jpeg(p, dpi, quality));
    const width = (p.width * 72) / dpi;
    const height = (p.height * 72) / dpi;
    doc.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  }
  return Buffer.from(await doc.save());
}
