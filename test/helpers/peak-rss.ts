import { spawnSync } from 'node:child_process';
import { python3 } from './python';

/** What a command run under `peakRss` did: its exit code, its output, and its peak RSS. */
export interface PeakRun {
  code: number | null;
  out: string;
  err: string;
  /** The peak RSS (MB) of the processes the wrapper waited for (getrusage RUSAGE_CHILDREN). */
  mb: number;
}

const WRAPPER =
  'import resource, subprocess, sys\n' +
  'r = subprocess.run(sys.argv[2:], capture_output=True, cwd=sys.argv[1] or None)\n' +
  'sys.stdout.buffer.write(r.stdout)\n' +
  'sys.stderr.buffer.write(r.stderr)\n' +
  'sys.stderr.write("\\nmaxrss_kb=%d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n' +
  'sys.exit(r.returncode)\n';

/**
 * Runs `argv` under Python, which reports the peak RSS of what it waited for (a shell pipeline: `['sh', '-c', ...]`):
 * a memory bound is tested on the whole process tree, not on Node's own view of itself.
 */
export function peakRss(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): PeakRun {
  const r = spawnSync(python3(), ['-c', WRAPPER, options.cwd ?? '', ...argv], {
    env: options.env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const m = /\nmaxrss_kb=(\d+)\n$/.exec(r.stderr);
  if (m === null) throw new Error(`no peak RSS from the wrapper: ${r.stderr}`);
  return { code: r.status, out: r.stdout, err: r.stderr.slice(0, m.index), mb: Number(m[1]) / 1024 };
}
