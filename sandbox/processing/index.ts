/**
 * The sandbox's document processing: reads a file (PDF text layer via pdfjs, images and scanned PDF
 * pages by OCR, or UTF-8 text), splits it
 * into classified documents, extracts and validates fields. Deterministic, offline, no model weights.
 */
import type { ResultFile } from '../../shared/service/results.js';
import { errorDocument, extractedDocuments } from './documents.js';
import type { OcrPool } from './ocr/pool.js';
import { isFailure, readSource } from './read-source.js';
import type { Source } from './read-source.js';

export { buildCaseInfo } from './case-info.js';
export { writeDocumentPdf } from './post-process-pdf.js';
export { DEFAULT_MAX_BYTES, readSource } from './read-source.js';
export type { Source } from './read-source.js';
export { OcrPool } from './ocr/pool.js';

export interface ProcessOptions {
  /** runtime_config.<ns>.pdf.passwords: document title (file name, with or without extension) -> password. */
  passwords: Record<string, string>;
  /** The namespace segment <ns> (default svc), named in messages about passwords. */
  namespace?: string;
  /** Default 50 MiB. */
  maxBytes?: number;
  /** Workers for OCR (images, scanned PDF pages); default a process-wide pool. */
  ocr?: OcrPool;
}

export interface ProcessedFile extends ResultFile {
  page_count: number;
}

/**
 * Never throws for bad input (an unreadable document becomes one all-ERROR document); throws only
 * when `filePath` cannot be read.
 */
export async function processFile(filePath: string, originalName: string, inputFilePath: string, opts: ProcessOptions): Promise<ProcessedFile> {
  return processSource(await readSource(filePath, originalName, opts), originalName, inputFilePath);
}

/** The results of a file already read (the read can then also feed its post-processed PDF). */
export function processSource({ read }: Source, originalName: string, inputFilePath: string): ProcessedFile {
  const base = { original_file_name: originalName, input_file_path: inputFilePath };
  if (isFailure(read)) return { ...base, documents: [errorDocument(read.error, read.layouts)], page_count: read.layouts.length };
  return { ...base, documents: extractedDocuments(read), page_count: read.pages.length };
}
