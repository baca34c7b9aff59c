/** The post-processed PDF of one document (runtime_config.generate_post_process_pdf). */
import { writeFile } from 'node:fs/promises';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { PDFFont } from 'pdf-lib';
import type { ResultDocument } from '../../shared/service/results.js';
import { isPdf } from './pdf-text.js';
import { TEXT_FONT_SIZE } from './plain-text.js';
import { isFailure, readSource } from './read-source.js';
import type { ReadOptions, Source } from './read-source.js';
import type { PageImage, PageText } from './text-model.js';

/**
 * Copies the document's pages when pdf-lib can open the source (an unencrypted PDF); places the page
 * images of an image file; otherwise renders the text read from those pages at its original
 * positions; for an unreadable source, writes one page stating why. `source`, when given, is the
 * read the results came from, so a scan is not OCR'd a second time.
 */
export async function writeDocumentPdf(srcPath: string, originalName: string, doc: ResultDocument, outPath: string, opts: ReadOptions & { source?: Source }): Promise<void> {
  const source = opts.source ?? (await readSource(srcPath, originalName, opts));
  // updateMetadata: false keeps the output free of the current time, so reruns write equal bytes.
  const out = await PDFDocument.create({ updateMetadata: false });
  // pdf-lib cannot decrypt, and only gets a PDF that pdfjs could open (it logs noisily on damage).
  const opened = !isFailure(source.read) || source.read.layouts.length > 0;
  const copyable = source.bytes !== null && isPdf(source.bytes) && opened && !hasEncryptDictionary(source.bytes);
  // page_numbers count from 1; pages of the file are read and copied by 0-based index.
  const indexes = doc.page_numbers.map((n) => n - 1);
  const copied = copyable && source.bytes ? await copyPages(source.bytes, indexes, out) : false;
  if (!copied) {
    if (isFailure(source.read)) {
      await messagePage(out, `This document could not be read: ${source.read.error}`);
    } else {
      const read = source.read;
      const images = read.images;
      if (images) {
        const chosen = indexes.map((n) => images[n]).filter((p) => p !== undefined);
        for (const image of chosen) await placeImage(out, image);
        if (chosen.length === 0) await messagePage(out, 'This document has no pages.');
        return void (await writeFile(outPath, await out.save()));
      }
      const pages = indexes.map((n) => read.pages[n]).filter((p) => p !== undefined);
      const font = await out.embedFont(read.source === 'text' ? StandardFonts.Courier : StandardFonts.Helvetica);
      for (const page of pages) renderText(out, page, font);
      if (pages.length === 0) await messagePage(out, 'This document has no pages.');
    }
  }
  await writeFile(outPath, await out.save());
}

/** The trailer (or xref stream dictionary, which is never compressed) names an /Encrypt dictionary. */
function hasEncryptDictionary(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('/Encrypt', 0, 'latin1');
}

async function copyPages(bytes: Uint8Array, pageIndexes: number[], out: PDFDocument): Promise<boolean> {
  let src: PDFDocument;
  try {
    src = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: true });
  } catch {
    return false; // too damaged for pdf-lib: render the text instead
  }
  if (src.isEncrypted) return false;
  const indices = pageIndexes.filter((n) => n >= 0 && n < src.getPageCount());
  if (indices.length === 0) return false;
  for (const page of await out.copyPages(src, indices)) out.addPage(page);
  return true;
}

/** A page the size of the scan (at its resolution, 72 dpi when the file does not say) showing the image. */
async function placeImage(out: PDFDocument, image: PageImage): Promise<void> {
  const png = await out.embedPng(image.png);
  const perPixel = 72 / (image.dpi ?? 72);
  const width = png.width * perPixel;
  const height = png.height * perPixel;
  out.addPage([width, height]).drawImage(png, { x: 0, y: 0, width, height });
}

function renderText(out: PDFDocument, page: PageText, font: PDFFont): void {
  const { width, height } = page.layout;
  const p = out.addPage([width, height]);
  for (const line of page.lines) {
    for (const span of line.spans) {
      const size = span.size > 0 ? span.size : TEXT_FONT_SIZE;
      const text = encodable(font, line.text.slice(span.start, span.end).replace(/\t/g, ' '));
      // Spans are in user space with a 20% descent below the baseline (see buildLines).
      p.drawText(text, { x: span.x0, y: span.yBottom + (span.yTop - span.yBottom) * 0.2, size, font });
    }
  }
}

async function messagePage(out: PDFDocument, message: string): Promise<void> {
  const font = await out.embedFont(StandardFonts.Helvetica);
  const p = out.addPage([612, 792]);
  const words = encodable(font, message).split(' ');
  let line = '';
  let y = 720;
  for (const word of words) {
    const next = line ? `${line} ${word}` : word;
    if (font.widthOfTextAtSize(next, 11) > 468 && line) {
      p.drawText(line, { x: 72, y, size: 11, font });
      y -= 14;
      line = word;
    } else {
      line = next;
    }
  }
  if (line) p.drawText(line, { x: 72, y, size: 11, font });
}

/** Standard fonts only cover WinAnsi; other characters become "?". */
function encodable(font: PDFFont, text: string): string {
  const supported = new Set(font.getCharacterSet());
  return [...text].map((ch) => (supported.has(ch.codePointAt(0) ?? -1) ? ch : '?')).join('');
}
