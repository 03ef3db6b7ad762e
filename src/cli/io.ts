import { randomBytes } from 'node:crypto';
import { existsSync, fstatSync, writeSync } from 'node:fs';
import path from 'node:path';
import { EncodeNestingError, isPlainObject, MAX_NESTING, outputJson, outputOfText, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { findTombstone, forkParentRoot } from '../journal/tombstone';
import { clipLine, sanitize } from '../util/terminal';
import { descriptorBlocks, readToEnd } from '../util/read-to-end';
import { sleepMs } from '../util/time';

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
  /** Stdin a block at a time (for `-` arguments read as they come): see descriptorBlocks (src/util/read-to-end.ts). */
  stdinBlocks(): Iterable<Buffer>;
  /** Whether stdin and stdout are an interactive terminal. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The terminal's width for help text (absent: 80, or `COLUMNS`). */
  columns?: number;
}

/**
 * One JSON document for `--json`: keys in the order the command built them, with
 * exact integers (bigint) and float-ness kept, so rows print exactly as stored; strict JSON, a row's NaN or
 * infinity written as the output rule's tag (src/canonical/output.ts).
 */
export function jsonDocument(doc: unknown): string {
  return asOutput(() => outputJson(doc as JsonValue, DOCUMENT));
}

/**
 * `write()`, a value too deep for the document an input error, not an internal one: a row read within the readers'
 * limit (a journal that verifies) gains a level for each object of the one member `$nonfinite` the output rule
 * escapes (docs/format.md §6), so such a row can be too deep for strict JSON; the output without --json shows it.
 */
function asOutput(write: () => string): string {
  try {
    return write();
  } catch (e) {
    if (!(e instanceof EncodeNestingError)) throw e;
    throw new InputError(
      `--json: a stored value cannot be written as strict JSON: ${e.message} once its objects of the one member ` +
        '$nonfinite are escaped (docs/format.md §6, "JSON outputs"); the output without --json shows it',
    );
  }
}

/** Text an encoder wrote with bare NaN allowed (a canonical row as stored), as a `--json` document writes it. */
export function outputText(text: string): string {
  return asOutput(() => outputOfText(text, DOCUMENT));
}

/** A document wraps rows (themselves within MAX_NESTING) in a few levels of its own. */
const DOCUMENT = { maxNesting: MAX_NESTING + 16 } as const;

/**
 * Prints one line on stdout, its newlines escaped as stderr's are: a verdict (`OK <file>: ...`, `FAIL <file>: ...`)
 * names a file, and a file's name may hold a newline (a receipt or journal someone else named, verified in a loop),
 * which would otherwise print a second line of the stranger's choosing, such as another file's `OK`.
 */
export function outLine(io: CommandIO, line: string): void {
  io.out(sanitize(line));
}

/**
 * Prints lines a thousand at a time (one write each): a write a line was a system call a line, 100,000 for the
 * table of a long run, 8 million for one step with a field of that many lines. The same text (the terminal
 * sanitiser works a character at a time, so lines joined by newlines are sanitised as they are one by one).
 */
export function outLines(io: CommandIO, lines: readonly string[]): void {
  for (let i = 0; i < lines.length; i += 1000) io.out(lines.slice(i, i + 1000).join('\n'));
}

/**
 * A `--json` document too long to hold (`replay --json` of a long run): the keys of `head`, then `key`, an array
 * written an item at a time (an item's own text when it has one: a canonical row is already its encoding, but for
 * the output rule's tags, outputOfText), then the
 * keys `tail` gives once the items are written. The same bytes `jsonDocument` makes of the document held whole.
 */
export class StreamedDocument {
  constructor(
    readonly head: object,
    readonly key: string,
    readonly items: Iterable<{ text: string } | { value: JsonValue }>,
    readonly tail: () => object,
  ) {}
}

/**
 * An array written an item at a time, where it stands in a document otherwise held whole (a receipt verdict's blob
 * digests, a string each: a million of them made whole were ~200 MB): the document is a `WithStreamedArrays`.
 * `items` makes them anew each time the document is written; each item is written as a document of its own (within
 * the nesting limit on its own).
 */
export class StreamedArray {
  constructor(readonly items: () => Iterable<JsonValue>) {}
}

/**
 * A document holding `StreamedArray`s (in its plain objects, arrays and Maps): written as the bytes of it with each
 * array held whole.
 */
export class WithStreamedArrays {
  constructor(readonly doc: unknown) {}
}

