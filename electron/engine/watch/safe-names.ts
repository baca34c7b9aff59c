/**
 * File names as the service gets them (issue 4: "made safe and unique within a batch; the original name is
 * kept in the store"). A safe name is one path segment (no `/` or `\`), has no control characters or
 * characters Windows forbids, is not `.`/`..`/a Windows device name, is NFC-normalised, and is at most 255
 * characters and 255 UTF-8 bytes (spec: filename max 255 characters), cut in the stem so the extension stays.
 */

export const MAX_NAME = 255;
const MAX_EXT = 16;
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f/\\:*?"<>|]/gu;
const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
const encoder = new TextEncoder();

const utf8Len = (s: string): number => encoder.encode(s).length;
const fits = (s: string): boolean => s.length <= MAX_NAME && utf8Len(s) <= MAX_NAME;

/** Split into stem and extension (`.pdf`); a leading dot or an over-long "extension" is part of the stem. */
function splitExt(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || name.length - dot > MAX_EXT || /\s/.test(name.slice(dot))) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/** Cut `stem` (by whole code points) so that `stem + suffix` fits. */
function fitStem(stem: string, suffix: string): string {
  if (fits(stem + suffix)) return stem;
  const points = [...stem];
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(points.slice(0, mid).join('') + suffix)) lo = mid;
    else hi = mid - 1;
  }
  return points.slice(0, lo).join('').trimEnd();
}

/** The base name of `original` (either separator), made safe. Never empty. */
export function safeFileName(original: string): string {
  const base = original.split(/[/\\]/).filter((s) => s !== '').pop() ?? '';
  let name = base.normalize('NFC').replace(FORBIDDEN, '_').trim().replace(/[. ]+$/u, '');
  if (name === '' || /^\.+$/.test(name)) name = 'file';
  let [stem, ext] = splitExt(name);
  if (DEVICE.test(stem)) stem = `_${stem}`;
  if (stem === '') stem = 'file';
  ext = fits(ext) ? ext : '';
  return fitStem(stem, ext) + ext;
}

/**
 * Assigns safe names unique within one batch, case-insensitively (`a.pdf`, `a (2).pdf`, `a (3).pdf`).
 * Feed every file of the batch in a stable order; `assign` returns the name to upload under.
 */
export class BatchNames {
  private readonly taken = new Set<string>();

  assign(original: string): string {
    const safe = safeFileName(original);
    const [stem, ext] = splitExt(safe);
    let candidate = safe;
    for (let n = 2; this.taken.has(candidate.toLowerCase()); n++) {
      const suffix = ` (${n})${ext}`;
      candidate = fitStem(stem, suffix) + suffix;
    }
    this.taken.add(candidate.toLowerCase());
    return candidate;
  }
}

/** Safe unique names for a list of originals, in order. */
export function uniqueSafeNames(originals: readonly string[]): string[] {
  const names = new BatchNames();
  return originals.map((o) => names.assign(o));
}
