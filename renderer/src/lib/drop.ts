/**
 * Files and folders dropped on the window. Electron gives each File its local path (upload.paths);
 * a browser gives none, so the files under each dropped entry are walked (webkitGetAsEntry) and their
 * bytes staged with the engine one by one (upload.stage, then upload.staged).
 */

export interface DroppedFile {
  file: File;
  /** Path inside the drop, `/`-separated: "scan.pdf" or "march/scan.pdf". */
  relPath: string;
}

/** What was dropped, captured while the drop event lasts (a DataTransfer is emptied after it). */
export interface Drop {
  /** Local paths (Electron); null in a browser. */
  paths: string[] | null;
  /** Browser: the dropped entries, walked later. */
  entries: FileSystemEntry[];
  /** Browser fallback when entries are not available: the top-level files. */
  files: File[];
  /** Names of what was dropped, for the dialog. */
  names: { name: string; folder: boolean }[];
}

export function hasFiles(dt: DataTransfer | null): boolean {
  return dt !== null && Array.from(dt.types).includes('Files');
}

/** Reads a drop event's DataTransfer; `pathFor` is the host's File -> path (null in a browser). */
export function captureDrop(dt: DataTransfer, pathFor: (f: File) => string | null): Drop {
  const files = Array.from(dt.files);
  const entries: FileSystemEntry[] = [];
  for (const item of Array.from(dt.items)) {
    if (item.kind !== 'file') continue;
    const e = item.webkitGetAsEntry();
    if (e) entries.push(e);
  }
  const paths = files.map(pathFor);
  const allPaths = files.length > 0 && paths.every((p): p is string => p !== null);
  const names = entries.length > 0 ? entries.map((e) => ({ name: e.name, folder: e.isDirectory })) : files.map((f) => ({ name: f.name, folder: false }));
  return { paths: allPaths ? (paths as string[]) : null, entries, files, names };
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every file under the dropped entries (folders walked depth-first), with its path inside the drop. */
export async function collectFiles(drop: Drop): Promise<DroppedFile[]> {
  if (drop.entries.length === 0) return drop.files.map((file) => ({ file, relPath: file.name }));
  const out: DroppedFile[] = [];
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) {
      out.push({ file: await fileOf(entry as FileSystemFileEntry), relPath: rel });
      return;
    }
    if (!entry.isDirectory) return;
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries answers in chunks (100 at a time in Chromium) until it returns none.
    for (;;) {
      const chunk = await readEntries(reader);
      if (chunk.length === 0) break;
      for (const child of chunk) await walk(child, rel);
    }
  };
  for (const e of drop.entries) await walk(e, '');
  return out;
}

/** Random hex id of one drop's staging area (16 characters). */
export function newDropId(): string {
  const b = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
