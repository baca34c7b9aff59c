/**
 * Small runtime checks for what crosses from the renderer into the engine. Each checker returns the
 * value with its static type or throws a PayloadError naming the offending path, in one sentence.
 */
export class PayloadError extends Error {
  override name = 'PayloadError';
}

export type Check<T> = (v: unknown, path: string) => T;

const show = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : typeof v === 'object' ? 'an object' : String(v));
const fail = (path: string, want: string, v: unknown): never => {
  throw new PayloadError(`${path} must be ${want}, got ${show(v)}`);
};

export const str = (o: { min?: number; max?: number } = {}): Check<string> => (v, path) => {
  if (typeof v !== 'string') return fail(path, 'a string', v);
  if (v.length < (o.min ?? 0)) return fail(path, o.min === 1 ? 'a non-empty string' : `at least ${o.min} characters`, v);
  if (v.length > (o.max ?? 100_000)) return fail(path, `at most ${o.max ?? 100_000} characters`, v);
  return v;
};

export const int = (min = 0, max = Number.MAX_SAFE_INTEGER): Check<number> => (v, path) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : fail(path, `a whole number from ${min} to ${max}`, v);

export const bool: Check<boolean> = (v, path) => (typeof v === 'boolean' ? v : fail(path, 'true or false', v));

export const oneOf = <T extends string>(values: readonly T[]): Check<T> => (v, path) =>
  typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : fail(path, `one of ${values.join(', ')}`, v);

export const bytes = (max: number): Check<Uint8Array> => (v, path) => {
  if (!(v instanceof Uint8Array)) return fail(path, 'bytes', v);
  if (v.byteLength > max) return fail(path, `at most ${max} bytes`, `${v.byteLength} bytes`);
  return v;
};

export const arrayOf = <T>(item: Check<T>, max = 10_000): Check<T[]> => (v, path) => {
  if (!Array.isArray(v)) return fail(path, 'a list', v);
  if (v.length > max) return fail(path, `a list of at most ${max}`, `${v.length} items`);
  return v.map((x, i) => item(x, `${path}[${i}]`));
};

export const optional = <T>(c: Check<T>): Check<T | undefined> => (v, path) => (v === undefined ? undefined : c(v, path));

/** Anything: for payloads checked by their own validator afterwards (folder settings). */
export const unknown: Check<unknown> = (v) => v;

type Shape = Record<string, Check<unknown>>;
type Out<S extends Shape> = { [K in keyof S as undefined extends ReturnType<S[K]> ? never : K]: ReturnType<S[K]> } & {
  [K in keyof S as undefined extends ReturnType<S[K]> ? K : never]?: Exclude<ReturnType<S[K]>, undefined>;
};

/** A plain object with exactly these keys (unknown keys are refused: they are usually typos). */
export const obj = <S extends Shape>(shape: S): Check<Out<S>> => (v, path) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Uint8Array) return fail(path, 'an object', v);
  const rec = v as Record<string, unknown>;
  for (const k of Object.keys(rec)) if (!(k in shape)) throw new PayloadError(`${path} has an unknown key "${k}"`);
  const out: Record<string, unknown> = {};
  for (const [k, c] of Object.entries(shape)) {
    const x = c(rec[k], `${path}.${k}`);
    if (x !== undefined) out[k] = x;
  }
  return out as Out<S>;
};

export const union = <A, B>(a: Check<A>, b: Check<B>, want: string): Check<A | B> => (v, path) => {
  try {
    return a(v, path);
  } catch {
    try {
      return b(v, path);
    } catch {
      return fail(path, want, v);
    }
  }
};
