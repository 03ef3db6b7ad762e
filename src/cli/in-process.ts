import { TooLongError } from '../util/read-to-end';
import { documentPieces, type CommandIO } from './io';

/** Runs one command line and returns its exit code: `runCli`, handed down so nothing below the CLI imports it. */
export type CliRunner = (argv: string[], io: CommandIO) => Promise<number>;

/** What one in-process command line printed, and its exit code. */
export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CaptureOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: Buffer;
  /** The terminal width help is wrapped at. */
  columns?: number;
}

/** Runs `stepchain <argv>` in this process with its output captured (the demo and the tests share it). */
export async function runCaptured(run: CliRunner, argv: string[], options: CaptureOptions): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    out: (l) => void (stdout += `${l}\n`),
    err: (l) => void (stderr += `${l}\n`),
    json: (d) => void (stdout += `${[...documentPieces(d)].join('')}\n`),
    readStdin: (maxBytes) => {
      const bytes = options.stdin ?? Buffer.alloc(0);
      if (maxBytes !== undefined && bytes.length > maxBytes) throw new TooLongError(maxBytes);
      return bytes;
    },
    stdinBlocks: () => [options.stdin ?? Buffer.alloc(0)],
    isTTY: false,
    env: options.env,
    cwd: options.cwd,
    ...(options.columns === undefined ? {} : { columns: options.columns }),
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}
