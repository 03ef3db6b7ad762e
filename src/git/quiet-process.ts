import { constants } from 'node:os';
import { getSystemErrorName } from 'node:util';

/**
 * A child process with no pipes (stdin and stdout ignored, stderr to a descriptor the caller opened), as
 * `child_process.spawn(file, args, { cwd, env, stdio: ['ignore', 'ignore', fd], windowsHide: true })` starts it:
 * the snapshot's `git add`, which runs while an agent's hook appends its step.
 *
 * Why not node:child_process: it was the hook's only use of it, and loading it loads net, dgram and the stream
 * machinery under them, then a ChildProcess is set up in cold code: ~2.5 ms of the hook's main thread on this kind of
 * machine, against ~1.4 ms for the same process started through Node's process_wrap binding (what ChildProcess
 * ends in), in a hook of ~65 ms whose target is 2.5x a bare `node -e 0`. The binding is given the options
 * ChildProcess#spawn gives it for those options (file, argv, cwd, the environment as `name=value` pairs, the three
 * stdio entries), and its end is read as ChildProcess reads it.
 *
 * When not: `process.binding` is documented as deprecated (DEP0111, documentation-only), warns on stderr under
 * `--pending-deprecation` (which wraps it: an agent would show the warning) and is refused under the permission
 * model. In those cases, or when the binding is not shaped as expected, node:child_process starts the process.
 */

/** How the process ended: its exit code, or null with the signal that ended it, or the error that kept it from starting. */
export type QuietEnd =
  { code: number; signal: null } | { code: null; signal: NodeJS.Signals } | { error: NodeJS.ErrnoException };

export interface QuietChild {
  /** Ends the process with SIGKILL (nothing once it has ended). */
  kill(): void;
}

export interface QuietOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Where its stderr goes (an open descriptor, left open). */
  stderrFd: number;
}

interface ProcessHandle {
  onexit: (exitCode: number, signalCode: string) => void;
  spawn(options: object): number;
  kill(signal: number): number;
  close(): void;
}

type ProcessHandleClass = new () => ProcessHandle;

let wrapRead = false;
let ProcessWrap: ProcessHandleClass | undefined;

/** The binding's Process class, or undefined when it cannot be used without a warning, or at all. */
function processWrap(): ProcessHandleClass | undefined {
  if (wrapRead) return ProcessWrap;
  wrapRead = true;
  try {
    // Read in here too: a `process.binding` a preload made a getter that throws (taken away) is a refusal, not a
    // snapshot that fails.
    const get = (process as unknown as { binding?: unknown }).binding;
    // --pending-deprecation (or NODE_PENDING_DEPRECATION=1) replaces it with util.deprecate's wrapper, which warns.
    if (typeof get !== 'function' || get.name !== 'binding') return undefined;
    const b: unknown = get.call(process, 'process_wrap');
    const P = typeof b === 'object' && b !== null ? (b as { Process?: unknown }).Process : undefined;
    if (typeof P === 'function' && ['spawn', 'kill', 'close'].every((m) => typeof P.prototype?.[m] === 'function')) {
      ProcessWrap = P as ProcessHandleClass;
    }
  } catch {
    // Refused (the permission model, a getter that throws): node:child_process.
  }
  return ProcessWrap;
}

/**
 * Starts `file` with `args`; `onEnd` is called once, never synchronously. Throws what spawn throws: for bad options,
 * and for a spawn error other than the five it reports as an 'error' event (see RUN_TIME_ERRORS).
 */
export function spawnQuiet(
  file: string,
  args: readonly string[],
  options: QuietOptions,
  onEnd: (end: QuietEnd) => void,
): QuietChild {
  const P = processWrap();
  return P === undefined ? viaChildProcess(file, args, options, onEnd) : viaBinding(P, file, args, options, onEnd);
}

function viaChildProcess(
  file: string,
  args: readonly string[],
  options: QuietOptions,
  onEnd: (end: QuietEnd) => void,
): QuietChild {
  const child = process.getBuiltinModule('node:child_process').spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'ignore', options.stderrFd],
    windowsHide: true,
  });
  let ended = false;
  const end = (e: QuietEnd): void => {
    if (ended) return;
    ended = true;
    onEnd(e);
  };
  child.on('error', (error: NodeJS.ErrnoException) => end({ error }));
  child.on('close', (code, signal) =>
    end(code === null ? { code: null, signal: signal ?? 'SIGKILL' } : { code, signal: null }),
  );
  return { kill: () => void child.kill('SIGKILL') };
}

