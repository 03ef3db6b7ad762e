import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, MAX_LISTED_FAULTS } from '../src/journal';
import { cli, expectNoStack, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

/**
 * Fault output is bounded whatever the journal holds (docs/journal.md, "Fault
 * output"): runs of one kind on consecutive lines collapse into one entry, the
 * list is capped with a count of what is left out, text and --json alike.
 */

// What verify prints is the point: through runCli in this process (`cliIn`, the code the bundle runs), but for the
// verify on worker threads, a real process with its thread settings in its environment.
const cliIn = (args: string[]): Promise<CliResult> => cliInProcess(args);
const root = tempDir();
const file = (name: string, bytes: Buffer | string): string => {
  const f = path.join(root, `${name}.jsonl`);
  writeFileSync(f, bytes);
  return f;
};
interface JsonVerdict {
  ok: boolean;
  steps: number;
  errors: { line: number | null; kind: string; last_line?: number; count?: number }[];
  fault_count: number;
  errors_omitted: number;
}

describe('bounded fault output', () => {
  it('ten million empty lines: one fault (no steps), one line of output', async () => {
    const f = file('empty', Buffer.alloc(10_000_000, 0x0a));
    const r = await cliIn(['verify', f]);
    expectNoStack(r);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([`${f}: empty_journal: journal has no steps (no line holds a row)`]);
    const j = JSON.parse((await cliIn(['verify', f, '--json'])).stdout) as JsonVerdict;
    expect(j).toMatchObject({ ok: false, steps: 0, fault_count: 1, errors_omitted: 0 });
  });

  it('a million garbage lines: one run', async () => {
    // A million, not two: a search for \r past its line to the end of the file (the quadratic walk this once was)
    // still reads ~10^12 bytes here, a time-out; the run and its count are the same at any length.
    const f = file('garbage', 'x\n'.repeat(1_000_000));
    const r = await cliIn(['verify', f]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    // The run, and nothing more: malformed lines get no empty_journal beside them (the reference's list).
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `${f}:1-1000000: malformed_json: 1,000,000 faults on consecutive lines, the first: expecting value at column 1`,
    );
    const j = JSON.parse((await cliIn(['verify', f, '--json'])).stdout) as JsonVerdict;
    expect(j.errors[0]).toEqual({
      line: 1,
      kind: 'malformed_json',
      message: 'expecting value at column 1',
      last_line: 1_000_000,
      count: 1_000_000,
    });
    // Malformed lines are their own faults and nothing more (no empty_journal: that is for blank lines alone).
    expect(j.fault_count).toBe(1_000_000);
  });

  it('faults that do not run together are listed up to the cap, and the rest counted', async () => {
    const f = file('alternating', 'x\n\n'.repeat(300_000));
    const r = await cliIn(['verify', f, '--json']);
    const j = JSON.parse(r.stdout) as JsonVerdict;
    expect(j.errors).toHaveLength(MAX_LISTED_FAULTS);
    expect(j.errors.some((e) => e.kind === 'empty_journal')).toBe(false);
    expect(j.fault_count).toBe(300_000);
    expect(j.errors_omitted).toBe(300_000 - MAX_LISTED_FAULTS);
    const text = (await cliIn(['verify', f])).stderr.trim().split('\n');
    expect(text).toHaveLength(MAX_LISTED_FAULTS + 1);
    expect(text.at(-1)).toBe(
      `${f}: … and ${(300_000 - MAX_LISTED_FAULTS).toLocaleString('en-US')} more faults not listed`,
    );
  });

  it("a deleted row makes every later row a seq_mismatch (the reference's count), listed as one run", () => {
    const dir = path.join(root, '.sdd', 'runtime', 'journal', 'long');
    const j = Journal.open(dir, { durability: 'none' });
    // 5,000 rows (~1.6 MB, not 20,000): STEPCHAIN_PARALLEL_MIN_BYTES=1 splits them into a slice per thread all the
    // same, three after the gap; writing the rows was most of this test's time.
    j.appendMany(Array.from({ length: 5_000 }, (_, i) => ({ prompt: `p${i}` })));
    const lines = require('node:fs').readFileSync(j.file, 'utf8').split('\n');
    lines.splice(5, 1);
    writeFileSync(j.file, lines.join('\n'));
    // Several slices on worker threads: the slices after the gap are walked again from the right position.
    const r = cli(['verify', j.file, '--json'], { env: { STEPCHAIN_THREADS: '4', STEPCHAIN_PARALLEL_MIN_BYTES: '1' } });
    const v = JSON.parse(r.stdout) as JsonVerdict;
    expect(v.errors).toEqual([
      { line: 6, kind: 'seq_mismatch', message: 'seq 6, expected 5', last_line: 4_999, count: 4_994 },
      { line: 6, kind: 'prev_hash_mismatch', message: expect.stringContaining('chain break') },
      // The writer's checkpoint recorded 5,000 steps: a deleted row is also a rollback (docs/journal.md, "Rollback").
      { line: null, kind: 'rollback', message: expect.stringContaining('recorded 5000 steps') },
    ]);
    expect(v.steps).toBe(4_999);
  });
});
