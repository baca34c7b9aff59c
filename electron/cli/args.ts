/** A command-line mistake: printed as one line, exit code 2, never a stack trace. */
export class UsageError extends Error {}

export interface FlagSpec {
  /** Flags that take a value. */
  values: string[];
  /** Flags that stand alone. */
  booleans?: string[];
  /** Value flags that may be given more than once (`--tag a --tag b`); all values are in `lists`. */
  repeatable?: string[];
}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string>;
  booleans: Set<string>;
  /** Every value of a repeatable flag, in order. */
  lists: Map<string, string[]>;
}

/** `--name value`, `--name=value` and boolean `--name`; anything unknown is a UsageError. */
export function parseArgs(argv: string[], spec: FlagSpec): ParsedArgs {
  const out: ParsedArgs = { positional: [], flags: new Map(), booleans: new Set(), lists: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!a.startsWith('--')) {
      out.positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq === -1 ? undefined : eq);
    if (spec.booleans?.includes(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      out.booleans.add(name);
    } else if (spec.values.includes(name) || spec.repeatable?.includes(name)) {
      const value = eq === -1 ? argv[++i] : a.slice(eq + 1);
      if (value === undefined || (eq === -1 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
      if (spec.repeatable?.includes(name)) out.lists.set(name, [...(out.lists.get(name) ?? []), value]);
      out.flags.set(name, value);
    } else {
      const known = [...spec.values, ...(spec.repeatable ?? []), ...(spec.booleans ?? [])].map((f) => `--${f}`).join(', ');
      throw new UsageError(`unknown option --${name}${known ? ` (options: ${known})` : ''}`);
    }
  }
  return out;
}

export function intFlag(args: ParsedArgs, name: string, min = 0): number | undefined {
  const v = args.flags.get(name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`--${name} must be an integer >= ${min}; got "${v}"`);
  return Number(v);
}
