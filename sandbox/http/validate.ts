import { badRequest } from './errors.js';

/** Field checks that turn bad input into a 400 naming the field and what was expected. */
type Body = Record<string, unknown>;

export function reqString(body: Body, key: string, max?: number): string {
  const v = body[key];
  if (typeof v !== 'string' || v === '') throw badRequest(`"${key}" is required and must be a non-empty string`);
  if (max !== undefined && v.length > max) throw badRequest(`"${key}" is longer than ${max} characters`);
  return v;
}

export function optString(body: Body, key: string, max?: number): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest(`"${key}" must be a string`);
  if (max !== undefined && v.length > max) throw badRequest(`"${key}" is longer than ${max} characters`);
  return v;
}

export function optInt(body: Body, key: string): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw badRequest(`"${key}" must be an integer`);
  return v;
}

export function optNumber(body: Body, key: string): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badRequest(`"${key}" must be a number`);
  return v;
}

export function optBool(body: Body, key: string): boolean | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw badRequest(`"${key}" must be a boolean`);
  return v;
}

export function optStringArray(body: Body, key: string): string[] | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw badRequest(`"${key}" must be an array of strings`);
  return v as string[];
}

export function optObject(body: Body, key: string): Body | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`"${key}" must be an object`);
  return v as Body;
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw badRequest(`${what} must be one of ${allowed.join(', ')}; got "${value}"`);
  return value as T;
}

/** Query integers: absent gives undefined; anything but a non-negative integer is a 400. */
export function queryInt(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key);
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw badRequest(`query "${key}" must be a non-negative integer; got "${v}"`);
  return Number(v);
}

export function queryBool(q: URLSearchParams, key: string, dflt: boolean): boolean {
  const v = q.get(key);
  if (v === null || v === '') return dflt;
  if (v === 'true' || v === 'True' || v === '1') return true;
  if (v === 'false' || v === 'False' || v === '0') return false;
  throw badRequest(`query "${key}" must be true or false; got "${v}"`);
}

/** Array query parameters come repeated (`status=A&status=B`) or comma-separated. */
export function queryList(q: URLSearchParams, key: string): string[] | undefined {
  const all = q.getAll(key).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  return all.length ? all : undefined;
}

/** A file name inside a batch: one path segment. */
export function checkFileName(name: string, what = 'filename'): string {
  if (name === '' ) throw badRequest(`${what} is required`);
  if (name.length > 255) throw badRequest(`${what} is longer than 255 characters`);
  if (name === '.' || name === '..' || name.includes('/') || name.includes('\\') || name.includes('\0')) {
    throw badRequest(`${what} "${name}" must be a plain file name (no "/", "\\", "." or "..")`);
  }
  return name;
}
