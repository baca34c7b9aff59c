/** `--bwlimit SPEC` of serve and upload, and the line `serve` and `status` print about the limit (issue 27, section 3). */
import { limitAt, limitText } from '../../shared/bwlimit.js';
import { bwOverride, effectiveBwLimit, type BwOverride } from '../engine/config/bwlimit-setting.js';
import { UsageError } from './args.js';

export const BWLIMIT_HELP = `  --bwlimit SPEC   limit the bandwidth of uploads and downloads, as rclone's --bwlimit: a rate
             in bytes per second (2M is 2 MiB/s, 512K; a number alone is KiB/s), UP:DOWN (10M:off), or a
             timetable "Mon-Fri,08:00,2M 18:00,off"; overrides DOCSYNC_BWLIMIT and the app's setting`;

/** The flag, else DOCSYNC_BWLIMIT, checked: a mistake in either is a mistake on the command line. */
export function cliBwOverride(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): BwOverride | null {
  try {
    return bwOverride(flag, env);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

const FROM = { saved: 'saved in the app', env: 'DOCSYNC_BWLIMIT', flag: '--bwlimit' } as const;

/** "bandwidth: limited to 2 MiB/s until 18:00 (DOCSYNC_BWLIMIT)", "bandwidth: not limited now (...)", or null with no setting. */
export function bandwidthLine(home: string, override: BwOverride | null, now = new Date()): string | null {
  let e: ReturnType<typeof effectiveBwLimit>;
  try {
    e = effectiveBwLimit(home, override);
  } catch (err) {
    return `bandwidth: not limited: ${(err as Error).message}`;
  }
  if (!e) return null;
  const text = limitText(limitAt(e.schedule, now), now);
  return `bandwidth: ${text ?? 'not limited now'} (${FROM[e.source]}: ${e.schedule.spec})`;
}
