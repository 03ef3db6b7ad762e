import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';
import { InputError } from '../errors';
import { didYouMean } from './suggest';

/** How one option is read: a boolean flag, a single value, or a repeatable value. */
export type OptionKind = 'flag' | 'value' | 'list';

export interface OptionSpec {
  kind: OptionKind;
  /** Single-letter alias, e.g. `o` for `-o`. */
  short?: string;
  /** What the option does, one sentence for `--help` (every option of a registered command has one). */
  description?: string;
  /** The value's placeholder in `--help`, e.g. `DIR` (default `VALUE`). */
  value?: string;
  /** The value `-` reads stdin: at most one such value per command line (stdin can be read once). */
  stdin?: boolean;
  /**
   * An empty value means something (an empty prompt). Without this, `--x=` or `--x ''` is a usage error: an empty
   * path, id or pattern (`--root "$UNSET"`) was taken as the current directory or as a pattern matching nothing.
   */
  emptyOk?: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Set<string>;
  values: Map<string, string>;
  lists: Map<string, string[]>;
  /** The arguments after `--` (also among the positionals), for commands that run a command of their own. */
  afterTerminator?: string[];
}

/** `--name`, or `-o, --name` when it has a short alias. */
export function optionLabel(name: string, spec: OptionSpec): string {
  return spec.short === undefined ? `--${name}` : `-${spec.short}, --${name}`;
}

/**
 * A strict argument parser over node:util `parseArgs` (its tokens: `--x=v` and
 * `--x v`, `-o v` and `-ov`, `--` ends options, a lone `-` is a positional for
 * stdin). On top of it: unknown options are usage errors with the closest known
 * option suggested, a flag given a value, a value option given twice, without
 * its value or with an empty one (unless it says `emptyOk`) are errors. A value option takes the next argument whatever it looks
 * like (`--prompt -x` is the prompt `-x`), as git does.
 */
export function parseArgs(argv: string[], spec: Record<string, OptionSpec>, command: string): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, s] of Object.entries(spec)) {
    options[name] = { type: s.kind === 'flag' ? 'boolean' : 'string', ...(s.short ? { short: s.short } : {}) };
  }
  const tokens = tokensOf(argv, options);
  const out: ParsedArgs = { positionals: [], flags: new Set(), values: new Map(), lists: new Map() };
  const known = Object.keys(spec).map((n) => `--${n}`);
  let terminated = false;
  for (const t of tokens) {
    if (t.kind === 'positional') {
      out.positionals.push(t.value);
      if (terminated) (out.afterTerminator ??= []).push(t.value);
      continue;
    }
    if (t.kind === 'option-terminator') {
      terminated = true;
      out.afterTerminator ??= [];
      continue;
    }
    const s = spec[t.name];
    if (s === undefined) {
      const raw = t.rawName.startsWith('--') ? t.rawName : t.rawName.length === 2 ? t.rawName : `--${t.name}`;
      throw new InputError(
        `${command}: unknown option ${raw}${didYouMean(raw, known, (w) => w)} (see \`stepchain ${command} --help\`)`,
      );
    }
    const label = `--${t.name}`;
    if (s.kind === 'flag') {
      if (t.value !== undefined) throw new InputError(`${command}: ${label} takes no value`);
      out.flags.add(t.name);
      continue;
    }
    if (t.value === undefined) throw new InputError(`${command}: ${label} needs a value`);
    if (t.value === '' && s.emptyOk !== true)
      throw new InputError(`${command}: ${label} needs a value (got an empty one)`);
    if (s.kind === 'value') {
      if (out.values.has(t.name)) throw new InputError(`${command}: ${label} given twice`);
      out.values.set(t.name, t.value);
    } else {
      out.lists.set(t.name, [...(out.lists.get(t.name) ?? []), t.value]);
    }
  }
  refuseSharedStdin(out, spec, command);
  return out;
}

/** The tokens of node:util's parseArgs the parsers here read. */
type ArgToken =
  | { kind: 'positional'; value: string }
  | { kind: 'option-terminator' }
  | { kind: 'option'; name: string; rawName: string; value?: string | undefined };

/**
 * node:util's tokens of `argv` (strict off, positionals allowed). A line with no argument that begins with `-` but
 * `-` itself (`stepchain hook claude`, as every agent runs it on every tool call) is positionals only, as parseArgs
 * reads it: given without loading parseArgs' module (~0.5 ms of a hook call, measured).
 */
export function tokensOf(argv: string[], options: NonNullable<ParseArgsConfig['options']>): ArgToken[] {
  if (argv.every((a) => a === '-' || !a.startsWith('-'))) return argv.map((value) => ({ kind: 'positional', value }));
  return nodeParseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true }).tokens;
}

/**
 * Stdin can be read once: two values `-` of options that read it (`--input - --prompt-file -`, or `--blob -`
 * twice) would give all of it to the first and nothing to the rest, so the line is refused.
 */
function refuseSharedStdin(args: ParsedArgs, spec: Record<string, OptionSpec>, command: string): void {
  const readers: string[] = [];
  for (const [name, s] of Object.entries(spec)) {
    if (s.stdin !== true) continue;
    const values = s.kind === 'list' ? (args.lists.get(name) ?? []) : [args.values.get(name)];
    for (const v of values) if (v === '-') readers.push(`--${name} -`);
  }
  if (readers.length > 1)
    throw new InputError(
      `${command}: stdin can be read once, but ${readers.join(' and ')} both read it (give the others as files)`,
    );
}

/** Whether `--help` or `-h` comes before any `--` (and is not the value of an option). */
export function wantsHelp(argv: string[], spec: Record<string, OptionSpec>): boolean {
  return flagBeforeTerminator(argv, spec, (t) => t.name === 'help' || t.rawName === '-h');
}

/** Whether `--json` is among the options (before any `--`), whatever else is wrong with the line. */
export function wantsJson(argv: string[], spec: Record<string, OptionSpec>): boolean {
  if (spec.json === undefined) return false;
  return flagBeforeTerminator(argv, spec, (t) => t.name === 'json' && t.value === undefined);
}

function flagBeforeTerminator(
  argv: string[],
  spec: Record<string, OptionSpec>,
  match: (t: { name: string; rawName: string; value?: string | undefined }) => boolean,
): boolean {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, s] of Object.entries(spec)) {
    if (name === 'help') continue;
    options[name] = { type: s.kind === 'flag' ? 'boolean' : 'string', ...(s.short ? { short: s.short } : {}) };
  }
  try {
    for (const t of tokensOf(argv, options)) {
      if (t.kind === 'option-terminator') return false;
      if (t.kind === 'option' && match(t)) return true;
    }
  } catch {
    /* not parseable at all: no */
  }
  return false;
}

/** Exactly `count` positionals (named for the error message). */
export function expectPositionals(args: ParsedArgs, names: string[], command: string, optional = 0): string[] {
  const min = names.length - optional;
  if (args.positionals.length < min) {
    throw new InputError(
      `${command}: missing ${names
        .slice(args.positionals.length)
        .map((n) => `<${n}>`)
        .join(' ')} (see \`stepchain ${command} --help\`)`,
    );
  }
  if (args.positionals.length > names.length) {
    throw new InputError(`${command}: unexpected argument ${JSON.stringify(args.positionals[names.length])}`);
  }
  return args.positionals;
}
