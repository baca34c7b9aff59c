import { rename, rm, stat, writeFile, copyFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { asUserChose, mkdirAsUserChose } from '../config/private-files.js';

/** A free name in `dir` for `name`: `a.pdf`, then `a (2).pdf`, ... so nothing is overwritten. */
async function freeName(dir: string, name: string): Promise<string> {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const candidate = join(dir, i === 1 ? name : `${stem} (${i})${ext}`);
    if (!(await stat(candidate).catch(() => null))) return candidate;
  }
}

/**
 * Moves a file into `dir` (across filesystems too); returns where it went. The archive and error folders
 * are the user's choice: what DocSync makes there has the user's own modes, not the data home's.
 */
export async function moveInto(path: string, dir: string): Promise<string> {
  await mkdirAsUserChose(dir);
  const dest = await freeName(dir, basename(path));
  try {
    await rename(path, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(path, dest);
    await rm(path);
  }
  return dest;
}

/** A failed file goes to the error folder with `<name>.error.txt` saying why. */
export async function moveToErrorFolder(path: string, dir: string, reason: string): Promise<string> {
  const dest = await moveInto(path, dir);
  await writeFile(`${dest}.error.txt`, `${basename(path)} could not be processed.\n\n${reason}\n`);
  await asUserChose(`${dest}.error.txt`, 'file');
  return dest;
}
