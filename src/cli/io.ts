import { existsSync } from 'node:fs';
import path from 'node:path';
import { encode, MAX_NESTING, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { findTombstone, forkParentRoot } from '../journal/tombstone';
import { clipLine, sanitize } from '../util/terminal';
import { readToEnd } from '../util/read-to-end';

/**
 * Where a command reads and writes: `--json` prints exactly one JSON document on
 * stdout, human output goes to stdout, problems one line each to stderr.
 */
export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** Prints one JSON document (see `jsonDocument`). */
  json(doc: unknown): void;
  /** Reads all of stdin (for `-` arguments); past `maxBytes`, a TooLongError (src/util/read-to-end.ts). */
  readStdin(maxBytes?: number): Buffer;
  /** Whether stdin and stdout are an interactive terminal. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The terminal's width for help text (absent: 80, or `COLUMNS`). */
  columns?: number;
}

/**
 * One JSON document for `--json`: keys in the order the command built them, with
 * exact integers (bigint) and float-ness kept, so rows print exactly as stored.
 */
export function jsonDocument(doc: unknown): string {
  // A document wraps rows (themselves within MAX_NESTING) in a few levels of its own.
  return encode(doc as JsonValue, { sortKeys: false, allowNonFinite: true, maxNesting: MAX_NESTING + 16 });
}

/**
 * A reader that went away (`stepchain replay big | head -3`) ends the process
 * quietly, as git does: no EPIPE stack trace, exit status 141 (128 + SIGPIPE,
 * what a shell shows for git in that pipe). Installed once by the bin entry.
 */
export function exitQuietlyOnClosedPipe(): void {
  const closed = (e: NodeJS.ErrnoException): boolean => e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED';
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (closed(e)) process.exit(141);
    // Any other failure to write (a full disk behind `> file`) is one line, not a stack trace.
    process.stderr.write(`stepchain: cannot write the output: ${e.code ?? e.message}\n`);
    process.exit(1);
  });
  process.stderr.on('error', (e: NodeJS.ErrnoException) => process.exit(closed(e) ? 141 : 1));
}

export function processIO(): CommandIO {
  return {
    ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    json: (doc) => process.stdout.write(`${jsonDocument(doc)}\n`),
    readStdin: (maxBytes) => readToEnd(0, maxBytes),
    isTTY: Boolean(process.stdout.isTTY && process.stdin.isTTY),
    env: process.env,
    cwd: workingDirectory(process.env),
  };
}

/**
 * The current directory. One that was removed (a fork's worktree after `fork
 * rm`, with a shell still in it) is an input error naming it, and the fork's
 * tombstone when there is one: never an internal error, and never a directory
 * made again where one was removed.
 */
export function workingDirectory(env: NodeJS.ProcessEnv): string {
  try {
    return process.cwd();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ESTALE') throw e;
    const pwd = env.PWD !== undefined && path.isAbsolute(env.PWD) ? env.PWD : undefined;
    let why = '';
    for (let d = pwd; d !== undefined && d !== path.dirname(d); d = path.dirname(d)) {
      const fork = forkParentRoot(d);
      if (fork === undefined) continue;
      const t = existsSync(fork.parent) ? findTombstone(fork.parent, fork.id) : undefined;
      why = t === undefined ? ` (the worktree of fork ${fork.id})` : ` (fork ${fork.id} was removed: tombstone ${t})`;
      break;
    }
    throw new InputError(
      `the current directory${pwd === undefined ? '' : ` ${pwd}`} no longer exists${why}; cd to one that does`,
    );
  }
}

/**
 * The terminal sink every command prints through (docs/replay.md, "Terminal
 * safety"): human output goes through the one terminal sanitiser, keeping the
 * newlines the command laid out; a problem on stderr is one line, so its
 * newlines are escaped too, and it is cut to a bounded length (a value quoted at any length). JSON documents are ASCII already (escaped by the
 * canonical encoder) and pass untouched.
 */
export function terminalSafe(io: CommandIO): CommandIO {
  return {
    ...io,
    out: (line) => io.out(sanitize(line, { newlines: 'keep' })),
    err: (line) => io.err(clipLine(sanitize(line))),
  };
}
