import { monotonicMs, preciseNowMs } from '../src/util/time';

/**
 * The clocks of src/util/time.ts that stand in for `performance` (which loads node:perf_hooks, a cost of every hook
 * call): the monotonic one never goes back; the precise wall clock is the wall clock, with digits below the
 * millisecond, and never goes back within a process.
 */
describe('the clocks', () => {
  test('the monotonic clock never goes back and counts milliseconds', () => {
    let last = monotonicMs();
    for (let i = 0; i < 10_000; i++) {
      const now = monotonicMs();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    // Milliseconds, by the wall clock read around it (not a bound on how long anything takes: a busy machine moves
    // both readings alike): at least the 30 ms waited (less the wall clock's truncation), at most the wall time
    // read outside it.
    const outerStart = Date.now();
    const start = monotonicMs();
    const wall = Date.now();
    while (Date.now() - wall < 30) {
      /* 30 ms of the wall clock */
    }
    const elapsed = monotonicMs() - start;
    const outer = Date.now() - outerStart;
    expect(elapsed).toBeGreaterThanOrEqual(29);
    expect(elapsed).toBeLessThanOrEqual(outer + 1);
  });

  test('the precise wall clock is the wall clock, has sub-millisecond digits and never goes back', () => {
    const before = Date.now();
    const now = preciseNowMs();
    const after = Date.now();
    // Read once, the wall clock's millisecond is the origin: at most a millisecond behind it.
    expect(now).toBeGreaterThanOrEqual(before - 1);
    expect(now).toBeLessThanOrEqual(after + 1);
    let last = now;
    const fractions = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const t = preciseNowMs();
      expect(t).toBeGreaterThanOrEqual(last);
      fractions.add(Math.floor((t % 1) * 1000));
      last = t;
    }
    expect(fractions.size).toBeGreaterThan(1);
  });
});
