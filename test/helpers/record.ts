import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { Cas, casDir } from '../../src/journal';
import { cliPath } from './paths';

/** What `stepchain record` / `fork --replay` printed and returned. */
export interface StepchainRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `stepchain <args>` as a real process, asynchronous (the scripted servers the agent talks to live in the test's
 * process), with exactly `env` (nothing of the test runner's environment).
 */
export function runStepchain(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<StepchainRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A blob of the project's CAS (a missing one fails the test). */
export function casBlob(root: string, digest: string): Buffer {
  const b = new Cas(casDir(root), false).get(digest);
  if (b === undefined) throw new Error(`blob ${digest} missing under ${root}`);
  return b;
}

/** Every file under `<at>/.sdd`, read as text, for a credential search. */
export function everythingStored(at: string): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(readFileSync(p, 'latin1'));
    }
  };
  walk(path.join(at, '.sdd'));
  return out.join('\n');
}

/** Processes whose working directory is under `d` (an agent that survived its fork). */
export function processesIn(d: string): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(n)) continue;
    try {
      if (readlinkSync(`/proc/${n}/cwd`).startsWith(d)) out.push(Number(n));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}
