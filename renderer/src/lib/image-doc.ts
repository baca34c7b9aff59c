/**
 * Image originals as a PageDoc: PNG and JPEG through the browser's own decoder, TIFF (one page or
 * many) through utif2 (lib/tiff.ts) in a worker of its own (lib/tiff-client.ts). A page is a bitmap drawn onto the canvas at the asked scale;
 * its size in points follows the resolution the file records, so 100 % is its paper size as for a PDF.
 */
import { clampPage, type DocPageSize, type PageDoc } from './page-doc.js';
import { imagePoints, type ImagePage } from './image-size.js';
import { jpegDpi, pngDpi } from './image-resolution.js';
import { openTiff } from './tiff-client.js';

type ImageType = 'image/png' | 'image/jpeg' | 'image/tiff';

/** Decoded TIFF pages kept at once: a scanned page at 300 dpi is about 35 MB of pixels. */
const KEPT_PAGES = 2;

interface Source {
  pages: ImagePage[];
  bitmap(page: number): Promise<ImageBitmap>;
  close(): void;
}

/** The newest render asked of each canvas: an older one finishing late draws nothing. */
const latest = new WeakMap<HTMLCanvasElement, object>();

export async function openImage(bytes: Uint8Array, type: ImageType): Promise<PageDoc> {
  const src = type === 'image/tiff' ? await tiffSource(bytes) : await browserSource(bytes, type);
  return {
    pageCount: src.pages.length,
    async pageSize(page): Promise<DocPageSize> {
      const p = src.pages[clampPage(page, src.pages.length)] as ImagePage;
      return { ...imagePoints(p), pixels: { width: p.width, height: p.height } };
    },
    async render(page, canvas, scale) {
      const token = {};
      latest.set(canvas, token);
      const i = clampPage(page, src.pages.length);
      const bmp = await src.bitmap(i);
      if (latest.get(canvas) !== token) return;
      const size = imagePoints(src.pages[i] as ImagePage);
      const ratio = window.devicePixelRatio || 1;
      const w = size.width * scale;
      const h = size.height * scale;
      canvas.width = Math.max(1, Math.floor(w * ratio));
      canvas.height = Math.max(1, Math.floor(h * ratio));
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
      const ctx = canvas.getContext('2d');
      if (!ctx) throw new Error('This page cannot be drawn: the browser gave no drawing surface.');
      ctx.imageSmoothingEnabled = true;
      ctx.imageSmoothingQuality = 'high';
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(bmp, 0, 0, canvas.width, canvas.height);
    },
    async destroy() {
      src.close();
    },
  };
}

const label = (t: ImageType): string => (t === 'image/png' ? 'PNG' : t === 'image/jpeg' ? 'JPEG' : 'TIFF');

async function browserSource(bytes: Uint8Array, type: Exclude<ImageType, 'image/tiff'>): Promise<Source> {
  let bmp: ImageBitmap;
  try {
    bmp = await createImageBitmap(new Blob([bytes.slice()], { type }));
  } catch {
    throw new Error(`The ${label(type)} image cannot be shown: it is damaged or not really a ${label(type)} file.`);
  }
  const dpi = type === 'image/png' ? pngDpi(bytes) : jpegDpi(bytes);
  return {
    pages: [{ width: bmp.width, height: bmp.height, dpi }],
    bitmap: async () => bmp,
    close: () => bmp.close(),
  };
}

async function tiffSource(bytes: Uint8Array): Promise<Source> {
  const tiff = await openTiff(bytes);
  // Most recently used last; a page is decoded again when it comes back after being dropped.
  const kept = new Map<number, Promise<ImageBitmap>>();
  const drop = (p: Promise<ImageBitmap>): void => void p.then((b) => b.close(), () => undefined);
  const decode = (page: number): Promise<ImageBitmap> => {
    const { width, height } = tiff.pages[page] as ImagePage;
    const p = tiff.rgba(page).then((rgba) => createImageBitmap(new ImageData(rgba, width, height)));
    // A page that failed is decoded again next time rather than failing from the cache.
    p.catch(() => kept.get(page) === p && kept.delete(page));
    return p;
  };
  return {
    pages: tiff.pages,
    bitmap(page) {
      const p = kept.get(page) ?? decode(page);
      kept.delete(page);
      kept.set(page, p);
      for (const [k, old] of kept) {
        if (kept.size <= KEPT_PAGES) break;
        kept.delete(k);
        drop(old);
      }
      return p;
    },
    close() {
      for (const p of kept.values()) drop(p);
      kept.clear();
      tiff.close();
    },
  };
}
