import { format } from 'node:util';
import { runCaptured } from '../../src/cli/in-process';
import { runCli } from '../../src/cli/main';
import type { CliResult } from './cli';

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/** What reached the process's own streams while in-process runs were under way (see `watched`). */
const seen: string[] = [];
let running = 0;
let restore: (() => void) | undefined;

/**
 * Runs `run` with the process's own stdout, stderr and console watched: a command run in this process must write only
 * to the streams it was given (a process of the bin has no others, so whatever went elsewhere would be lost to its
 * user, or printed where a library's caller did not ask). console.* is watched too: with more than one test file Jest
 * buffers the console and prints it after the file, never through the streams. Runs may overlap (one watch for all);
 * what reached the process's streams while a run was under way fails that run.
 */
async function watched<T>(run: () => Promise<T>): Promise<{ value: T; outside: string }> {
  if (running++ === 0) {
    const capture = (chunk: unknown): boolean => {
      seen.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return true;
    };
    const spies = [
      jest.spyOn(process.stderr, 'write').mockImplementation(capture),
      jest.spyOn(process.stdout, 'write').mockImplementation(capture),
      ...CONSOLE_METHODS.map((m) =>
        jest.spyOn(console, m).mockImplementation((...a: unknown[]) => void seen.push(`${format(...a)}\n`)),
      ),
    ];
    restore = () => {
      for (const s of spies) s.mockRestore();
      seen.length = 0;
    };
  }
  const from = seen.length;
  try {
    const value = await run();
    return { value, outside: seen.slice(from).join('') };
  } finally {
    if (--running === 0) restore?.();
  }
}

/**
 * `stepchain <args>` through runCli in this process (the code dist/cli.js bundles), with the environment a process of
 * `cli` would have: for tests about a command's logic, where a Node start per call was most of the file's time. Keep
 * `cli` (a real process) for what is about the process: exit on signals, the streams, the launcher, hooks an agent
 * starts. Nothing may reach the process's own streams (`watched`): the result's stdout and stderr are all a user of
 * the bin would see.
 */
export async function cliInProcess(
  args: string[],
  options: { cwd?: string; input?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const stdin = options.input === undefined ? undefined : Buffer.from(options.input);
  const { value, outside } = await watched(() =>
    runCaptured(runCli, args, {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, STEPCHAIN_AUDIT: 'off', ...options.env },
      ...(stdin === undefined ? {} : { stdin }),
    }),
  );
  expect(outside).toBe('');
  return value;
}
