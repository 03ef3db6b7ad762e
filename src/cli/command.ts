import type { OptionSpec, ParsedArgs } from './args';
import type { CommandIO } from './io';

/** One CLI command: a thin layer that reads arguments and calls the library. */
export interface Command {
  /** Words that select it, e.g. `['receipt', 'verify']`. */
  name: string[];
  /** The argument synopsis after the name, e.g. `<agent> [--root DIR] [--json]`. */
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Returns the exit code (0 holds, 1 does not); throws StepchainError for the rest. */
  run(args: ParsedArgs, io: CommandIO): Promise<number> | number;
}
