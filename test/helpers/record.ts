import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { Cas, casDir } from '../../src/journal';
import { cliPath } from './paths';

/** What a `stepchain` process printed, and its exit code. */
export interface StepchainRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `stepchain <args>` as a real process, asynchronous (a test's scripted servers live in the test's own process, so
 * a synchronous spawn would starve them), with exactly the environment given.
 */
export function stepchainAsync(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<StepchainRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd,
      env: { STEPCHAIN_AUDIT: 'off', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A blob of the project's CAS (a missing one fails the test, naming it). */
export function casBlob(root: string, digest: string): Buffer {
  const b = new Cas(casDir(root), false).get(digest);
  if (b === undefined) throw new Error(`blob ${digest} missing`);
  return b;
}

/** Every file under `<root>/.sdd`, read as text, for a credential search. */
export function everythingStored(root: string): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(readFileSync(p, 'latin1'));
    }
  };
  walk(path.join(root, '.sdd'));
  return out.join('\n');
}

/** Processes whose working directory is under `dir` (an agent that outlived a stopped fork). */
export function processesIn(dir: string): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(n)) continue;
    try {
      if (readlinkSync(`/proc/${n}/cwd`).startsWith(dir)) out.push(Number(n));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}
