/**
 * The library's errors carry the exit code a command ends with and one clear line
 * of message (naming the file and line where there is one). SPEC §6: 0 holds,
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
export class UsageError extends StepchainError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, 2);
  }
}

/** Something checked does not hold (or an operation was refused for integrity reasons): exit 1. */
export class CheckFailure extends StepchainError {
  override name = 'CheckFailure';
  constructor(message: string) {
    super(message, 1);
  }
}