/** A document's text in pieces of about `PIECE` characters (one piece for a document held whole). */
export function* documentPieces(doc: unknown): Generator<string, void, undefined> {
  if (doc instanceof WithStreamedArrays) {
    yield* streamedArrayPieces(doc.doc);
    return;
  }
  if (!(doc instanceof StreamedDocument)) {
    yield jsonDocument(doc);
    return;
  }
  const head = jsonDocument(doc.head);
  let piece = `${head === '{}' ? '{' : `${head.slice(0, -1)},`}${jsonDocument(doc.key)}:[`;
  let first = true;
  for (const item of doc.items) {
    piece += `${first ? '' : ','}${'text' in item ? outputText(item.text) : jsonDocument(item.value)}`;
    first = false;
    if (piece.length >= PIECE) {
      yield piece;
      piece = '';
    }
  }
  const tail = jsonDocument(doc.tail());
  yield `${piece}]${tail === '{}' ? '}' : `,${tail.slice(1)}`}`;
}

/**
 * The pieces of a document holding StreamedArrays: the document written whole with a placeholder string for each
 * (a random tag: no string of the document can be it), then cut at the placeholders, each array's items written
 * there a piece at a time.
 */
function* streamedArrayPieces(doc: unknown): Generator<string, void, undefined> {
  const arrays: StreamedArray[] = [];
  const tag = `\u0000stepchain streamed array ${randomBytes(16).toString('hex')} `;
  const text = jsonDocument(withPlaceholders(doc, tag, arrays));
  let at = 0;
  let piece = '';
  for (const [i, array] of arrays.entries()) {
    const placeholder = jsonDocument(`${tag}${i}`);
    const found = text.indexOf(placeholder, at);
    if (found < 0) throw new Error(`a streamed array's place was not found in its document (a fault of ours)`);
    piece += `${text.slice(at, found)}[`;
    let first = true;
    for (const item of array.items()) {
      piece += `${first ? '' : ','}${jsonDocument(item)}`;
      first = false;
      if (piece.length >= PIECE) {
        yield piece;
        piece = '';
      }
    }
    piece += ']';
    at = found + placeholder.length;
  }
  yield piece + text.slice(at);
}

/** `value` with each StreamedArray in its plain objects, arrays and Maps replaced by `${tag}${its index in arrays}`. */
function withPlaceholders(value: unknown, tag: string, arrays: StreamedArray[]): unknown {
  if (value instanceof StreamedArray) return `${tag}${arrays.push(value) - 1}`;
  if (Array.isArray(value)) return value.map((v) => withPlaceholders(v, tag, arrays));
  if (value instanceof Map)
    return new Map([...(value as Map<unknown, unknown>)].map(([k, v]) => [k, withPlaceholders(v, tag, arrays)]));
  if (value === null || typeof value !== 'object' || !isPlainObject(value)) return value;
  // No prototype: a member named `__proto__` stays a member.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[k] = withPlaceholders(v, tag, arrays);
  return out;
}

// 64 KiB: a piece is a string the collector takes young; megabyte pieces went to the large-object space, freed only
// by a full collection (`audit query --json` of a million events peaked ~50 MB higher with them, no faster).
const PIECE = 1 << 16;

/**
 * A reader that went away (`stepchain replay big | head -3`) ends the process
 * quietly, as git does: no EPIPE stack trace, exit status 141 (128 + SIGPIPE,
 * what a shell shows for git in that pipe). Installed once by the bin entry, on each stream when it is first made
 * (onFirstUse): a command that prints nothing (an agent's hook, on every tool call) never makes them (~1.7 ms).
 */
export function exitQuietlyOnClosedPipe(): void {
  const closed = (e: NodeJS.ErrnoException): boolean => e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED';
  onFirstUse('stdout', (out) =>
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (closed(e)) process.exit(141);
      // Any other failure to write (a full disk behind `> file`) is one line, not a stack trace.
      process.stderr.write(`stepchain: cannot write the output: ${e.code ?? e.message}\n`);
      process.exit(1);
    }),
  );
  onFirstUse('stderr', (err) => err.on('error', (e: NodeJS.ErrnoException) => process.exit(closed(e) ? 141 : 1)));
}

/**
 * Runs `attach` on `process[name]` when it is first read (Node makes the stream then), whoever reads it; at once
 * when it is made already or Node defines it otherwise.
 */
function onFirstUse(name: StdName, attach: (stream: NodeJS.WriteStream) => void): void {
  const own = Object.getOwnPropertyDescriptor(process, name);
  const made = own?.get;
  if (own === undefined || made === undefined || own.configurable !== true) {
    attach(process[name]);
    return;
  }
  unmade.add(name);
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: own.enumerable ?? false,
    get() {
      // Node's own getter from now on (it keeps the stream it made).
      Object.defineProperty(process, name, own);
      unmade.delete(name);
      const stream = made.call(process) as NodeJS.WriteStream;
      attach(stream);
      return stream;
    },
  });
}

