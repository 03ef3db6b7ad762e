import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths';

/** Runs one of the independent Python reference scripts in test/python/; returns stdout, throwing on failure. */
export function refPython(script: 'ref_run_journal.py' | 'ref_audit.py', args: string[]): string {
  const r = spawnSync('python3', [path.join(repoRoot, 'test', 'python', script), ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 ${script} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
