/** Renders PDF pages to greyscale pixels with pdfjs and its Node canvas (@napi-rs/canvas). */
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { loadPdfjs, pdfjsDataDirs } from '../../../sandbox/processing/pdfjs.js';

/** One greyscale page: `width * height` bytes, 0 black to 255 white. */
export interface Gray {
  data: Buffer;
  width: number;
  height: number;
}

export async function renderPages(pdf: Uint8Array, dpi: number): Promise<Gray[]> {
  const pdfjs = await loadPdfjs();
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), verbosity: 0, isEvalSupported: false, ...pdfjsDataDirs() }).promise;
  try {
    const pages: Gray[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: dpi / 72 });
      const canvas = createCanvas(Math.round(viewport.width), Math.round(viewport.height));
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      // pdfjs's types name the DOM canvas; @napi-rs/canvas is the one it uses itself in Node.
      type Params = Parameters<typeof page.render>[0];
      await page.render({ canvas: canvas as unknown as Params['canvas'], canvasContext: ctx as unknown as Params['canvasContext'], viewport }).promise;
      const { data, info } = await sharp(canvas.toBuffer('image/png')).flatten({ background: '#fff' }).greyscale().raw().toBuffer({ resolveWithObject: true });
      if (info.channels !== 1) throw new Error(`rendered page ${n} has ${info.channels} channels, not 1`);
      pages.push({ data, width: info.width, height: info.height });
      page.cleanup();
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}
