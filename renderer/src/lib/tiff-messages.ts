/** What the page and its TIFF worker say to each other (lib/tiff-worker.ts, lib/tiff-client.ts). */
import type { TiffPage } from './tiff.js';

export type TiffAsk = { kind: 'open'; bytes: Uint8Array } | { kind: 'page'; page: number };

export type TiffRequest = TiffAsk & { id: number };

export type TiffReply =
  | { id: number; kind: 'opened'; pages: TiffPage[] }
  | { id: number; kind: 'page'; rgba: Uint8ClampedArray<ArrayBuffer> }
  | { id: number; kind: 'error'; message: string };
