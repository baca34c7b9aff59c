/**
 * Reads a UTF-8 text file as pages (split on form feed) with synthetic coordinates: a 612x792 page,
 * 72pt margins, 12pt lines, 6pt per character (Courier at 10pt, which is what a rendering uses).
 * A page whose text does not fit grows, so every coordinate stays inside its page.
 */
import type { PageText, ReadFailure, ReadText, TextLine } from './text-model.js';

export const TEXT_MARGIN = 72;
export const TEXT_LINE_HEIGHT = 12;
export const TEXT_CHAR_WIDTH = 6;
export const TEXT_FONT_SIZE = 10;

export function readPlainText(bytes: Uint8Array): ReadText | ReadFailure {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { error: 'unsupported file: not a PDF, an image (PNG, JPEG, TIFF) or UTF-8 text', layouts: [] };
  }
  if (text.includes('\u0000')) return { error: 'unsupported file: not a PDF, an image (PNG, JPEG, TIFF) or UTF-8 text (binary data)', layouts: [] };
  if (text.trim() === '') return { error: 'no text: the file holds only whitespace', layouts: [] };

  const pages = text
    .replace(/^\uFEFF/, '')
    .split('\f')
    .map((pageText, page) => layoutPage(pageText.replace(/\r\n?/g, '\n').split('\n'), page));
  return { source: 'text', ocr: 0.99, pages };
}

function layoutPage(rawLines: string[], page: number): PageText {
  // Trailing newlines do not make lines.
  while (rawLines.length > 0 && rawLines[rawLines.length - 1]?.trim() === '') rawLines.pop();
  const longest = rawLines.reduce((m, l) => Math.max(m, l.trimEnd().length), 0);
  const width = Math.max(612, 2 * TEXT_MARGIN + TEXT_CHAR_WIDTH * longest);
  const height = Math.max(792, 2 * TEXT_MARGIN + TEXT_LINE_HEIGHT * rawLines.length);
  const lines: TextLine[] = [];
  rawLines.forEach((raw, i) => {
    const lead = raw.length - raw.trimStart().length;
    const text = raw.trim();
    if (text === '') return;
    const yTop = height - TEXT_MARGIN - TEXT_LINE_HEIGHT * i;
    const x0 = TEXT_MARGIN + TEXT_CHAR_WIDTH * lead;
    lines.push({
      page,
      text,
      spans: [{ start: 0, end: text.length, x0, x1: x0 + TEXT_CHAR_WIDTH * text.length, yBottom: yTop - TEXT_LINE_HEIGHT, yTop, size: TEXT_FONT_SIZE }],
    });
  });
  // User space has y up; the service's page space has y down.
  return { layout: { page_number: page, width, height }, transform: [1, 0, 0, -1, 0, height], lines };
}
