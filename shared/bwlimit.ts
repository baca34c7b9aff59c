/**
 * Bandwidth limits as rclone's --bwlimit writes them (issue 27, section 3), so an administrator who
 * knows one knows the other:
 * - a rate in bytes per second: a number of KiB/s, or with a suffix B, K, M, G (binary: 2M is
 *   2 MiB/s); `off` or `0` for no limit; `UP:DOWN` for separate upload and download rates (`10M:off`);
 * - a timetable: entries `[DAY-]HH:MM,RATE` separated by spaces or semicolons; an entry without a
 *   day holds every day; a rate holds from its time until the next entry's, round the week.
 * Beyond rclone, a day range and a comma after the days, as the issue writes it:
 * `Mon-Fri,08:00,2M 18:00,off` (2 MiB/s on weekdays from 8 to 18, no limit otherwise).
 * Pure: used by the engine, the CLI and the renderer (to say what is in force).
 */

/** Bytes per second, or null for no limit. */
export type Rate = number | null;

export interface RatePair {
  up: Rate;
  down: Rate;
}

/** From `day` (0 Sunday .. 6 Saturday) at `minute` of the day, `rates` hold. */
export interface BwSlot {
  day: number;
  minute: number;
  rates: RatePair;
}

export interface BwSchedule {
  /** As the user wrote it (trimmed). */
  spec: string;
  /** Sorted by day, then minute; never empty. */
  slots: BwSlot[];
}

/** A limit that cannot be read, said in the user's words. */
export class BwLimitError extends Error {
  override name = 'BwLimitError';
}

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
export const DAY_SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const KIB = 1024;
const SUFFIX: Record<string, number> = { b: 1, k: KIB, m: KIB ** 2, g: KIB ** 3, t: KIB ** 4, p: KIB ** 5 };
/** Below this a transfer would outlast the service's timeouts; rclone has no floor, DocSync needs one. */
export const MIN_RATE = KIB;
const WEEK_MIN = 7 * 24 * 60;
const HOW = 'write bytes per second with K, M or G (2M is 2 MiB/s), or off';

function day(word: string, entry: string): number {
  const w = word.toLowerCase();
  const i = DAY_NAMES.findIndex((d) => w.length >= 3 && d.startsWith(w) && (w.length === 3 || w === d));
  if (i < 0) throw new BwLimitError(`"${word}" in "${entry}" is not a day: write Mon, Tue, Wed, Thu, Fri, Sat, Sun (or the whole word)`);
  return i;
}

/** One rate: `2M`, `512` (KiB/s), `1.5G`, `off`. */
export function parseRate(text: string, where = text): Rate {
  const t = text.trim();
  if (/^off$/i.test(t)) return null;
  // "Mbit", "Mbps", and a small b after the unit ("2Mb") are bits; rclone's units, and ours, are bytes.
  if (/bit|bps/i.test(t) || /[KMGTPkmgtp]b(?:\/s)?$/.test(t)) {
    throw new BwLimitError(`"${t}" in "${where}" looks like bits per second: DocSync limits bytes per second, as rclone does (divide by 8: 16 Mbit/s is 2M)`);
  }
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(?:([bkmgtp])(?:ib?|b)?)?(?:\/s)?$/i.exec(t);
  if (!m) throw new BwLimitError(`"${t}" in "${where}" is not a rate: ${HOW}`);
  const n = Number(m[1]);
  const unit = m[2] ? (SUFFIX[m[2].toLowerCase()] as number) : KIB;
  const bps = Math.round(n * unit);
  if (bps === 0) return null;
  if (bps < MIN_RATE) throw new BwLimitError(`"${t}" in "${where}" is too low: the smallest limit is 1K (1 KiB/s)`);
  return bps;
}

/** `UP:DOWN` or one rate for both. */
export function parseRates(text: string, where = text): RatePair {
  const parts = text.split(':');
  if (parts.length > 2) throw new BwLimitError(`"${text}" in "${where}" has more than one colon: write one rate, or UPLOAD:DOWNLOAD such as 10M:1M`);
  const up = parseRate(parts[0] as string, where);
  return { up, down: parts.length === 2 ? parseRate(parts[1] as string, where) : up };
}

function minuteOf(hhmm: string, entry: string): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(hhmm);
  const h = m ? Number(m[1]) : NaN;
  const min = m ? Number(m[2]) : NaN;
  if (!m || h > 23 || min > 59) throw new BwLimitError(`"${hhmm}" in "${entry}" is not a time: write HH:MM, from 00:00 to 23:59`);
  return h * 60 + min;
}

/** `Mon`, `Mon-Fri` (a range may go round the week: `Fri-Mon`). */
function days(text: string, entry: string): number[] {
  const [from, to, extra] = text.split('-');
  if (extra !== undefined) throw new BwLimitError(`"${text}" in "${entry}" is not a day or a range of days: write Mon or Mon-Fri`);
  const a = day(from as string, entry);
  if (to === undefined) return [a];
  const b = day(to, entry);
  const out = [a];
  for (let d = a; d !== b; ) out.push((d = (d + 1) % 7));
  return out;
}

