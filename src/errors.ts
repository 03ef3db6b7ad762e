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

/** Bad arguments, a missing or unreadable file, a bad id or key: exit 2. */
export class InputError extends StepchainError {
  override name = 'InputError';
  constructor(message: string) {
    super(message, 2);
  }
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
