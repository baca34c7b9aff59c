/** Printing for the docsync commands: aligned text tables for people, JSON for scripts. */
import { rename, rm, writeFile } from 'node:fs/promises';
import { shown } from '../../shared/shown.js';
import { asUserChose } from '../engine/config/private-files.js';

export function printJson(v: unknown): void {
  console.log(JSON.stringify(v, null, 2));
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : shown(String(c)))))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd()).join('\n');
}

export function when(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** Written to a temporary file next to `path` and renamed over it: never half a file. An export is the user's: their own modes. */
export async function writeAtomic(path: string, data: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, data);
    await asUserChose(tmp, 'file');
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
