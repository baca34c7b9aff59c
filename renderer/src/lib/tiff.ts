/**
 * TIFF pages for the source viewer, decoded in the page with utif2 (Chromium shows no TIFF):
 * every page of a multi-page file, any compression utif2 reads (CCITT G3/G4 fax scans, LZW,
 * PackBits, JPEG, Deflate), to RGBA. Plain data in and out, so it is unit-tested in Node.
 */
import UTIF from 'utif2';

export interface TiffPage {
  /** Pixels. */
  width: number;
  height: number;
  /** Pixels per inch the scanner recorded; null when the file does not say. */
  dpi: number | null;
}

export interface Tiff {
  pages: TiffPage[];
  /** A page's pixels, 8-bit RGBA, row by row (decoded on each call: the caller keeps what it needs). */
  rgba(page: number): Uint8ClampedArray<ArrayBuffer>;
}

type Ifd = UTIF.IFD;

const num = (v: unknown): number | null => {
  const x = Array.isArray(v) ? v[0] : v;
  if (Array.isArray(x)) return typeof x[0] === 'number' && typeof x[1] === 'number' && x[1] !== 0 ? x[0] / x[1] : null;
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
};

/** XResolution (282) in ResolutionUnit (296: 2 inch, the default; 3 centimetre; 1 none). */
function dpiOf(ifd: Ifd): number | null {
  const res = num(ifd.t282);
  const unit = num(ifd.t296) ?? 2;
  if (res === null || !(res > 0) || unit === 1) return null;
  return unit === 3 ? res * 2.54 : res;
}

/** The resolution in a TIFF structure's first directory (a JPEG's EXIF block is one); null when it records none. */
export function tiffDpi(bytes: Uint8Array): number | null {
  try {
    const first = UTIF.decode(new Uint8Array(bytes).buffer)[0];
    return first ? dpiOf(first) : null;
  } catch {
    return null;
  }
}

/** Whether a page's strips (273/279) or tiles (324/325) all lie inside the file: utif2 reads past the end as blank. */
function complete(ifd: Ifd, length: number): boolean {
  const offsets = (ifd.t273 ?? ifd.t324) as number[] | undefined;
  const counts = (ifd.t279 ?? ifd.t325) as number[] | undefined;
  if (!Array.isArray(offsets) || !Array.isArray(counts)) return true;
  return offsets.every((o, i) => o + (counts[i] ?? 0) <= length);
}

/** Throws an Error in a person's words when the bytes are no TIFF with a page in it. */
export function readTiff(bytes: Uint8Array): Tiff {
  // utif2 reads a whole ArrayBuffer: hand it a copy of exactly these bytes (a view's buffer may hold more;
  // Node's Buffer.slice does not copy).
  const buf = new Uint8Array(bytes).buffer;
  let ifds: Ifd[];
  try {
    ifds = UTIF.decode(buf);
  } catch (err) {
    throw new Error(`The TIFF image cannot be read: ${err instanceof Error ? err.message : String(err)}.`);
  }
  // Pages are the main images: a reduced-resolution copy (NewSubfileType bit 0) is a thumbnail.
  const images = ifds.filter((d) => num(d.t256) !== null && num(d.t257) !== null && ((num(d.t254) ?? 0) & 1) === 0);
  if (images.length === 0) throw new Error('The TIFF image has no page in it that can be shown.');
  return {
    pages: images.map((d) => ({ width: num(d.t256) as number, height: num(d.t257) as number, dpi: dpiOf(d) })),
    rgba(page) {
      const ifd = images[page];
      if (!ifd) throw new Error(`The TIFF image has no page ${page + 1}.`);
      if (!complete(ifd, buf.byteLength)) throw new Error(`Page ${page + 1} of the TIFF image cannot be shown: the file ends before the page does (it was cut short).`);
      try {
        UTIF.decodeImage(buf, ifd);
        const out = new Uint8ClampedArray(UTIF.toRGBA8(ifd));
        if (out.length !== ifd.width * ifd.height * 4) throw new Error('its pixels do not fill the page');
        return out;
      } catch (err) {
        throw new Error(`Page ${page + 1} of the TIFF image cannot be read: ${err instanceof Error ? err.message : String(err)}.`);
      }
    },
  };
}
