import { existsSync, writeSync } from 'node:fs';
import { sleepMs } from './time';

/**
 * Test-only pause points (docs/journal.md, "Testing crashes"): with
 * `STEPCHAIN_TEST_PAUSE=<name>[,<name>...]` in the environment, the process
 * prints `stepchain: paused at <name> (pid <pid>)` on stderr when it reaches
 * that point and waits there until it is killed, so a test can SIGKILL it at
 * an exact stage (between two writes of a fork, after a row but before its
 * checkpoint, while holding a lock). With `STEPCHAIN_TEST_RESUME=<file>` too,
 * it carries on once that file exists (so a test can change something at that
 * exact stage and let the process finish). Without the variables it costs one
 * lookup.
 */
export function pausePoint(name: string, env: NodeJS.ProcessEnv = process.env): void {
  const want = env.STEPCHAIN_TEST_PAUSE;
  if (want === undefined || want === '' || !want.split(',').includes(name)) return;
  writeSync(2, `stepchain: paused at ${name} (pid ${process.pid})\n`);
  const resume = env.STEPCHAIN_TEST_RESUME;
  if (resume !== undefined && resume !== '') {
    while (!existsSync(resume)) sleepMs(20);
    return;
  }
  for (;;) sleepMs(1000);
}