/** One entry: `[DAYS(-|,)]HH:MM,RATES`. */
function entry(text: string): { days: number[]; minute: number; rates: RatePair } {
  const comma = text.lastIndexOf(',');
  if (comma < 0 || /^\d{1,2}:\d{2}$/.test(text.slice(comma + 1))) throw new BwLimitError(`"${text}" has no rate: each entry of a timetable is [DAY-]HH:MM,RATE, such as 08:00,2M or Mon-Fri,08:00,2M`);
  const rates = parseRates(text.slice(comma + 1), text);
  const head = text.slice(0, comma);
  const m = /^(?:(.*?)[-,])?(\d{1,2}:\d{2}|[^,-]*)$/.exec(head) as RegExpExecArray;
  if (!/^\d{1,2}:\d{2}$/.test(m[2] as string)) throw new BwLimitError(`"${text}" has no time: each entry of a timetable is [DAY-]HH:MM,RATE, such as 08:00,2M`);
  return { days: m[1] === undefined ? [0, 1, 2, 3, 4, 5, 6] : days(m[1], text), minute: minuteOf(m[2] as string, text), rates };
}

/** Parses a --bwlimit value; throws BwLimitError with what is wrong and how to write it. */
export function parseBwLimit(spec: string): BwSchedule {
  const s = spec.trim();
  if (s === '') throw new BwLimitError(`an empty limit: ${HOW}, or a timetable such as "Mon-Fri,08:00,2M 18:00,off"`);
  const entries = s.split(/[\s;]+/).filter(Boolean);
  // A single rate (no time in it) holds all week.
  if (entries.length === 1 && !(entries[0] as string).includes(',')) {
    const rates = parseRates(entries[0] as string);
    return { spec: s, slots: [{ day: 0, minute: 0, rates }] };
  }
  const at = new Map<number, BwSlot>();
  for (const e of entries) {
    const { days: ds, minute, rates } = entry(e);
    for (const d of ds) {
      const key = d * 1440 + minute;
      if (at.has(key)) throw new BwLimitError(`${DAY_SHORT[d]} ${hhmm(minute)} is given twice in "${s}": give each time of a day once`);
      at.set(key, { day: d, minute, rates });
    }
  }
  return { spec: s, slots: [...at.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v) };
}

const hhmm = (minute: number): string => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
const weekMinute = (d: Date): number => d.getDay() * 1440 + d.getHours() * 60 + d.getMinutes();
const sameRates = (a: RatePair, b: RatePair): boolean => a.up === b.up && a.down === b.down;

export interface LimitNow {
  rates: RatePair;
  /** When the rates next change (local time), or null when they never do. */
  untilMs: number | null;
}

/** The rates in force at `now` (local time) and when they next change. */
export function limitAt(schedule: BwSchedule, now: Date): LimitNow {
  const slots = schedule.slots;
  const wm = weekMinute(now);
  // The last slot at or before now; before the week's first slot, the week's last one (round the week).
  let i = slots.length - 1;
  for (let k = 0; k < slots.length; k++) if ((slots[k] as BwSlot).day * 1440 + (slots[k] as BwSlot).minute <= wm) i = k;
  const rates = (slots[i] as BwSlot).rates;
  for (let step = 1; step <= slots.length; step++) {
    const next = slots[(i + step) % slots.length] as BwSlot;
    if (sameRates(next.rates, rates)) continue;
    let ahead = next.day * 1440 + next.minute - wm;
    if (ahead <= 0) ahead += WEEK_MIN;
    // Whole minutes from the start of this minute, on the calendar: a DST change moves the wall clock, not the entry.
    const at = new Date(now.getFullYear(), now.getMonth(), now.getDate(), now.getHours(), now.getMinutes() + ahead);
    return { rates, untilMs: at.getTime() };
  }
  return { rates, untilMs: null };
}

/** "2 MiB/s", "512 KiB/s", "1.5 GiB/s". */
export function formatRate(bps: number): string {
  const units = ['B/s', 'KiB/s', 'MiB/s', 'GiB/s'];
  let v = bps;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const n = v >= 100 || Number.isInteger(v) ? Math.round(v).toString() : (Math.round(v * 10) / 10).toString();
  return `${n} ${units[u]}`;
}

/** "18:00" today, "Mon 08:00" on another day, "Mon 08:00" a week on. */
function whenText(untilMs: number, now: Date): string {
  const at = new Date(untilMs);
  const time = hhmm(at.getHours() * 60 + at.getMinutes());
  const sameDay = at.getFullYear() === now.getFullYear() && at.getMonth() === now.getMonth() && at.getDate() === now.getDate();
  return sameDay ? time : `${DAY_SHORT[at.getDay()]} ${time}`;
}

/**
 * What the header says while a limit is in force: "limited to 2 MiB/s until 18:00"; separate
 * rates: "uploads limited to 2 MiB/s, downloads to 10 MiB/s until 18:00"; null with no limit.
 */
export function limitText(now: LimitNow, at: Date): string | null {
  const { up, down } = now.rates;
  if (up === null && down === null) return null;
  let what: string;
  if (up === down) what = `limited to ${formatRate(up as number)}`;
  else if (down === null) what = `uploads limited to ${formatRate(up as number)}`;
  else if (up === null) what = `downloads limited to ${formatRate(down)}`;
  else what = `uploads limited to ${formatRate(up)}, downloads to ${formatRate(down)}`;
  return now.untilMs === null ? what : `${what} until ${whenText(now.untilMs, at)}`;
}
