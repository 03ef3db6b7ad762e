const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` milliseconds (the writers are synchronous: a lock wait or a retry cannot await). */
export function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
