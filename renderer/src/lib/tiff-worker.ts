/**
 * Decodes TIFF pages off the page's thread: utif2's CCITT G4 decoder takes seconds on a dense
 * 300 dpi page (bench/tiff-decode.ts), which would freeze the whole window. One worker per open
 * TIFF; it keeps the file and answers page requests (lib/tiff-client.ts).
 */
import { readTiff, type Tiff } from './tiff.js';
import type { TiffReply, TiffRequest } from './tiff-messages.js';

let tiff: Tiff | null = null;

const reply = (msg: TiffReply, transfer: Transferable[] = []): void => self.postMessage(msg, { transfer });
const words = (err: unknown): string => (err instanceof Error ? err.message : String(err));

self.onmessage = (e: MessageEvent<TiffRequest>) => {
  const req = e.data;
  try {
    if (req.kind === 'open') {
      tiff = readTiff(req.bytes);
      reply({ id: req.id, kind: 'opened', pages: tiff.pages });
    } else {
      if (!tiff) throw new Error('The TIFF image is not open.');
      const rgba = tiff.rgba(req.page);
      reply({ id: req.id, kind: 'page', rgba }, [rgba.buffer]);
    }
  } catch (err) {
    reply({ id: req.id, kind: 'error', message: words(err) });
  }
};
