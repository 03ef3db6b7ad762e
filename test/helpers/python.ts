import { spawnSync } from 'node:child_process';

/** Runs a python3 script with the given stdin; returns stdout, throwing on failure. */
export function python(script: string, input = '', args: string[] = []): string {
  const r = spawnSync('python3', ['-c', script, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
