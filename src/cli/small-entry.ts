import { parseArgs, wantsHelp } from './args';
import type { Command } from './command';
import type { CliRunner } from './in-process';
import { assertCommandLineText } from './argv-text';
import { exitQuietlyOnClosedPipe, processIO, terminalSafe, type CommandIO } from './io';
import { runCommand } from './run-command';

/**
 * What a small entry of the bin (the hook entry, the verify entry: scripts/build-launcher.mjs) does with a command
 * line: it takes it only when it can run it exactly as the whole CLI would (options that parse, no help, a usable
 * current directory), and then runs it through the CLI's own `runCommand`, so what it prints and its exit code are
 * one thing either way. For any other it returns false having read and printed nothing, and the launcher runs the
 * whole CLI with the same command line, which words the help or the error.
 */
export function runWholeCommandLine(command: Command, rest: string[]): boolean {
  if (wantsHelp(rest, command.options)) return false;
  try {
    parseArgs(rest, command.options, command.name.join(' '));
  } catch {
    return false;
  }
  let io: CommandIO;
  try {
    assertCommandLineText();
    io = processIO();
  } catch {
    return false; // an argument that is not UTF-8, or no usable current directory: the CLI says so
  }
  exitQuietlyOnClosedPipe();
  void runCommand(command, rest, terminalSafe(io), noNestedRuns).then((code) => {
    process.exitCode = code;
    process.once('beforeExit', exitWithoutTeardown);
  });
  return true;
}

/**
 * Ends the process once nothing is left for it to do ('beforeExit': every write to stdout and stderr done, no
 * timer, child or worker holding it), with the exit code set, without Node's teardown: a normal end frees the whole
 * heap page by page first, a few milliseconds of every hook call for memory the system reclaims at once anyway.
 * What an end runs is still run ('exit' listeners: the launcher's code cache write); what the command wrote is
 * already on its way (records are written and synced before the command resolves).
 */
function exitWithoutTeardown(): void {
  process.exit();
}

/** A small entry never runs another command line (only the demo does). */
const noNestedRuns: CliRunner = () =>
  Promise.reject(new Error('a small entry runs no other command line (run it with the whole CLI)'));
