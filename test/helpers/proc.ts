import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath } from './paths';

/** Runs code in a child node process that loads the TypeScript sources (through the SWC register hook). */
export function nodeWithSources(code: string): string[] {
  return ['-r', path.resolve(__dirname, 'swc-register.js'), '-e', code];
}

/** A pid that named a process which has exited (it may be reused later, as any pid). */
export function deadPid(): number {
  // `true`, not a Node process (~0.1 s of CPU each): any program's pid is as dead once it is waited for.
  const r = spawnSync('true');
  if (r.error !== undefined || typeof r.pid !== 'number' || r.pid <= 0)
    throw new Error(`deadPid: \`true\` did not run: ${r.error}`);
  return r.pid;
}

export interface Paused {
  child: ChildProcess;
  pid: number;
  /** SIGKILLs the child and waits for it to be gone. */
  kill(): Promise<void>;
  /** Waits for the child to exit on its own; its exit code and stderr. */
  exited(): Promise<{ code: number | null; stderr: string }>;
}

/**
 * Starts `node <args>` with STEPCHAIN_TEST_PAUSE=<stage> and resolves once the
 * child reports it is paused there (src/util/pause.ts), so a test can SIGKILL
 * it at that exact point. Rejects with the child's stderr if it exits first.
 */
export function spawnPaused(
  args: string[],
  stage: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer } = {},
): Promise<Paused> {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { ...process.env, STEPCHAIN_AUDIT: 'off', ...options.env, STEPCHAIN_TEST_PAUSE: stage },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin!.end(options.input);
  let stderr = '';
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
  child.stdout!.resume();
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
      if (stderr.includes(`paused at ${stage} `)) {
        resolve({
          child,
          pid: child.pid!,
          kill: async () => {
            child.kill('SIGKILL');
            await exit;
          },
          exited: () => exit,
        });
      }
    });
    void exit.then(({ code }) => reject(new Error(`exited (${code}) before pausing at ${stage}: ${stderr}`)));
  });
}

/**
 * Runs the built CLI until it pauses at `stage` (STEPCHAIN_TEST_RESUME=`resume`), does `change` there, lets it go
 * on: its exit code, its stdout, and its stderr's lines but the pause's own.
 */
export async function cliChangedWhilePaused(
  args: string[],
  stage: string,
  resume: string,
  change: () => void,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string[] }> {
  const p = await cliPaused(args, stage, { env: { ...env, STEPCHAIN_TEST_RESUME: resume } });
  let stdout = '';
  p.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  change();
  writeFileSync(resume, '');
  const { code, stderr } = await p.exited();
  return { code, stdout, stderr: stderr.split('\n').filter((l) => l !== '' && !l.includes('paused at')) };
}

/** `spawnPaused` for the built CLI. */
export function cliPaused(
  args: string[],
  stage: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer } = {},
): Promise<Paused> {
  return spawnPaused([cliPath, ...args], stage, options);
}

/**
 * Writes `file`, a preload (`node -r <file>`) that reports on stderr the size of every program the process compiles
 * with `vm.compileFunction` (`compiled <n>` lines), and with `scripts` those of `vm.Script` too, saying when a
 * script's code cache was used. Returns `file`.
 */
export function writeCompileCounter(file: string, o: { scripts?: boolean } = {}): string {
  const script = `const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    process.stderr.write('compiled ' + code.length + '\\n');
    if (options && options.cachedData !== undefined && !this.cachedDataRejected) process.stderr.write('code cache used\\n');
  }
};
`;
  writeFileSync(
    file,
    `const vm = require('node:vm');
const compile = vm.compileFunction;
vm.compileFunction = function (code, ...rest) {
  process.stderr.write('compiled ' + code.length + '\\n');
  return compile.call(this, code, ...rest);
};
${o.scripts === true ? script : ''}`,
  );
  return file;
}
