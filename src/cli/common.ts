import { closeSync } from 'node:fs';
import path from 'node:path';
import type { OptionSpec, ParsedArgs } from './args';
import type { CommandIO } from './io';
import { InputError, isOsError, osError } from '../errors';
import { resolveProjectRoot } from '../project';
import { lexists, pathKind } from '../util/fs';
import { isSha256Hex } from '../util/hash';
import { openRegularFile, readRegularFile, refuseSpecialInPlace, type OpenedFile } from '../util/nofollow';
import { descriptorBlocks, TooLongError } from '../util/read-to-end';
import { tornTailLine, type TornTailMoved } from '../util/chain-file';

export const ROOT_OPTION: Record<string, OptionSpec> = {
  root: {
    kind: 'value',
    value: 'DIR',
    description:
      'The project root (the directory holding .sdd/). Default: found like git: the nearest directory upwards holding .sdd/, ' +
      'else the top of the git work tree, else the current directory.',
  },
};
export const JSON_OPTION: Record<string, OptionSpec> = {
  json: {
    kind: 'flag',
    description:
      'Print one JSON document on stdout (snake_case keys, full hashes); an error is {"ok": false, "error": {...}}.',
  },
};
/** How a CLI user gives a trusted key, where a signature was NOT checked for want of one. */
export const KEY_HINT = '--public-key FILE';

/** `--public-key FILE` (repeatable) for commands that show or check receipts. */
export const PUBLIC_KEY_OPTION: OptionSpec = {
  kind: 'list',
  value: 'FILE',
  description:
    "A trusted Ed25519 public key (PEM SPKI or 32 raw bytes): a signed receipt's signature must verify under one of them. " +
    'Without one, a signed receipt is shown with "signature NOT checked" and never verifies.',
};

/** `--force` for commands that write a file: replace an existing one. */
export const FORCE_OPTION: Record<string, OptionSpec> = {
  force: {
    kind: 'flag',
    description: 'Replace the output file if it exists (without it an existing file is refused).',
  },
};

/**
 * The project root: `--root DIR`, else found from the current directory like
 * git (see `findProjectRoot`). `create`: the command may create `<root>/.sdd/`,
 * so an explicit root inside another project is refused.
 */
export function rootOf(args: ParsedArgs, io: CommandIO, options: { create?: boolean } = {}): string {
  const explicit = args.values.get('root');
  // A mistyped --root is a usage error, never an empty project ("nothing checked") or a new directory.
  if (explicit !== undefined) {
    const kind = pathKind(path.resolve(io.cwd, explicit));
    if (kind !== 'dir')
      throw new InputError(`--root ${explicit}: ${kind === 'file' ? 'not a directory' : 'no such directory'}`);
  }
  return resolveProjectRoot({
    cwd: io.cwd,
    ...(explicit === undefined ? {} : { explicit }),
    ...(options.create ? { create: true } : {}),
  }).root;
}

/** Refuses to replace an existing file unless `--force`, as `report` does (nothing is written: exit 2). */
export function refuseOverwrite(file: string, shown: string, args: ParsedArgs, command: string): void {
  if (pathKind(file) === 'dir') throw new InputError(`${command}: ${shown} is a directory`);
  // A FIFO, a socket or a device (or a link to one) is never replaced, --force or not: say so, not "give --force".
  try {
    refuseSpecialInPlace(file);
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`${command}: ${e.message.replace(file, shown)}`);
    throw e;
  }
  if (args.flags.has('force')) return;
  // Anything at the path is refused: a FIFO, a socket or a device too (stat calls those neither file nor dir).
  if (lexists(file)) throw outputExists(shown, command);
}

/** An output that exists, refused without --force (before writing, or when another writer named it meanwhile). */
export function outputExists(shown: string, command: string): InputError {
  return new InputError(`${command}: ${shown} exists; refusing to replace it (give --force to replace it)`);
}

/**
 * The most bytes of each input a command reads whole, the same for a file and for `-` (standard input, where a
 * writer that never stops, `yes |`, is refused at the bound rather than read until memory runs out). Standard input
 * is held twice for a moment (its pieces, then one buffer), so a bound costs up to twice itself. `run ingest
 * --claude-stream` is not among them: it is read a line at a time (openInputBlocks), each line at most
 * MAX_LINE_BYTES, with no bound on the whole (a live `claude -p |` pipe).
 */
