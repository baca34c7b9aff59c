/// <reference types="vite/client" />
/**
 * pdf.js in the renderer: open a PDF from bytes as a PageDoc (lib/page-doc.ts), render one page onto a canvas. pdf.js is loaded
 * on first use (it is large and most screens never need it); its worker is a bundled asset of our
 * own origin, which the CSP allows (worker-src 'self' blob:). No eval (isEvalSupported: false).
 */
import type { PDFDocumentProxy, RenderTask } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { clampPage, type PageDoc } from './page-doc.js';

type Pdfjs = typeof import('pdfjs-dist');
let loading: Promise<Pdfjs> | undefined;

function pdfjs(): Promise<Pdfjs> {
  loading ??= import('pdfjs-dist').then((m) => {
    m.GlobalWorkerOptions.workerSrc = workerUrl;
    return m;
  });
  return loading;
}


/** A render in progress per canvas: pdf.js refuses two at once on one canvas. */
const active = new WeakMap<HTMLCanvasElement, RenderTask>();

export async function openPdf(bytes: Uint8Array): Promise<PageDoc> {
  const lib = await pdfjs();
  // pdf.js transfers (detaches) the buffer it is given: keep the caller's copy intact.
  const task = lib.getDocument({ data: bytes.slice(), isEvalSupported: false, verbosity: lib.VerbosityLevel.ERRORS });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw new Error(openError(err));
  }
  return {
    pageCount: doc.numPages,
    async pageSize(page) {
      const p = await doc.getPage(clampPage(page, doc.numPages) + 1);
      const v = p.getViewport({ scale: 1 });
      return { width: v.width, height: v.height };
    },
    async render(page, canvas, scale) {
      active.get(canvas)?.cancel();
      const p = await doc.getPage(clampPage(page, doc.numPages) + 1);
      const viewport = p.getViewport({ scale });
      const ratio = window.devicePixelRatio || 1;
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      canvas.style.width = `${viewport.width}px`;
      canvas.style.height = `${viewport.height}px`;
      const rt = p.render({ canvas, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] });
      active.set(canvas, rt);
      try {
        await rt.promise;
      } catch (err) {
        if (err instanceof lib.RenderingCancelledException) return;
        throw err;
      } finally {
        if (active.get(canvas) === rt) active.delete(canvas);
      }
    },
    destroy: () => doc.destroy(),
  };
}

function openError(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown };
  if (e?.name === 'PasswordException') return 'The PDF is password-protected; open it with another app.';
  const msg = typeof e?.message === 'string' ? e.message.trim().replace(/\.$/, '') : String(err);
  return `The PDF cannot be shown: ${msg || 'unknown error'}.`;
}
