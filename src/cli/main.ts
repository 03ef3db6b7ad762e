import { parseArgs } from './args';
import type { Command } from './command';
import { commands } from './commands';
import { processIO, type CommandIO } from './io';
import { StepchainError } from '../errors';
import { VERSION } from '../version';

function usageText(): string {
  const lines = [`stepchain ${VERSION}: tamper-evident, replayable AI-agent runs`, '', 'Commands:'];
  for (const c of commands) lines.push(`  stepchain ${c.name.join(' ')} ${c.usage}`.trimEnd(), `      ${c.summary}`);
  lines.push('', 'Exit codes: 0 holds, 1 does not hold, 2 usage or input error. `--json` prints one JSON document.');
  return lines.join('\n');
}

/** Picks the command whose name words are the longest prefix of argv. */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const c of commands) {
    if (c.name.every((w, i) => argv[i] === w) && (best === undefined || c.name.length > best.name.length)) best = c;
  }
  return best && { command: best, rest: argv.slice(best.name.length) };
}

/** Runs one command line; returns the exit code. Never throws, never prints a stack trace. */
export async function runCli(argv: string[], io: CommandIO = processIO()): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.out(usageText());
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    io.out(VERSION);
    return 0;
  }
  const found = findCommand(argv);
  if (found === undefined) {
    io.err(`stepchain: unknown command ${JSON.stringify(argv[0])} (see \`stepchain help\`)`);
    return 2;
  }
  const { command, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`usage: stepchain ${command.name.join(' ')} ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  try {
    const args = parseArgs(rest, command.options, command.name.join(' '));
    return await command.run(args, io);
  } catch (e) {
    if (e instanceof StepchainError) {
      io.err(`stepchain: ${e.message}`);
      return e.exitCode;
    }
    // An unexpected failure is still one line; STEPCHAIN_DEBUG shows the stack.
    const err = e as Error;
    io.err(`stepchain: internal error: ${err?.message ?? String(e)}`);
    if (io.env.STEPCHAIN_DEBUG) io.err(String(err?.stack));
    return 1;
  }
}
