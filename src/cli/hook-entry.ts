import { parseArgs, wantsHelp } from './args';
import { hookCommands } from './commands/hooks';
import type { CliRunner } from './in-process';
import { exitQuietlyOnClosedPipe, processIO, terminalSafe, type CommandIO } from './io';
import { runCommand } from './run-command';

/**
 * The hook entry: the program `dist/cli.js` runs for `stepchain hook <agent>`,
 * which an agent starts (and waits for) on every tool call. It holds the hook
 * commands (./commands/hooks.ts) and what they import, not the whole CLI, so a
 * call compiles a fraction of the bundle. It takes only a command line it can
 * run exactly as the CLI would (a registered agent, options that parse, no
 * help); for any other it returns false having read and printed nothing, and
 * the launcher runs the whole CLI with the same command line, which words the
 * help or the error. The command itself runs through the CLI's own
 * `runCommand`, so what it prints and its exit code are one thing either way.
 */
export function runHook(argv: string[]): boolean {
  const command = hookCommands.find((c) => c.name.length === 2 && c.name.every((w, i) => argv[i] === w));
  if (command === undefined) return false;
  const rest = argv.slice(2);
  if (wantsHelp(rest, command.options)) return false;
  try {
    parseArgs(rest, command.options, command.name.join(' '));
  } catch {
    return false;
  }
  let io: CommandIO;
  try {
    io = processIO();
  } catch {
    return false; // no usable current directory: the CLI says so
  }
  exitQuietlyOnClosedPipe();
  void runCommand(command, rest, terminalSafe(io), noNestedRuns).then((code) => {
    process.exitCode = code;
  });
  return true;
}

/** A hook command never runs another command line (only the demo does). */
const noNestedRuns: CliRunner = () =>
  Promise.reject(new Error('the hook entry runs no other command line (run it with the whole CLI)'));
