import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { Cas, casDir, readVerifiedJournal } from '../../src/journal';
import { sha256Hex } from '../../src/util/hash';
import { cli, expectNoStack } from './cli';
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

/**
 * The checks every agent's "replay from step N, then live" test makes of `fork --replay --json`'s result: exit 0
 * without a warning, `replayed` recorded exchanges answered and `forwarded` sent upstream (`upstream`: what the
 * live server received), the fork's files at step N as recorded, its journal sharing the recorded steps' hashes up
 * to N and holding the live request as its next input, and verifying. The parsed result is returned for the
 * agent's own checks.
 */
export function expectReplayedThenLive(
  r: StepchainRun,
  o: { root: string; recordedHashes: string[]; replayed: number; upstream: { request: Buffer }[] },
): { fork_worktree: string; journal_path: string } {
  expectNoStack(r);
  const doc = JSON.parse(r.stdout) as {
    fork_worktree: string;
    journal_path: string;
    files_at_step: { checked: boolean; differing: string[] };
  };
  expect({ code: r.code, warnings: r.stderr.includes('warning') ? r.stderr : '' }).toEqual({ code: 0, warnings: '' });
  const forwarded = o.recordedHashes.length - o.replayed;
  expect(doc).toMatchObject({ ok: true, replayed: o.replayed, forwarded, divergence: null });
  expect(o.upstream).toHaveLength(forwarded);
  expect(doc.files_at_step).toEqual({ checked: true, differing: [] });
  const fork = readVerifiedJournal(doc.journal_path).entries;
  expect(fork).toHaveLength(o.recordedHashes.length);
  expect(fork.slice(0, o.replayed).map((e) => e.row.step_hash)).toEqual(o.recordedHashes.slice(0, o.replayed));
  expect(fork[o.replayed]!.row.input_hash).toBe(sha256Hex(o.upstream[0]!.request));
  expect(cli(['verify', doc.journal_path], { cwd: o.root }).code).toBe(0);
  return doc;
}
