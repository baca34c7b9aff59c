/**
 * Loads pdfjs-dist once, configured for plain Node: no canvas, no network, no worker thread, quiet.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loading: Promise<Pdfjs> | null = null;

export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= load();
  return loading;
}

async function load(): Promise<Pdfjs> {
  // pdfjs warns at module evaluation (before any verbosity option can apply) when the optional
  // @napi-rs/canvas is missing; it only needs it for rendering, which we never do.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('Warning: ')) return;
    warn(...args);
  };
  try {
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    // Hand pdfjs its worker module in-process ("fake worker"); otherwise it imports
    // "./pdf.worker.mjs" relative to itself, which breaks once bundled.
    const workerSpecifier = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
    const worker: unknown = await import(workerSpecifier);
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= worker;
    return pdfjs;
  } finally {
    console.warn = warn;
  }
}

/** Local directories of pdfjs's font and CMap data, so it never tries to fetch them. */
export function pdfjsDataDirs(): { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string } {
  const root = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return {
    standardFontDataUrl: path.join(root, 'standard_fonts') + path.sep,
    cMapUrl: path.join(root, 'cmaps') + path.sep,
    wasmUrl: path.join(root, 'wasm') + path.sep,
  };
}
