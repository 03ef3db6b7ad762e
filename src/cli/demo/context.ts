import { runCaptured, type CapturedRun, type CliRunner } from '../in-process';

/** What a demo section gets: a temporary project and a way to run the CLI in it. */
export interface DemoContext {
  /** The temporary project root (a git repository with a few files). */
  root: string;
  /** Environment for the commands (e.g. an audit key inside the temp dir). */
  env: NodeJS.ProcessEnv;
  /** Runs `stepchain <argv>` in-process in `cwd` (default root), echoing the command and its output. */
  run(
    argv: string[],
    options?: { cwd?: string; quiet?: boolean; stdin?: Buffer; env?: NodeJS.ProcessEnv },
  ): Promise<DemoRun>;
  /** Prints a heading. */
  section(title: string): void;
  /** Prints a line of narration. */
  say(line: string): void;
  /** Lines to print at the very end (e.g. commands to walk the run). */
  epilogue: string[];
  /** The CLI's runner, for a section that makes a context of its own (another environment). */
  cli: CliRunner;
}

export type DemoRun = CapturedRun;

export type DemoSection = (ctx: DemoContext) => Promise<void>;

/** A command line as a shell would take it back: plain words bare, the rest single-quoted. */
function shellLine(argv: string[]): string {
  return argv.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ');
}

const indent = (s: string): string =>
  s
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** A demo context over a project; `cli` is the CLI's own runner, handed down by the `demo` command. */
export function makeContext(
  root: string,
  env: NodeJS.ProcessEnv,
  write: (s: string) => void,
  cli: CliRunner,
): DemoContext {
  return {
    root,
    env,
    epilogue: [],
    cli,
    section: (title) => write(`\n== ${title} ==\n`),
    say: (line) => write(`${line}\n`),
    async run(argv, options = {}) {
      const result = await runCaptured(cli, argv, {
        cwd: options.cwd ?? root,
        env: options.env === undefined ? env : { ...env, ...options.env },
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      });
      if (!options.quiet) {
        write(`$ stepchain ${shellLine(argv)}\n`);
        if (result.stdout) write(`${indent(result.stdout)}\n`);
        if (result.stderr) write(`${indent(result.stderr)}\n`);
        write(`  (exit ${result.code})\n`);
      }
      return result;
    },
  };
}
