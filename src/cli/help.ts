import { displayWidth, wrap } from '../replay/text';
import { VERSION } from '../version';
import { optionLabel, type OptionSpec } from './args';
import type { Command } from './command';

/**
 * Help texts: the command list, a group's commands (`stepchain receipt`), one
 * command with every option described, examples and exit codes. Everything is
 * wrapped at `width` columns (the terminal's, else 80), words never cut.
 */

/** Exit codes every command shares, shown when a command does not say more. */
export const COMMON_EXIT_CODES: Record<number, string> = {
  0: 'done / holds',
  1: 'does not hold (or refused)',
  2: 'usage or input error',
};

/**
 * Splits text into lines of at most `width` columns at spaces (`restWidth` for every line after the first);
 * only a word longer than a whole line is cut. Runs of spaces count as one.
 */
export function wrapWords(text: string, width: number, restWidth = width): string[] {
  const out: string[] = [];
  const narrow = Math.min(width, restWidth);
  for (const para of text.split('\n')) {
    let line = '';
    const room = (): number => (out.length === 0 ? width : restWidth);
    for (const word of para.split(/ +/).flatMap((w) => (displayWidth(w) > narrow ? wrap(w, narrow) : [w]))) {
      if (word === '') continue;
      if (line === '') line = word;
      else if (displayWidth(line) + 1 + displayWidth(word) <= room()) line += ` ${word}`;
      else {
        out.push(line);
        line = word;
      }
    }
    out.push(line);
  }
  return out;
}

/** `text` wrapped to `width`, the first line indented by `indent` spaces and the rest by `hang` more. */
function indented(text: string, width: number, indent: number, hang = 0): string[] {
  // The rest is wrapped in the same pass as the first line: re-wrapping a slice of the text lost
  // characters wherever runs of spaces made the wrapped line shorter than the text it came from.
  const lines = wrapWords(text, Math.max(20, width - indent), Math.max(20, width - indent - hang));
  return lines.map((l, i) => (l === '' ? '' : ' '.repeat(indent + (i === 0 ? 0 : hang)) + l));
}

/** The shell words of a command line, quoting kept as written (`--prompt "Fix the bug"` is two words). */
function shellWords(cmd: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | null = null;
  for (const ch of cmd) {
    if (quote !== null) {
      word += ch;
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word += ch;
    } else if (ch === ' ') {
      if (word !== '') words.push(word);
      word = '';
    } else word += ch;
  }
  if (word !== '') words.push(word);
  return words;
}

/**
 * An example command wrapped only between shell words, each broken line ending in ` \`, so a pasted copy
 * runs as printed (a word is never cut, even one longer than the line).
 */
function exampleLines(cmd: string, width: number, indent: number, hang: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of shellWords(cmd)) {
    const room = width - indent - (lines.length === 0 ? 0 : hang) - 2;
    if (line === '') line = w;
    else if (displayWidth(line) + 1 + displayWidth(w) <= room) line += ` ${w}`;
    else {
      lines.push(line);
      line = w;
    }
  }
  lines.push(line);
  return lines.map((l, i) => `${' '.repeat(indent + (i === 0 ? 0 : hang))}${l}${i < lines.length - 1 ? ' \\' : ''}`);
}

/**
 * A two-column list (`label  text`): labels in a column of at most `maxLabel`
 * columns, texts wrapped beside them; a longer label puts its text on the next line.
 */
function table(rows: [string, string][], width: number, indent = 2, maxLabel = 30): string[] {
  const col = Math.min(
    maxLabel,
    rows.reduce((m, [l]) => Math.max(m, displayWidth(l)), 0),
  );
  const textCol = indent + col + 2;
  const textWidth = Math.max(20, width - textCol);
  const out: string[] = [];
  for (const [label, text] of rows) {
    const lines = wrapWords(text, textWidth);
    const head = ' '.repeat(indent) + label;
    if (displayWidth(label) > col) {
      out.push(head);
      for (const l of lines) out.push(' '.repeat(textCol) + l);
    } else {
      out.push(head + ' '.repeat(textCol - displayWidth(head)) + (lines[0] ?? ''));
      for (const l of lines.slice(1)) out.push(' '.repeat(textCol) + l);
    }
  }
  return out;
}

