/**
 * Loads pdfjs-dist once, configured for plain Node: no canvas, no network, no worker thread, quiet.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loading: Promise<Pdfjs> | null = null;

export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= load().catch((err: unknown) => {
    loading = null; // let a later call try again
    throw err;
  });
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
    ensureDomMatrix();
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

/**
 * pdfjs 5 evaluates `new DOMMatrix()` at module load. Node has no DOMMatrix; pdfjs takes it from the
 * optional @napi-rs/canvas and crashes on import without it. Text extraction never uses it, so when
 * the canvas package cannot be loaded, a 2D-matrix placeholder lets the import succeed.
 */
function ensureDomMatrix(): void {
  const g = globalThis as { DOMMatrix?: unknown };
  if (g.DOMMatrix) return;
  try {
    const canvas: unknown = pdfjsRequire()('@napi-rs/canvas');
    if ((canvas as { DOMMatrix?: unknown }).DOMMatrix) return; // pdfjs installs it itself
  } catch {
    // not installed or not loadable on this platform
  }
  g.DOMMatrix = class DOMMatrixPlaceholder {
    a = 1;
    b = 0;
    c = 0;
    d = 1;
    e = 0;
    f = 0;
    constructor(init?: ArrayLike<number>) {
      const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = init && init.length >= 6 ? Array.from(init) : [];
      Object.assign(this, { a, b, c, d, e, f });
    }
  };
}

/** `require` as seen from pdfjs-dist, to load what pdfjs would load. */
function pdfjsRequire(): NodeJS.Require {
  return createRequire(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
}

/** Local directories of pdfjs's font and CMap data, so it never tries to fetch them. */
export function pdfjsDataDirs(): { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string } {
  const root = path.dirname(pdfjsRequire().resolve('./package.json'));
  return {
    standardFontDataUrl: path.join(root, 'standard_fonts') + path.sep,
    cMapUrl: path.join(root, 'cmaps') + path.sep,
    wasmUrl: path.join(root, 'wasm') + path.sep,
  };
}
