import type { OptionSpec, ParsedArgs } from './args';
import type { CliRunner } from './in-process';
import type { CommandIO } from './io';

/** One example for `--help`: a command line and what it does. */
export interface CommandExample {
  run: string;
  what: string;
}

/**
 * One CLI command: a thin layer that reads arguments and calls the library.
 * `description`, `examples`, `exitCodes` and each option's `description` feed
 * `--help`; they are optional so a command compiles without them, and a test
 * requires them of every registered command.
 */
export interface Command {
  /** Words that select it, e.g. `['receipt', 'verify']`. */
  name: string[];
  /** The argument synopsis after the name, e.g. `<agent> [--root DIR] [--json]`. */
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** More about what it does, for `--help` (paragraphs separated by a blank line). */
  description?: string;
  examples?: CommandExample[];
  /** What each exit code means for this command. */
  exitCodes?: Record<number, string>;
  /**
   * The highest exit code the command may return, whatever goes wrong (usage errors included). A hook that another
   * program runs sets 1: Claude Code reads exit 2 as "block the agent".
   */
  maxExitCode?: number;
  /**
   * The flag (without `--`) of each library field whose name it does not spell (`report`: `fromStep` is `--from`),
   * for an InputError that names its field; any other field is its kebab-case (`fromStep` -> `--from-step`).
   */
  fields?: Record<string, string>;
  /**
   * Returns the exit code (0 holds, 1 does not); throws StepchainError for the rest. `cli` runs another command line
   * in this process (the demo does), so no command imports the dispatcher back.
   */
  run(args: ParsedArgs, io: CommandIO, cli: CliRunner): Promise<number> | number;
}
