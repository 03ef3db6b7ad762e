import { spawnSync } from 'node:child_process';

/**
 * The interpreter the Python peer runs on: bench/run.mjs resolves it once (sys.executable), so a version
 * manager's shim in front of python3 (pyenv's starts a shell and pyenv first, ~0.25 s) is not counted as the peer's.
 */
export const PYTHON = process.env.STEPCHAIN_BENCH_PYTHON ?? 'python3';

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

export interface Contender {
  label: string;
  cmd: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  before?: () => void;
  /** Measure the peak resident set too (through /usr/bin/time when present). */
  rss?: boolean;
}

export interface Timed {
  ms: number;
  /** Peak resident set in KB (median), when measured. */
  rssKb?: number;
  stdout: string;
  stderr: string;
}

const GNU_TIME = '/usr/bin/time';

/**
 * Runs every contender `runs` times, interleaved (one of each per round), so a
 * change in machine load hits all of them alike; returns the median wall time
 * (and peak RSS) of each, by label.
 */
export function timeInterleaved(contenders: Contender[], runs = 7): Map<string, Timed> {
  const times = new Map<string, number[]>(contenders.map((c) => [c.label, []]));
  const rss = new Map<string, number[]>(contenders.map((c) => [c.label, []]));
  const last = new Map<string, { stdout: string; stderr: string }>();
  const haveTime = spawnSync(GNU_TIME, ['-f', '%M', 'true'], { encoding: 'utf8' }).status === 0;
  for (let r = 0; r < runs; r++) {
    for (const c of contenders) {
      c.before?.();
      const withRss = c.rss === true && haveTime;
      const [cmd, args] = withRss ? [GNU_TIME, ['-f', 'RSS_KB=%M', c.cmd, ...c.args]] : [c.cmd, c.args];
      const t0 = process.hrtime.bigint();
      const p = spawnSync(cmd, args, { env: { ...process.env, ...c.env }, encoding: 'utf8', maxBuffer: 1 << 30 });
      times.get(c.label)!.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (p.status !== 0 && p.status !== 1) throw new Error(`${c.cmd} ${c.args.join(' ')} failed: ${p.stderr}`);
      let stderr = p.stderr;
      const m = /RSS_KB=(\d+)\s*$/.exec(stderr);
      if (withRss && m !== null) {
        rss.get(c.label)!.push(Number(m[1]));
        stderr = stderr.slice(0, m.index);
      }
      last.set(c.label, { stdout: p.stdout, stderr });
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const out = new Map<string, Timed>();
  for (const c of contenders) {
    const rs = rss.get(c.label)!;
    out.set(c.label, {
      ms: median(times.get(c.label)!),
      ...(rs.length > 0 ? { rssKb: median(rs) } : {}),
      ...last.get(c.label)!,
    });
  }
  return out;
}

export const mb = (kb: number | undefined): string => (kb === undefined ? '-' : `${(kb / 1024).toFixed(0)} MB`);
