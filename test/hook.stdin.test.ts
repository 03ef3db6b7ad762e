import { peakRss, type PeakRun } from './helpers/peak-rss';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { MAX_PAYLOAD_BYTES } from '../src/cli/commands/hook-agent';
import { readToEnd, TooLongError } from '../src/util/read-to-end';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * What a hook reads from its agent is bounded: a payload on stdin is read to its end up to MAX_PAYLOAD_BYTES, and
 * a writer that never stops is refused there in one line, never read until memory runs out.
 */
const tmp = tempDir('stepchain-hook-stdin-');

/** A shell pipeline run under Python, which reports the peak RSS (MB) of the processes it waited for. */
function pipeline(script: string): PeakRun {
  return peakRss(['sh', '-c', script], {
    cwd: tmp,
    env: { ...process.env, STEPCHAIN_AUDIT: 'off', NODE: process.execPath, CLI: cliPath },
  });
}

test('a payload that never ends (`yes |`) is refused at the bound: one line, exit 1 (never 2), memory bounded', () => {
  const r = pipeline('yes | "$NODE" "$CLI" hook claude');
  expect(r.code).toBe(1);
  expect(r.err).toBe(
    'stepchain: hook claude: cannot read the payload on stdin: more than 128 MiB: not read further; nothing recorded\n',
  );
  // 128 MiB held, and Node itself: never the whole stream (it has no end).
  expect(r.mb).toBeLessThan(400);
  expect(MAX_PAYLOAD_BYTES).toBe(128 * 1024 * 1024);
});

test('a payload under the bound, sent in pieces through a pipe, is read whole', () => {
  // One JSON object whose end comes last, after a pause: parsed whole, it is refused for what it lacks, not as cut.
  const r = pipeline(
    '(printf \'{"x":"\'; sleep 0.2; head -c 300000 /dev/zero | tr "\\0" a; printf \'"}\') | "$NODE" "$CLI" hook claude',
  );
  expect(r.code).toBe(1);
  expect(r.err).toBe('stepchain: hook claude: <stdin>: hook payload has no hook_event_name\n');
});

describe('readToEnd', () => {
  test('a file of any size up to the bound is read whole, one byte more is refused (property)', () => {
    const file = path.join(tmp, 'bytes');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300_000 }), fc.integer({ min: 0, max: 300_000 }), (size, max) => {
        const bytes = Buffer.alloc(size, `pattern ${size} `);
        writeFileSync(file, bytes);
        const fd = openSync(file, 'r');
        try {
          if (size <= max) expect(readToEnd(fd, max).equals(bytes)).toBe(true);
          else expect(() => readToEnd(fd, max)).toThrow(TooLongError);
        } finally {
          closeSync(fd);
        }
      }),
      { numRuns: 60 },
    );
  });

  test('with no bound, the whole file', () => {
    const file = path.join(tmp, 'whole');
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
    writeFileSync(file, bytes);
    const fd = openSync(file, 'r');
    try {
      expect(readToEnd(fd).equals(bytes)).toBe(true);
    } finally {
      closeSync(fd);
    }
  });
});

test('a payload written in small pieces by a slow writer is read whole without reserving memory per piece', () => {
  // 800 pieces of 100 bytes, each its own read: a reader that kept each as a view of a fresh 16 MiB buffer reserved
  // ~16 MiB of address space a read (3,000 pieces: 30 GB for 300 KB), and under this 4 GB limit failed (Array buffer
  // allocation failed) with 300 pieces, not 200 (measured); the reader as it is peaks at ~1 GB. (3,000 pieces under
  // a 16 GB limit showed the same, at four times the writer's wake-ups and the reader's reads.)
  const writer = path.join(tmp, 'slow-writer.mjs');
  writeFileSync(
    writer,
    "let i = 0;\nconst next = () => { if (i++ < 800) process.stdout.write('x'.repeat(100), () => setTimeout(next, 1)); };\nnext();\n",
  );
  const r = pipeline(`ulimit -v 4000000; "$NODE" ${JSON.stringify(writer)} | "$NODE" "$CLI" hook claude`);
  expect(r.code).toBe(1);
  // Read to its end (80,000 bytes of x), then refused for what it is.
  expect(r.err).toBe('stepchain: hook claude: <stdin>: hook payload is not JSON: expecting value at column 1\n');
});
