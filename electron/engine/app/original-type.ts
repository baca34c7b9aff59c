/** What an original on disk is, by its first bytes, for the source viewer (shared/media-type.ts). */
import { open } from 'node:fs/promises';
import { SNIFF_BYTES, sniffMediaType, type SourceMediaType } from '../../../shared/media-type.js';

export interface OriginalOnDisk {
  present: boolean;
  /** null when it is gone or of a kind the viewer cannot draw. */
  type: SourceMediaType | null;
}

/** Reads at most SNIFF_BYTES; never throws (a file that cannot be read is reported absent). */
export async function originalOnDisk(path: string): Promise<OriginalOnDisk> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return { present: false, type: null };
  }
  try {
    const head = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await fh.read(head, 0, SNIFF_BYTES, 0);
    return { present: true, type: sniffMediaType(head.subarray(0, bytesRead)) };
  } catch {
    return { present: true, type: null };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** The media type to hand out with a file's bytes: what they are, else application/octet-stream. */
export const mediaTypeOf = (bytes: Uint8Array): string => sniffMediaType(bytes.subarray(0, SNIFF_BYTES)) ?? 'application/octet-stream';
