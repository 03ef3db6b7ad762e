import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

/**
 * A journal of 200,000 steps, each with its own blob ref, exports and its
 * receipt verifies: refs are collected without spreading them into a call
 * (`push(...refs)` dies past ~125,000 arguments on Node's default stack, so
 * 200,000 is past it with room to spare; more only cost time) (docs/journal.md).
 */
const STEPS = 200_000;
const root = tempDir();
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

function writeJournal(file: string, n: number): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, 'w');
  let prev = '0'.repeat(64);
  let buf: string[] = [];
  const input = sha('input');
  for (let i = 0; i < n; i++) {
    const payload = `{"input_hash":"${input}","model":null,"prev_hash":"${prev}","prompt":${i},"tool_call":null,"tool_result":null}`;
    const h = sha(payload);
    buf.push(
      `{"blob_refs":["${sha(`blob ${i}`)}"],"input_hash":"${input}","model":null,"prev_hash":"${prev}","prompt":${i},"seq":${i},"step_hash":"${h}","tool_call":null,"tool_result":null,"ts":1796000000.5}\n`,
    );
    prev = h;
    if (buf.length === 10_000) {
      writeSync(fd, buf.join(''));
      buf = [];
    }
  }
  writeSync(fd, buf.join(''));
  closeSync(fd);
}

it('export of 200,000 steps with blob refs, and receipt verify of it', async () => {
  writeJournal(path.join(root, '.sdd', 'runtime', 'journal', 'million', '000000.jsonl'), STEPS);
  const out = path.join(root, 'million.tar');
  // Through runCli in this process (`cliInProcess`): the size is the point, not the process; Jest's worker runs on
  // Node's default stack as the bin does, so a spread of the refs still dies here.
  const e = await cliInProcess(['export', 'million', '-o', out], { cwd: root });
  expectNoStack(e);
  expect(e.code).toBe(0);
  expect(e.stdout).toContain(`${STEPS} missing`);
  const v = await cliInProcess(['receipt', 'verify', out], { cwd: root });
  expectNoStack(v);
  expect(v.stdout).toMatch(new RegExp(`^OK .*: ${STEPS} steps`));
}, 600_000);
