import { spawnSync } from 'node:child_process';

/** Runs a whole process `runs` times; returns the median wall time in ms (and the last output). */
export function timeProcess(
  cmd: string,
  args: string[],
  options: { runs?: number; env?: NodeJS.ProcessEnv; before?: () => void } = {},
): { ms: number; stdout: string; code: number } {
  const runs = options.runs ?? 5;
  const times: number[] = [];
  let stdout = '';
  let code = 0;
  for (let i = 0; i < runs; i++) {
    options.before?.();
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { env: { ...process.env, ...options.env }, encoding: 'utf8', maxBuffer: 1 << 30 });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    stdout = r.stdout;
    code = r.status ?? -1;
    if (code !== 0 && code !== 1) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, stdout, code };
}

export function row(cells: (string | number)[], widths: number[]): string {
  return cells.map((c, i) => String(c).padEnd(widths[i] ?? 12)).join('  ');
}

export const fmt = (ms: number): string => `${ms.toFixed(0)} ms`;
