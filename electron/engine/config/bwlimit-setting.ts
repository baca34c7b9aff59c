/**
 * Where the bandwidth limit comes from (issue 27, section 3): a `--bwlimit` flag, else
 * DOCSYNC_BWLIMIT, else the saved setting in the data home (`bandwidth.json`, beside
 * connection.json), which the app's Connection screen writes. The saved setting is not tied to a
 * connection: it holds for every host of the data home (app, `docsync serve`, `docsync upload`);
 * the flag and the variable hold for their process only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BwLimitError, parseBwLimit, type BwSchedule } from '../../../shared/bwlimit.js';
import { engineBandwidth, type BwSource } from '../service/bandwidth.js';

export const BWLIMIT_FILE = 'bandwidth.json';

/** The saved limit as written, or null; a file that cannot be read is reported, not thrown past. */
export function readSavedBwLimit(home: string): string | null {
  const path = join(home, BWLIMIT_FILE);
  if (!existsSync(path)) return null;
  let spec: unknown;
  try {
    spec = (JSON.parse(readFileSync(path, 'utf8')) as { bwlimit?: unknown }).bwlimit;
  } catch (e) {
    throw new BwLimitError(`the saved bandwidth limit (${BWLIMIT_FILE} in the data folder) cannot be read: ${(e as Error).message}; set it again`);
  }
  return typeof spec === 'string' && spec.trim() !== '' ? spec.trim() : null;
}

/** Checks and saves the limit (temporary file, then rename); null or an empty text removes it. Returns what was saved. */
export async function saveBwLimit(home: string, spec: string | null): Promise<string | null> {
  const path = join(home, BWLIMIT_FILE);
  const s = spec?.trim() ?? '';
  if (s === '') {
    await rm(path, { force: true });
    return null;
  }
  parseBwLimit(s);
  await mkdir(home, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ bwlimit: s }, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, path);
  return s;
}

export interface BwOverride {
  source: Exclude<BwSource, 'saved'>;
  spec: string;
}

/** The flag, else DOCSYNC_BWLIMIT: what overrides the saved setting in this process, checked. */
export function bwOverride(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): BwOverride | null {
  const o: BwOverride | null =
    flag !== undefined ? { source: 'flag', spec: flag } : env.DOCSYNC_BWLIMIT !== undefined && env.DOCSYNC_BWLIMIT.trim() !== '' ? { source: 'env', spec: env.DOCSYNC_BWLIMIT } : null;
  if (!o) return null;
  try {
    parseBwLimit(o.spec);
  } catch (e) {
    throw new BwLimitError(`${o.source === 'flag' ? '--bwlimit' : 'DOCSYNC_BWLIMIT'}: ${(e as Error).message}`);
  }
  return { ...o, spec: o.spec.trim() };
}

/** The limit this process uses: the override, else the saved setting; null for none. */
export function effectiveBwLimit(home: string, override: BwOverride | null): { schedule: BwSchedule; source: BwSource } | null {
  if (override) return { schedule: parseBwLimit(override.spec), source: override.source };
  const saved = readSavedBwLimit(home);
  return saved ? { schedule: parseBwLimit(saved), source: 'saved' } : null;
}

/** Sets the engine's limit from the override or the saved setting. */
export function applyBwLimit(home: string, override: BwOverride | null): void {
  const e = effectiveBwLimit(home, override);
  engineBandwidth.set(e?.schedule ?? null, e?.source ?? 'saved');
}
