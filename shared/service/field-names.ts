/**
 * Field-name normalisation of spec 2.8, as the published description shows it: `due date` ->
 * `due_date`, `driver's license` -> `driver_s_license`, `3rd category` -> `_3rd_category`,
 * `secret_id` -> `secret__id` (service-shapes.md, "Corrections").
 *
 * Each underscore already in the name is doubled first; then every character that is not an ASCII
 * letter, digit or underscore becomes one underscore; a name starting with a digit gets one
 * underscore before it. Doubling first keeps names apart that would otherwise meet (`a_b` -> `a__b`,
 * `a b` -> `a_b`), and makes the description's "a single underscore becomes a double underscore"
 * hold for `_` itself. Not idempotent: it maps a project's names to result names, and a result name
 * given to it again has its underscores doubled again. Only the sandbox uses it; the client shows,
 * stores and matches field names exactly as results carry them.
 */
export function normalizeFieldName(name: string): string {
  const out = name.replace(/_/gu, '__').replace(/[^A-Za-z0-9_]/gu, '_');
  // An empty name is not in the description; `_` keeps the result a valid identifier.
  if (out === '') return '_';
  return /^[0-9]/u.test(out) ? `_${out}` : out;
}
