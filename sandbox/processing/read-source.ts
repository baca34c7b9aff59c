/** Reads an input file into text pages, whatever it is, or says why it cannot be read. */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { imageKind } from './ocr/images.js';
import { sharedOcrPool } from './ocr/pool.js';
import type { OcrPool } from './ocr/pool.js';
import { readImage } from './ocr/read-image.js';
import { isPdf, readPdfText } from './pdf-text.js';
import type { PasswordChoice } from './pdf-text.js';
import { readPlainText } from './plain-text.js';
import type { ReadFailure, ReadText } from './text-model.js';

export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;

export interface ReadOptions {
  passwords: Record<string, string>;
  /** The namespace segment the passwords came from (runtime_config.<ns>.pdf.passwords), for messages. Default svc. */
  namespace?: string;
  maxBytes?: number;
  /** Workers that read images and scanned PDF pages; default a process-wide pool (see sharedOcrPool). */
  ocr?: OcrPool;
}

/**
 * runtime_config.<ns>.pdf.passwords maps document titles to passwords; a title is the original
 * file name, with or without its extension.
 */
export function passwordFor(originalName: string, passwords: Record<string, string>): PasswordChoice {
  const ext = path.extname(originalName);
  const titles = ext ? [originalName, originalName.slice(0, -ext.length)] : [originalName];
  for (const title of titles) {
    const pw = Object.hasOwn(passwords, title) ? passwords[title] : undefined;
    if (typeof pw === 'string') return { password: pw, title };
  }
  return { password: undefined, title: undefined };
}

export interface Source {
  /** The file's bytes, unless it was too large or empty. */
  bytes: Uint8Array | null;
  read: ReadText | ReadFailure;
}

/** Throws only when the path cannot be read at all. */
export async function readSource(filePath: string, originalName: string, opts: ReadOptions): Promise<Source> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const { size } = await stat(filePath);
  if (size === 0) return { bytes: null, read: { error: 'empty file: 0 bytes', layouts: [] } };
  if (size > maxBytes) {
    return { bytes: null, read: { error: `file too large: ${size} bytes, over the limit of ${maxBytes} bytes`, layouts: [] } };
  }
  const bytes = new Uint8Array(await readFile(filePath));
  const pw = { ...passwordFor(originalName, opts.passwords), ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }) };
  const pool = opts.ocr ?? sharedOcrPool();
  const image = imageKind(bytes);
  const read = isPdf(bytes) ? await readPdfText(bytes, pw, pool) : image ? await readImage(bytes, image, pool) : readPlainText(bytes);
  return { bytes, read };
}

export const isFailure = (r: ReadText | ReadFailure): r is ReadFailure => 'error' in r;
