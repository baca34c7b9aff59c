/**
 * Which originals the source viewer can draw, told by the file's first bytes (a name can lie: a
 * scanner may save a TIFF as .jpg). Pure, shared by the engine (the type it reports) and the
 * renderer (the decoder it picks).
 */
export type SourceMediaType = 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/tiff';

/** How many leading bytes sniffMediaType looks at: a PDF header may follow up to 1 KB of junk. */
export const SNIFF_BYTES = 1024;

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const TIFF_LE = [0x49, 0x49, 0x2a, 0x00];
const TIFF_BE = [0x4d, 0x4d, 0x00, 0x2a];
const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d];

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0): boolean => b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);

/** The type of a file from its first bytes (at least SNIFF_BYTES of them when there are that many); null when it is none of these. */
export function sniffMediaType(head: Uint8Array): SourceMediaType | null {
  if (startsWith(head, PNG)) return 'image/png';
  if (startsWith(head, JPEG)) return 'image/jpeg';
  if (startsWith(head, TIFF_LE) || startsWith(head, TIFF_BE)) return 'image/tiff';
  const end = Math.min(head.length, SNIFF_BYTES) - PDF.length;
  for (let i = 0; i <= end; i++) if (head[i] === 0x25 && startsWith(head, PDF, i)) return 'application/pdf';
  return null;
}
