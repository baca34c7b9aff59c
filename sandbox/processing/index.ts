/**
 * The sandbox's document processing: reads a file (PDF text layer via pdfjs, or UTF-8 text), splits it
 * into classified documents, extracts and validates fields. Deterministic, offline, no model weights.
 */
import type { ResultFile } from '../../shared/service/results.js';
import { errorDocument, extractedDocuments } from './documents.js';
import { isFailure, readSource } from './read-source.js';

export { buildCaseInfo } from './case-info.js';
export { writeDocumentPdf } from './post-process-pdf.js';
export { DEFAULT_MAX_BYTES } from './read-source.js';

export interface ProcessOptions {
  /** runtime_config.<ns>.pdf.passwords: document title (file name, with or without extension) -> password. */
  passwords: Record<string, string>;
  /** The namespace segment <ns> (default svc), named in messages about passwords. */
  namespace?: string;
  /** Default 50 MiB. */
  maxBytes?: number;
}

export interface ProcessedFile extends ResultFile {
  page_count: number;
}

/**
 * Never throws for bad input (an unreadable document becomes one all-ERROR document); throws only
 * when `filePath` cannot be read.
 */
export async function processFile(filePath: string, originalName: string, inputFilePath: string, opts: ProcessOptions): Promise<ProcessedFile> {
  const { read } = await readSource(filePath, originalName, opts);
  const base = { original_file_name: originalName, input_file_path: inputFilePath };
  if (isFailure(read)) return { ...base, documents: [errorDocument(read.error, read.layouts)], page_count: read.layouts.length };
  return { ...base, documents: extractedDocuments(read), page_count: read.pages.length };
}
