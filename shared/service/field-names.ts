/**
 * Field-name normalisation of spec 2.8: names become valid Python identifiers.
 * Invalid characters become underscores, a leading digit gets a preceding underscore,
 * and a name that is a single underscore becomes a double underscore.
 */
export function normalizeFieldName(name: string): string {
  let out = name.replace(/[^A-Za-z0-9_]/gu, '_');
  if (out === '') return '_';
  if (/^[0-9]/.test(out)) out = `_${out}`;
  if (out === '_') return '__';
  return out;
}
