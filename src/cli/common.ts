import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OptionSpec, ParsedArgs } from './args';
import type { CommandIO } from './io';
import { InputError } from '../errors';
import { isSha256Hex } from '../util/hash';

export const ROOT_OPTION: Record<string, OptionSpec> = { root: { kind: 'value' } };
export const JSON_OPTION: Record<string, OptionSpec> = { json: { kind: 'flag' } };

/** The project root: `--root DIR` or the current directory. */
export function rootOf(args: ParsedArgs, io: CommandIO): string {
  return path.resolve(io.cwd, args.values.get('root') ?? '.');
}

/** Reads a file named on the command line (`-` is stdin); errors name the file. */
export function readInputFile(name: string, io: CommandIO, what = 'file'): Buffer {
  if (name === '-') return io.readStdin();
  try {
    return readFileSync(path.resolve(io.cwd, name));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (code ?? 'unreadable');
    throw new InputError(`${name}: cannot read ${what}: ${why}`);
  }
}

/** A `--expected-head` style option: absent, or 64 lowercase hex digits. */
export function hashOption(args: ParsedArgs, name: string): string | undefined {
  const v = args.values.get(name);
  if (v === undefined) return undefined;
  if (!isSha256Hex(v)) throw new InputError(`--${name}: expected 64 lowercase hex digits, got ${JSON.stringify(v)}`);
  return v;
}

/** A non-negative integer option or positional. */
export function intArg(value: string, what: string): number {
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InputError(`${what}: expected a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}
