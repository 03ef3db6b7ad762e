import { nonDirectoryAbove } from './util/file-kind';

/**
 * The library's errors carry the exit code a command ends with and one clear line
 * of message (naming the file and line where there is one). docs/format.md §6: 0 holds,
 * 1 does not hold, 2 usage or input error. The CLI and the Action print `message`
 * and never a stack trace.
 */
export class StepchainError extends Error {
  override name = 'StepchainError';
  /** The individual problems behind the message (a broken chain's faults), for `--json`. */
  details?: ErrorFault[];
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

/** One problem behind an error: where (file and 1-based line, when known), a kind, one line of message. */
export interface ErrorFault {
  file: string | null;
  line: number | null;
  kind: string;
  message: string;
}

/** `BrokenChainError` -> `broken_chain_error`. */
function snakeName(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/**
 * The one JSON document a command prints for an error under `--json`:
 * `{"ok": false, "error": {"type", "message", "exit_code", "faults"?}}`. An
 * error that is not a StepchainError is `internal_error` (exit 1).
 */
export function errorDocument(e: unknown): {
  ok: false;
  error: { type: string; message: string; exit_code: number; faults?: ErrorFault[] };
} {
  if (e instanceof StepchainError) {
    return {
      ok: false,
      error: {
        type: snakeName(e.name),
        message: e.message,
        exit_code: e.exitCode,
        ...(e.details === undefined ? {} : { faults: e.details }),
      },
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { ok: false, error: { type: 'internal_error', message, exit_code: 1 } };
}

/**
 * Bad arguments, a missing or unreadable file, a bad id or key: exit 2.
 * `field` names the option that is wrong in the library's terms (`fromStep`,
 * `label`, `redact`): the message then says what is wrong with it, and each
 * door words the option as its users give it (`--from-step`, `input redact`;
 * see `fieldWords`). The library never names a door's flags.
 */
export class InputError extends StepchainError {
  override name = 'InputError';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message, 2);
  }
}

/** A field as the doors spell options by default: `fromStep` -> `from-step`. */
export function kebabField(field: string): string {
  return field.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/**
 * The error with its field worded by a door (`--from-step: ...`, `input redact: ...`);
 * any other error as it is.
 */
export function fieldWords(e: unknown, word: (field: string) => string): unknown {
  if (!(e instanceof InputError) || e.field === undefined) return e;
  const worded = new InputError(`${word(e.field)}: ${e.message}`);
  if (e.details !== undefined) worded.details = e.details;
  return worded;
}

/** Something checked does not hold (or an operation was refused for integrity reasons): exit 1. */
export class IntegrityError extends StepchainError {
  override name = 'IntegrityError';
  constructor(message: string) {
    super(message, 1);
  }
}

/** The file and 1-based line a problem was found at, as `file:line`. */
export function at(file: string, line?: number | null): string {
  return line === undefined || line === null ? file : `${file}:${line}`;
}

/** What an operating-system error code means, in words (the code itself is kept in the message). */
const OS_CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a path component is not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'already exists',
  EIO: 'input/output error',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many levels of symbolic links',
  EBUSY: 'device or resource busy',
  ETXTBSY: 'text file busy',
  EXDEV: 'cross-device link',
  EFBIG: 'file too large',
  ENOTEMPTY: 'directory not empty',
  ESTALE: 'stale file handle',
};

/** A Node error carrying an operating-system error code (`ENOSPC`, `EACCES`, ...). */
export function isOsError(e: unknown): e is NodeJS.ErrnoException & { code: string } {
  // Not `instanceof Error`: errors from another realm (a vm context, a worker) are errors too.
  if (typeof e !== 'object' || e === null || e instanceof StepchainError) return false;
  const code = (e as { code?: unknown }).code;
  return (
    typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) && typeof (e as { message?: unknown }).message === 'string'
  );
}

/** `<cause> (<CODE>)` for an operating-system error. */
export function osCause(e: NodeJS.ErrnoException, where?: string): string {
  const code = e.code ?? 'EIO';
  if (code === 'ENOTDIR') {
    const named = notDirCause(where ?? e.path);
    if (named !== undefined) return named;
  }
  const cause = OS_CAUSES[code];
  return cause === undefined ? code : `${cause} (${code})`;
}

/**
 * An operating-system error as one line naming the path and the cause, exit 2
 * (docs/format.md §6: the environment, not the data, is at fault). `path` and
 * `action` default to what the error itself says (`e.path`, `e.syscall`).
 */
export function osError(e: NodeJS.ErrnoException, path?: string, action?: string): InputError {
  const where = path ?? e.path ?? (e as { dest?: string }).dest;
  const what = action ?? (e.syscall === undefined ? 'failed' : `cannot ${e.syscall}`);
  return new InputError(`${where === undefined ? '' : `${where}: `}${what}: ${osCause(e, where)}`);
}

/** `fn()`, an OS error it throws made one naming `path` and what was being done (osError). */
export function withOsErrors<T>(path: string, action: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isOsError(e)) throw osError(e, path, action);
    throw e;
  }
}

/** ENOTDIR at `where`: the parent that is not a directory, named (the code alone names no path that exists). */
function notDirCause(where: string | undefined): string | undefined {
  const above = where === undefined ? undefined : nonDirectoryAbove(where);
  return above === undefined ? undefined : `${above.path} is ${above.kind}, not a directory (ENOTDIR)`;
}

/** The StepchainError an unexpected throw stands for (OS errors become exit 2), or undefined. */
export function asStepchainError(e: unknown): StepchainError | undefined {
  if (e instanceof StepchainError) return e;
  if (isOsError(e)) return osError(e);
  return undefined;
}
