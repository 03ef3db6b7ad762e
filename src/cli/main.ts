import { wantsHelp } from './args';
import type { Command } from './command';
import { commands } from './commands';
import { commandHelp, groupHelp, groupNames, mainHelp } from './help';
import { processIO, terminalSafe, type CommandIO } from './io';
import { didYouMean } from './suggest';
import { reportError as report, runCommand } from './run-command';
import { InputError } from '../errors';
import { VERSION } from '../version';

/** Help is wrapped at the terminal's width; 80 columns when it is not a terminal (`COLUMNS` overrides). */
function widthOf(io: CommandIO): number {
  const env = Number(io.env.COLUMNS);
  const w = io.columns ?? (Number.isInteger(env) && env > 0 ? env : 80);
  return Math.max(30, w);
}

/** Picks the command whose name words are the longest prefix of argv. */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const c of commands) {
    if (c.name.every((w, i) => argv[i] === w) && (best === undefined || c.name.length > best.name.length)) best = c;
  }
  return best && { command: best, rest: argv.slice(best.name.length) };
}

/** The commands of a group, for a command that is also a group (`fork` and `fork rm`). */
function subcommandsOf(command: Command): Command[] {
  return commands.filter(
    (c) => c.name.length === command.name.length + 1 && command.name.every((w, i) => c.name[i] === w),
  );
}

/** An unknown command (or group member): one line with the closest names. */
function unknownCommand(words: string[]): InputError {
  const groups = groupNames(commands);
  if (words.length >= 2 && groups.has(words[0]!)) {
    const group = words[0]!;
    const wrong = `${group} ${words[1]}`;
    const known = commands.filter((c) => c.name[0] === group && c.name.length > 1).map((c) => c.name.join(' '));
    return new InputError(
      `unknown command ${JSON.stringify(wrong)}${didYouMean(wrong, known)} (see \`stepchain ${group} --help\`)`,
    );
  }
  const word = words[0] ?? '';
  const known = [...new Set(commands.map((c) => c.name[0]!)), 'help', 'version'];
  return new InputError(`unknown command ${JSON.stringify(word)}${didYouMean(word, known)} (see \`stepchain help\`)`);
}

/** `stepchain help [words...]`: the text, or an error for unknown words. */
function helpFor(words: string[], width: number): string {
  if (words.length === 0) return mainHelp(commands, width);
  const exact = commands.find((c) => c.name.length === words.length && c.name.every((w, i) => words[i] === w));
  if (exact) return commandHelp(exact, width, subcommandsOf(exact));
  if (words.length === 1 && groupNames(commands).has(words[0]!)) return groupHelp(words[0]!, commands, width);
  throw unknownCommand(words);
}

/** Runs one command line; returns the exit code. Never throws, never prints a stack trace. */
export async function runCli(argv: string[], rawIO: CommandIO = processIO()): Promise<number> {
  // Every line goes through the terminal sanitiser (src/util/terminal.ts), whatever the IO.
  const io = terminalSafe(rawIO);
  const width = widthOf(io);
  const head = argv[0];
  // `--json` anywhere before `--` asks for a JSON error too, even when the command line itself is wrong.
  const rawJson = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length).includes('--json');
  if (head === undefined) {
    io.out(mainHelp(commands, width));
    return 2;
  }
  if (head === '--version' || head === 'version' || head === '-V') {
    io.out(VERSION);
    return 0;
  }
  if (head === 'help' || head === '--help' || head === '-h') {
    try {
      io.out(helpFor(argv.slice(1), width));
      return 0;
    } catch (e) {
      return report(e, io, rawJson);
    }
  }
  // An option before any command (`stepchain -x`, `stepchain --verison`) is an unknown option, not a command.
  if (head.startsWith('-') && head !== '-') {
    const name = head.replace(/^--?/, '').split('=')[0]!;
    const ofCommands = commands.some(
      (c) => c.options[name] !== undefined || Object.values(c.options).some((o) => o.short === name),
    );
    const why = ofCommands
      ? `: options go after the command (\`stepchain <command> ${head.split('=')[0]} ...\`)`
      : didYouMean(head, ['--help', '--version'], (w) => w);
    return report(new InputError(`unknown option ${head}${why} (see \`stepchain help\`)`), io, rawJson);
  }
  const found = findCommand(argv);
  if (found === undefined) {
    const groups = groupNames(commands);
    if (groups.has(head)) {
      const next = argv[1];
      if (next === undefined || next === '--help' || next === '-h') {
        io.out(groupHelp(head, commands, width));
        return next === undefined ? 2 : 0;
      }
    }
    return report(unknownCommand(argv.slice(0, 2)), io, rawJson);
  }
  const { command, rest } = found;
  if (wantsHelp(rest, command.options)) {
    io.out(commandHelp(command, width, subcommandsOf(command)));
    return 0;
  }
  return runCommand(command, rest, io, runCli);
}