type StdName = 'stdout' | 'stderr';

/** The standard streams Node has not made yet, of those whose making onFirstUse watches. */
const unmade = new Set<StdName>();

/**
 * Whether descriptor `fd` is a terminal, without making its stream (a pipe's would be made non-blocking). A terminal
 * is a character device: anything else (an agent's pipes, a file) is answered from fstat, without loading node:tty
 * (and node:net under it: ~1.5 ms of every hook call an agent waits for, measured).
 */
function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false; // not open: no terminal (isatty says the same)
  }
  return process.getBuiltinModule('node:tty').isatty(fd);
}

export function processIO(): CommandIO {
  return {
    ...(isTerminal(1) && process.stdout.columns ? { columns: process.stdout.columns } : {}),
    out: (line) => writeLine('stdout', `${line}\n`),
    err: (line) => writeLine('stderr', `${line}\n`),
    json: (doc) => writeDocument(doc),
    readStdin: (maxBytes) => readToEnd(0, maxBytes),
    stdinBlocks: () => descriptorBlocks(0),
    isTTY: isTerminal(1) && isTerminal(0),
    env: process.env,
    cwd: workingDirectory(process.env),
  };
}

/**
 * Writes a document to stdout a piece at a time, stopping when the reader has gone (`replay --json | head -c 1`).
 * A failure once a piece is out (a journal edited while it is read) cuts the document there: the error is marked
 * (`documentCut`) so that no error document follows the cut one; stderr and the exit code say why.
 */
function writeDocument(doc: unknown): void {
  let started = false;
  try {
    for (const piece of documentPieces(doc)) {
      writeNow('stdout', piece);
      started = true;
    }
  } catch (e) {
    if (started && e instanceof Error) cutDocuments.add(e);
    throw e;
  } finally {
    // Nothing out yet (a failure before the first piece): the error document follows alone, as before streaming.
    if (started) writeNow('stdout', '\n');
  }
}

/**
 * Writes to stdout (or stderr) before returning, waiting while a pipe is full (its reader slower than this process):
 * the stream would queue a long document in memory whole (a pipe's writes are asynchronous here). What the stream
 * still holds goes first (order kept). The reader gone (EPIPE) ends the process as exitQuietlyOnClosedPipe does, at
 * once (`failed`): the rest of a document nobody reads is not made.
 *
 * A stream Node has not made yet holds nothing, and is not made to write: made, a pipe's stream loads node:net and
 * its stream machinery (stdout's and stderr's together ~3 ms of a `receipt verify` whose output goes to pipes,
 * measured), where the same bytes written to the descriptor are the same output, in the same order.
 */
function writeNow(
  name: StdName,
  text: string,
  failed: (code: string) => void = (code) => endOnFailure(name, code),
): void {
  if (!unmade.has(name) && process[name].writableLength > 0) {
    process[name].write(text);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(name === 'stdout' ? 1 : 2, bytes, at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      if (code === 'EAGAIN') {
        sleepMs(1);
        continue;
      }
      failed(code);
      return;
    }
  }
}

/** Ends the process on a failed write, as exitQuietlyOnClosedPipe's handlers do: 141 for EPIPE, else 1. */
function endOnFailure(name: StdName, code: string): void {
  if (code === 'EPIPE') process.exit(141);
  // stderr failing is not said on stderr.
  if (name === 'stdout') writeNow('stderr', `stepchain: cannot write the output: ${code}\n`);
  process.exit(1);
}

/**
 * A line for stdout or stderr. A write that fails (the reader gone, a full disk) ends the process once the work in
 * hand is done (the next tick, where the stream's error event ended it before lines were written to the
 * descriptor), not at once: a reader of stdout still gets the verdict when stderr cannot be written (`2>` a closed
 * pipe or /dev/full), and what is said on the other stream is said. Lines for the failed stream are dropped.
 */
function writeLine(name: StdName, text: string): void {
  if (failedStreams.has(name)) return;
  writeNow(name, text, (code) => {
    failedStreams.add(name);
    process.nextTick(() => endOnFailure(name, code));
  });
}

/** The standard streams a line could not be written to. */
const failedStreams = new Set<StdName>();

const cutDocuments = new WeakSet<Error>();

/** Whether `e` cut a `--json` document already partly written (then it is not followed by an error document). */
export function documentCut(e: unknown): boolean {
  return e instanceof Error && cutDocuments.has(e);
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
