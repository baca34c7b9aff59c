/**
 * Renders a PDF page without a text layer to an image for OCR, with the canvas pdfjs itself uses in
 * Node (@napi-rs/canvas, through the document's canvas factory).
 */
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';

/** 300 dpi, what OCR reads best; a page's longer side is kept within MAX_SIDE pixels. */
export const RENDER_DPI = 300;
const MAX_SIDE = 5000;

interface NodeCanvas {
  width: number;
  height: number;
  toBuffer(mime: 'image/png'): Buffer;
}

export interface RenderedPage {
  png: Buffer;
  /** Pixels per PDF point. */
  scale: number;
}

export async function renderPage(doc: PDFDocumentProxy, page: PDFPageProxy): Promise<RenderedPage> {
  const base = page.getViewport({ scale: 1 });
  const scale = Math.min(RENDER_DPI / 72, MAX_SIDE / Math.max(base.width, base.height, 1));
  const viewport = page.getViewport({ scale });
  const factory = doc.canvasFactory as { create(w: number, h: number): { canvas: NodeCanvas; context: unknown }; destroy(c: unknown): void };
  const made = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
  try {
    // A white page: a scan's PDF may leave the background transparent.
    // The Node canvas stands in for the DOM canvas pdfjs's types name.
    const params = { canvas: made.canvas, viewport, background: 'white' } as unknown as Parameters<PDFPageProxy['render']>[0];
    await page.render(params).promise;
    return { png: made.canvas.toBuffer('image/png'), scale };
  } finally {
    factory.destroy(made);
  }
}
