/**
 * Calendar days as people type them (YYYY-MM-DD), for exports by date range: a day runs from its
 * local midnight to the next, so "until 2026-11-30" includes all of the 30th.
 */
export interface DayBounds { startMs: number; endMs: number }

/** The day's bounds in Unix ms (local time), or null when the text is not a real date. */
export function dayBounds(text: string): DayBounds | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const start = new Date(y, mo, d);
  // new Date rolls 2026-02-31 over into March: such a day does not exist.
  if (start.getFullYear() !== y || start.getMonth() !== mo || start.getDate() !== d) return null;
  return { startMs: start.getTime(), endMs: new Date(y, mo, d + 1).getTime() };
}
