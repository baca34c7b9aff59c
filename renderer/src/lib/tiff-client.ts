/** A TIFF opened in its own worker (lib/tiff-worker.ts): its pages' sizes now, their pixels on request. */
import type { TiffPage } from './tiff.js';
import type { TiffAsk, TiffReply, TiffRequest } from './tiff-messages.js';

export interface TiffInWorker {
  pages: TiffPage[];
  rgba(page: number): Promise<Uint8ClampedArray<ArrayBuffer>>;
  close(): void;
}

export async function openTiff(bytes: Uint8Array): Promise<TiffInWorker> {
  const worker = new Worker(new URL('./tiff-worker.ts', import.meta.url), { type: 'module', name: 'TIFF pages' });
  const waiting = new Map<number, { ok: (r: TiffReply) => void; fail: (e: Error) => void }>();
  let next = 0;
  let dead: Error | null = null;
  const fail = (e: Error): void => {
    dead = e;
    for (const w of waiting.values()) w.fail(e);
    waiting.clear();
  };
  worker.onmessage = (e: MessageEvent<TiffReply>) => {
    const w = waiting.get(e.data.id);
    waiting.delete(e.data.id);
    if (!w) return;
    if (e.data.kind === 'error') w.fail(new Error(e.data.message));
    else w.ok(e.data);
  };
  // A worker that cannot start or runs out of memory on a huge page.
  worker.onerror = (e) => {
    e.preventDefault();
    fail(new Error('The TIFF image could not be decoded here (it may be too large); use Download to open it with another app.'));
  };
  const ask = (req: TiffAsk, transfer: Transferable[] = []): Promise<TiffReply> => {
    if (dead) return Promise.reject(dead);
    const id = next++;
    return new Promise((ok, failOne) => {
      waiting.set(id, { ok, fail: failOne });
      worker.postMessage({ ...req, id } as TiffRequest, transfer);
    });
  };
  // The worker gets its own copy: the caller's bytes stay usable (Download, a second viewer).
  const copy = bytes.slice();
  let opened: TiffReply;
  try {
    opened = await ask({ kind: 'open', bytes: copy }, [copy.buffer]);
  } catch (err) {
    worker.terminate();
    throw err;
  }
  if (opened.kind !== 'opened') throw new Error('The TIFF image could not be opened.');
  return {
    pages: opened.pages,
    async rgba(page) {
      const r = await ask({ kind: 'page', page });
      if (r.kind !== 'page') throw new Error(`Page ${page + 1} of the TIFF image could not be decoded.`);
      return r.rgba;
    },
    close() {
      fail(new Error('The TIFF image was closed.'));
      worker.terminate();
    },
  };
}