function viaBinding(
  P: ProcessHandleClass,
  file: string,
  args: readonly string[],
  options: QuietOptions,
  onEnd: (end: QuietEnd) => void,
): QuietChild {
  const argv = [file, ...args];
  const envPairs = environmentPairs(options.env);
  refuseNul([...argv, ...envPairs, options.cwd]);
  const handle = new P();
  let running = true;
  handle.onexit = (exitCode, signalCode) => {
    running = false;
    handle.close();
    if (signalCode) onEnd({ code: null, signal: signalCode as NodeJS.Signals });
    else onEnd({ code: exitCode, signal: null });
  };
  const err = handle.spawn({
    file,
    args: argv,
    cwd: options.cwd,
    envPairs,
    stdio: [{ type: 'ignore' }, { type: 'ignore' }, { type: 'fd', fd: options.stderrFd }],
    detached: false,
    windowsHide: true,
    windowsVerbatimArguments: false,
  });
  if (err !== 0) {
    running = false;
    handle.close();
    // As ChildProcess#spawn reports it: a run-time error as an 'error' named `spawn <file> <code>`, after the call
    // returns; any other (a directory that is a file: ENOTDIR; an argument over 128 KiB: E2BIG; ELOOP,
    // ENAMETOOLONG...) thrown, named `spawn <code>` (reported later, it made gitRunQuiet's rejection another error).
    const code = getSystemErrorName(err);
    if (!RUN_TIME_ERRORS.has(code)) throw errnoError(err, code, 'spawn');
    const error = Object.assign(errnoError(err, code, `spawn ${file}`), { path: file, spawnargs: [...args] });
    process.nextTick(() => onEnd({ error }));
  }
  return {
    kill: () => {
      if (running) handle.kill(constants.signals.SIGKILL);
    },
  };
}

/** The spawn errors ChildProcess#spawn gives as an 'error' event (lib/internal/child_process.js); it throws the others. */
const RUN_TIME_ERRORS = new Set(['EACCES', 'EAGAIN', 'EMFILE', 'ENFILE', 'ENOENT']);

/** An error as Node's ErrnoException makes it: `<syscall> <code>`, with errno, code and syscall. */
function errnoError(errno: number, code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${syscall} ${code}`), { errno, code, syscall });
}

/**
 * The environment as Node passes it (normalizeSpawnArguments): `name=value` for each enumerable key with a defined
 * value, its prototype's included, and V8's coverage directory added when the caller's process has one (c8 and Node's own tests use it).
 */
function environmentPairs(env: NodeJS.ProcessEnv): string[] {
  const coverage = process.env.NODE_V8_COVERAGE;
  // Node sets it on the caller's object itself; a copy on the same prototype keeps the inherited keys it passes too
  // (a spread kept own keys only: with NODE_V8_COVERAGE set, a variable inherited from the prototype was dropped).
  const withCoverage: NodeJS.ProcessEnv =
    coverage && !Object.hasOwn(env, 'NODE_V8_COVERAGE')
      ? Object.assign(Object.create(Object.getPrototypeOf(env) as object | null) as NodeJS.ProcessEnv, env, {
          NODE_V8_COVERAGE: coverage,
        })
      : env;
  const pairs: string[] = [];
  for (const key in withCoverage) {
    const value = withCoverage[key];
    if (value !== undefined) pairs.push(`${key}=${value}`);
  }
  return pairs;
}

/** Node refuses a NUL in an argument, a variable or the directory (C would end the string there): so does this. */
function refuseNul(strings: readonly string[]): void {
  for (const s of strings) {
    if (s.includes('\0')) {
      const e: NodeJS.ErrnoException = new TypeError(
        `a process's argument, environment or directory holds a NUL byte: ${JSON.stringify(s.slice(0, 80))}`,
      );
      e.code = 'ERR_INVALID_ARG_VALUE';
      throw e;
    }
  }
}
