import { InputError } from '../errors';

/** How one option is read: a boolean flag, a single value, or a repeatable value. */
export type OptionKind = 'flag' | 'value' | 'list';

export interface OptionSpec {
  kind: OptionKind;
  /** Single-letter alias, e.g. `o` for `-o`. */
  short?: string;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Set<string>;
  values: Map<string, string>;
  lists: Map<string, string[]>;
}

/**
 * A small, strict argument parser: unknown options are usage errors, `--x=v` and
 * `--x v` both work, `--` ends options, and a lone `-` is a positional (stdin).
 */
export function parseArgs(argv: string[], spec: Record<string, OptionSpec>, command: string): ParsedArgs {
  const out: ParsedArgs = { positionals: [], flags: new Set(), values: new Map(), lists: new Map() };
  const byShort = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) if (s.short) byShort.set(s.short, name);
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i++]!;
    if (arg === '--') {
      out.positionals.push(...argv.slice(i));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
    } else if (arg.length === 2 && arg[0] === '-' && arg !== '-') {
      name = byShort.get(arg[1]!);
      if (name === undefined) throw new InputError(`${command}: unknown option ${arg}`);
    } else {
      out.positionals.push(arg);
      continue;
    }
    const s = spec[name];
    if (s === undefined) throw new InputError(`${command}: unknown option --${name}`);
    if (s.kind === 'flag') {
      if (inline !== undefined) throw new InputError(`${command}: --${name} takes no value`);
      out.flags.add(name);
      continue;
    }
    const value = inline ?? argv[i++];
    if (value === undefined) throw new InputError(`${command}: --${name} needs a value`);
    if (s.kind === 'value') {
      if (out.values.has(name)) throw new InputError(`${command}: --${name} given twice`);
      out.values.set(name, value);
    } else {
      out.lists.set(name, [...(out.lists.get(name) ?? []), value]);
    }
  }
  return out;
}

/** Exactly `count` positionals (named for the error message). */
export function expectPositionals(args: ParsedArgs, names: string[], command: string, optional = 0): string[] {
  const min = names.length - optional;
  if (args.positionals.length < min) {
    throw new InputError(
      `${command}: missing ${names
        .slice(args.positionals.length)
        .map((n) => `<${n}>`)
        .join(' ')}`,
    );
  }
  if (args.positionals.length > names.length) {
    throw new InputError(`${command}: unexpected argument ${JSON.stringify(args.positionals[names.length])}`);
  }
  return args.positionals;
}
