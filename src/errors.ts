/**
 * The library's errors carry the exit code a command ends with and one clear line
 * of message (naming the file and line where there is one). docs/format.md §6: 0 holds,
 * 1 does not hold, 2 usage or input error. The CLI and the Action print `message`
 * and never a stack trace.
 */
export class StepchainError extends Error {
  override name = 'StepchainError';
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
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
