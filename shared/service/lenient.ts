/**
 * Lenient readers for service payloads (pure: no Node, no I/O). Real payloads are not perfectly
 * consistent with their own schema (../shared/notes/service-shapes.md): ids come as number or
 * string, a "not yet" timestamp as null or 0, optional blocks as null, {} or [], enum values in
 * either case, dates in more than one format. These helpers coerce what can be coerced and report
 * what cannot as `undefined`; a caller that needs a value throws a ShapeError naming it.
 */

/** A payload that cannot be read as the expected shape. The client turns it into a 'bad-response' error. */
export class ShapeError extends Error {
  override name = 'ShapeError';
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A string; numbers and booleans are written out. */
export function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

/** A string, or null when absent or null. */
export function strOrNull(v: unknown): string | null {
  return str(v) ?? null;
}

/** A finite number, from a number or a numeric string. */
export function num(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v.trim())) return Number(v.trim());
  return undefined;
}

/** An integer, from a number or a string of digits ("42" and 42 are the same id). */
export function int(v: unknown): number | undefined {
  const n = num(v);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}

/** An id as a string, whether it came as a number or a string. */
export function id(v: unknown): string | undefined {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

export function bool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === '1' || s === 'yes') return true;
    if (s === 'false' || s === '0' || s === 'no') return false;
  }
  return undefined;
}

/** An enum value in either case ("complete", "Complete", "COMPLETE"; "stopped-at-checkpoint" too). */
export function enumOf<T extends string>(v: unknown, allowed: readonly T[]): T | undefined {
  if (typeof v !== 'string') return undefined;
  const want = v.trim().toUpperCase().replace(/[\s-]+/g, '_');
  return allowed.find((a) => a.toUpperCase() === want);
}

/** An enum that is open: the values we know, or any other string the service sends. */
export type Open<T extends string> = T | (string & {});

/**
 * An open enum value: a known one in either case gives its canonical spelling, any other non-empty
 * string is kept as sent (trimmed), never dropped. Non-strings give undefined.
 */
export function openEnum<T extends string>(v: unknown, allowed: readonly T[]): Open<T> | undefined {
  const known = enumOf(v, allowed);
  if (known !== undefined) return known;
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  return v.trim();
}

/**
 * The members of `o` that a typed view does not name: kept beside the view so nothing the service
 * sent is lost (service-shapes.md: "Unknown fields are kept, never an error").
 */
export function extras(o: JsonObject, named: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (!named.includes(k)) out[k] = v;
  return out;
}

export type TimeUnit = 's' | 'ms' | 'us' | 'ns';
const PER_MS: Record<TimeUnit, number> = { s: 1e-3, ms: 1, us: 1e3, ns: 1e6 };

/** Guesses the unit of an epoch number by its magnitude (dates between 1973 and 5138). */
function guessUnit(n: number): TimeUnit {
  const a = Math.abs(n);
  if (a < 1e11) return 's';
  if (a < 1e14) return 'ms';
  if (a < 1e17) return 'us';
  return 'ns';
}

/** `08/27/2025 00:58:39` (month/day/year, 24-hour, optional seconds and fraction): edit_history's form. */
const MDY = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/;
/** ISO 8601 date and time without a zone (Date.parse would read it in the machine's zone). */
const ISO_NO_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;
/** The string names its zone or offset (Z, GMT, UTC, +05:30, -0400). */
const HAS_ZONE = /(?:\d[Zz]|\b(?:GMT|UTC)\b|[+-]\d{2}:?\d{2})\s*(?:\([^)]*\))?$/;

/**
 * Unix milliseconds of a date string. A string without a zone is UTC, never the machine's local
 * time: the service writes UTC everywhere (service-shapes.md, "Corrections"), and a desktop in New
 * York or Kolkata must read the same instant as one in London.
 */
export function parseDate(v: string): number | undefined {
  const s = v.trim();
  const m = MDY.exec(s);
  if (m) {
    const [, mo, d, y, h = '0', mi = '0', sec = '0', frac = '0'] = m;
    const parts = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)] as const;
    const ms = Date.UTC(...parts, Math.floor(Number(`0.${frac}`) * 1000));
    const back = new Date(ms);
    // 02/30/2025 or 25:00 would roll over into another date: not a date at all.
    const same = back.getUTCFullYear() === parts[0] && back.getUTCMonth() === parts[1] && back.getUTCDate() === parts[2] && back.getUTCHours() === parts[3] && back.getUTCMinutes() === parts[4] && back.getUTCSeconds() === parts[5];
    return same ? ms : undefined;
  }
  if (ISO_NO_ZONE.test(s)) {
    const ms = Date.parse(`${s.replace(' ', 'T')}Z`);
    return Number.isFinite(ms) ? ms : undefined;
  }
  if (!HAS_ZONE.test(s)) {
    // Other zone-less forms ("Aug 27 2025 00:58:39"): as UTC.
    const ms = Date.parse(`${s} UTC`);
    if (Number.isFinite(ms)) return ms;
  }
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * A timestamp in the unit the spec names for the field. null, 0, '' and absent mean "not yet" and
 * give null. Epoch numbers (or numeric strings) in s, ms, µs or ns are recognised by magnitude;
 * date strings (ISO 8601, RFC 1123, `MM/DD/YYYY HH:MM:SS`) are parsed, as UTC when they name no
 * zone (see parseDate). Anything else gives undefined.
 */
export function timestamp(v: unknown, unit: TimeUnit): number | null | undefined {
  if (v === null || v === undefined || v === '' || v === 0 || v === '0') return null;
  const n = num(v);
  if (n !== undefined) {
    const ms = n / PER_MS[guessUnit(n)];
    return Math.round(ms * PER_MS[unit]);
  }
  if (typeof v === 'string') {
    const ms = parseDate(v);
    if (ms !== undefined) return Math.round(ms * PER_MS[unit]);
  }
  return undefined;
}

/** An optional object block: null, {} and [] (and anything not an object) mean absent. */
export function block(v: unknown): JsonObject | undefined {
  if (!isObject(v) || Object.keys(v).length === 0) return undefined;
  return v;
}

/** An optional list block: null and {} mean absent; [] stays an empty list. */
export function listBlock(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

/** A list that must be there: absent, null or {} read as empty. */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Reads a required field or throws a ShapeError naming it. */
export function need<T>(value: T | undefined, what: string, raw: unknown): T {
  if (value === undefined) throw new ShapeError(`${what} is missing or not valid (got ${preview(raw)})`);
  return value;
}

/** A short, safe rendering of an unexpected value for error messages. */
export function preview(v: unknown, max = 120): string {
  let s: string;
  try {
    s = typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'nothing' : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
