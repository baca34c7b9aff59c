import type { Stats } from 'node:fs';

/** What a path is when it is neither a regular file nor a folder, in a person's words; null for those two. */
export function notRegular(st: Stats): string | null {
  if (st.isFile() || st.isDirectory()) return null;
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'neither a file nor a folder';
}
