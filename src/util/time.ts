const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` milliseconds (the writers are synchronous: a lock wait or a retry cannot await). */
export function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Now on the monotonic clock, in milliseconds: for deadlines, leases and durations within one process. Not
 * `performance.now()`: the `performance` global loads node:perf_hooks on first use, about 1.5 ms of every hook
 * call (each one a process), for a clock process.hrtime reads as well.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Where the monotonic clock's zero is in unix milliseconds, read once (the wall clock then). */
let wallOrigin: number | undefined;

/**
 * Now in unix milliseconds, with digits below the millisecond: the wall clock read once, then the monotonic clock
 * (as `performance.timeOrigin + performance.now()`, without loading node:perf_hooks): the sub-millisecond digits
 * of a journal row's `ts` and an audit entry's timestamp, and times that never go back within a process.
 */
export function preciseNowMs(): number {
  const mono = monotonicMs();
  wallOrigin ??= Date.now() - mono;
  return wallOrigin + mono;
}
