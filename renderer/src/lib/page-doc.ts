/**
 * An original the source viewer draws page by page, whatever it is: a PDF (pdf.js) or an image
 * (PNG, JPEG, multi-page TIFF). The page components know only this; each kind is loaded on first use.
 */
import type { SourceMediaType } from '../../../shared/media-type.js';
import type { PageSize } from './source-box.js';

export interface DocPageSize extends PageSize {
  /** An image page's size in pixels: the units of its source boxes when the service sent no page layout. */
  pixels?: PageSize;
}

export interface PageDoc {
  readonly pageCount: number;
  /** Size of a 0-based page at scale 1, in points (1/72 inch; an image's by its recorded resolution), its rotation applied. */
  pageSize(page: number): Promise<DocPageSize>;
  /** Draws a 0-based page at `scale` CSS px per point, sharp on high-DPI screens; resolves when drawn, or when a newer render of the same canvas replaced it. */
  render(page: number, canvas: HTMLCanvasElement, scale: number): Promise<void>;
  destroy(): Promise<void>;
}

export async function openPageDoc(bytes: Uint8Array, type: SourceMediaType): Promise<PageDoc> {
  if (type === 'application/pdf') return (await import('./pdf.js')).openPdf(bytes);
  return (await import('./image-doc.js')).openImage(bytes, type);
}

export function clampPage(page: number, count: number): number {
  return Math.min(Math.max(0, Math.trunc(page)), Math.max(0, count - 1));
}