const GLOBAL_OPTIONS: [string, string][] = [
  ['-h, --help', 'Show help: `stepchain help`, `stepchain <command> --help`, `stepchain help <command>`.'],
  ['--version', 'Print the version.'],
];

/** The words that name a group: the first word of a command of two or more words (`receipt`, `run`, `audit`). */
export function groupNames(commands: Command[]): Set<string> {
  return new Set(commands.filter((c) => c.name.length > 1).map((c) => c.name[0]!));
}

/** `stepchain help`: every command with its summary, the global options and exit codes. */
export function mainHelp(commands: Command[], width: number): string {
  const out = [
    `stepchain ${VERSION}: tamper-evident, replayable AI-agent runs`,
    '',
    'Usage: stepchain <command> [options]',
    '',
  ];
  out.push('Commands:');
  out.push(
    ...table(
      commands.map((c) => [c.name.join(' '), c.summary]),
      width,
      2,
      18,
    ),
  );
  out.push('', 'Options:');
  out.push(...table(GLOBAL_OPTIONS, width, 2, 18));
  out.push('', 'Exit codes:');
  out.push(...table(Object.entries(COMMON_EXIT_CODES), width, 2, 18));
  out.push('');
  out.push(
    ...wrapWords(
      'Run `stepchain <command> --help` for its options, examples and exit codes. ' +
        'Every command that prints something prints one JSON document with --json, errors included ({"ok": false, "error": {...}}). ' +
        'The project root is found like git finds a repository (see --root).',
      width,
    ),
  );
  return out.join('\n');
}

/** `stepchain receipt`: the commands of one group. */
export function groupHelp(group: string, commands: Command[], width: number): string {
  const members = commands.filter((c) => c.name[0] === group && c.name.length > 1);
  const out = [`usage: stepchain ${group} <command> [options]`, '', 'Commands:'];
  out.push(
    ...table(
      members.map((c) => [c.name.join(' '), c.summary]),
      width,
      2,
      22,
    ),
  );
  out.push('', ...wrapWords(`Run \`stepchain ${group} <command> --help\` for one command's options.`, width));
  return out.join('\n');
}

function optionRows(options: Record<string, OptionSpec>): [string, string][] {
  const rows: [string, string][] = Object.entries(options).map(([name, s]) => {
    const label = optionLabel(name, s) + (s.kind === 'flag' ? '' : ` ${s.value ?? 'VALUE'}`);
    const repeat = s.kind === 'list' ? ' Repeatable.' : '';
    return [label, `${s.description ?? ''}${repeat}`.trim()];
  });
  rows.push(['-h, --help', 'Show this help.']);
  return rows;
}

/** `stepchain <command> --help`: usage, what it does, every option, examples, exit codes. */
export function commandHelp(command: Command, width: number, subcommands: Command[] = []): string {
  const name = `stepchain ${command.name.join(' ')}`;
  const out = indented(`usage: ${name} ${command.usage}`.trimEnd(), width, 0, 4);
  out.push('', ...wrapWords(command.summary, width));
  if (command.description) out.push('', ...wrapWords(command.description, width));
  out.push('', 'Options:', ...table(optionRows(command.options), width, 2, 28));
  if (subcommands.length > 0) {
    out.push(
      '',
      'Commands:',
      ...table(
        subcommands.map((c) => [c.name.join(' '), c.summary]),
        width,
        2,
        22,
      ),
    );
  }
  if (command.examples && command.examples.length > 0) {
    out.push('', 'Examples:');
    for (const e of command.examples) {
      // A comment that wraps stays a comment on each line (pasted with the command, it is not run).
      out.push(...wrapWords(e.what, Math.max(20, width - 4)).map((l) => `  # ${l}`));
      out.push(...exampleLines(e.run, width, 2, 4));
    }
  }
  out.push('', 'Exit codes:', ...table(Object.entries(command.exitCodes ?? COMMON_EXIT_CODES), width, 2, 4));
  return out.join('\n');
}
