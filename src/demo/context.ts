import { runCli } from '../cli/main';
import { jsonDocument, type CommandIO } from '../cli/io';

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
}

export interface DemoRun {
  code: number;
  stdout: string;
  stderr: string;
}

export type DemoSection = (ctx: DemoContext) => Promise<void>;

export function makeContext(root: string, env: NodeJS.ProcessEnv, write: (s: string) => void): DemoContext {
  const ctx: DemoContext = {
    root,
    env,
    epilogue: [],
    section: (title) => write(`\n== ${title} ==\n`),
    say: (line) => write(`${line}\n`),
    async run(argv, options = {}) {
      const cwd = options.cwd ?? root;
      let stdout = '';
      let stderr = '';
      const io: CommandIO = {
        out: (l) => void (stdout += `${l}\n`),
        err: (l) => void (stderr += `${l}\n`),
        json: (d) => void (stdout += `${jsonDocument(d)}\n`),
        readStdin: () => options.stdin ?? Buffer.alloc(0),
        isTTY: false,
        env: options.env === undefined ? env : { ...env, ...options.env },
        cwd,
      };
      const code = await runCli(argv, io);
      if (!options.quiet) {
        write(
          `$ stepchain ${argv.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ')}\n`,
        );
        const indent = (s: string): string =>
          s
            .replace(/\n$/, '')
            .split('\n')
            .map((l) => `  ${l}`)
            .join('\n');
        if (stdout) write(`${indent(stdout)}\n`);
        if (stderr) write(`${indent(stderr)}\n`);
        write(`  (exit ${code})\n`);
      }
      return { code, stdout, stderr };
    },
  };
  return ctx;
}