export const INPUT_BOUNDS = {
  /**
   * `append --prompt-file`: the prompt rides in its row's one line, where each byte may be escaped as 6
   * (`\u0001`): 64 MiB escaped stays under MAX_LINE_BYTES, the longest line stepchain reads back.
   */
  prompt: 64 * 1024 * 1024,
  /**
   * `append --input` and `--blob`: the hook's bound on one payload and the proxy's on one message (128 MiB), which
   * store the same kind of bytes in the same CAS. Held whole (the CAS hashes and writes bytes in hand): streaming a
   * file into the CAS would change what `recordStep` takes, for inputs no agent makes.
   */
  blob: 128 * 1024 * 1024,
  /** `check --expected-heads`: one `journal head` line per journal; 16 MiB is about 150,000 journals. */
  heads: 16 * 1024 * 1024,
} as const;

/**
 * Reads a file named on the command line (`-` is stdin), at most `maxBytes` of
 * it (INPUT_BOUNDS): larger is refused, nothing of it used; errors name the file.
 * The path is the operator's, so a link in its place is followed (their own
 * file); what it reaches must be a regular file: a FIFO or a device (even
 * `/dev/stdin`) is refused rather than read without end or waited on, and `-`
 * reads standard input. Never through a link under `.sdd/` (src/util/nofollow.ts).
 */
export function readInputFile(name: string, io: CommandIO, what: string, maxBytes: number): Buffer {
  if (name === '-') {
    try {
      return io.readStdin(maxBytes);
    } catch (e) {
      if (e instanceof TooLongError) throw new InputError(`-: cannot read ${what}: ${e.message}`);
      throw e;
    }
  }
  const file = path.resolve(io.cwd, name);
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularFile(file, { follow: true, maxBytes });
  } catch (e) {
    throw inputFileError(e, name, file, what);
  }
  if (bytes === undefined) throw new InputError(`${name}: cannot read ${what}: no such file`);
  return bytes;
}

/**
 * A file named on the command line (`-` is stdin) read a block at a time, for a command that uses its bytes as
 * they come (`run ingest`'s transcript): readInputFile's rules (a link followed, a FIFO or a device refused, errors
 * naming it as the operator typed it) but no bound, and a file is read to its size when opened. `close` once read.
 */
export function openInputBlocks(
  name: string,
  io: CommandIO,
  what: string,
): { blocks: Iterable<Buffer>; close: () => void } {
  const file = name === '-' ? undefined : path.resolve(io.cwd, name);
  let opened: OpenedFile | undefined;
  try {
    if (file !== undefined) opened = openRegularFile(file, { follow: true });
  } catch (e) {
    throw inputFileError(e, name, file!, what);
  }
  if (file !== undefined && opened === undefined) throw new InputError(`${name}: cannot read ${what}: no such file`);
  const blocks = opened === undefined ? io.stdinBlocks() : descriptorBlocks(opened.fd, { limit: opened.size });
  // A read that fails midway (EIO, stdin that is a directory) names the input, as one refused at the open does.
  function* named(): Generator<Buffer, void, undefined> {
    try {
      yield* blocks;
    } catch (e) {
      if (isOsError(e)) throw inputFileError(osError(e, file ?? name, 'cannot read'), name, file ?? name, what);
      throw e;
    }
  }
  return {
    blocks: named(),
    close: () => {
      if (opened !== undefined) closeSync(opened.fd);
    },
  };
}

/** A refusal of the file `name` (at `file`) as the operator reads it: `<name>: cannot read <what>: <why>`. */
function inputFileError(e: unknown, name: string, file: string, what: string): unknown {
  if (!(e instanceof InputError)) return e;
  const why = e.message.startsWith(`${file}: `)
    ? e.message.slice(file.length + 2).replace(/^cannot read: (it )?/, '')
    : e.message;
  const hint = /not a regular file/.test(why) ? ' (give - to read standard input)' : '';
  return new InputError(`${name}: cannot read ${what}: ${why}${hint}`);
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

/**
 * What a command that writes journals hands the library: its environment, and its stderr for the notice of a torn
 * tail moved aside (the library's default, the process's stderr, is not the command's when it runs in-process).
 */
export function writeOptions(io: CommandIO): { env: NodeJS.ProcessEnv; onTornTail: (m: TornTailMoved) => void } {
  return { env: io.env, onTornTail: (m) => io.err(tornTailLine(m)) };
}
