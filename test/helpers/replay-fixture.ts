import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { float } from '../../src/canonical';
import { Journal, journalDir, type StepInput } from '../../src/journal';

/** A temporary git project for replay tests, removed after the file's tests. */
export function replayProject(prefix = 'stepchain-replay-'): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(path.join(root, 'README.md'), '# demo\n');
  writeFileSync(path.join(root, '.gitignore'), '.sdd/\n');
  const git = (args: string[]): void => {
    execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  };
  git(['init', '-q', '-b', 'main']);
  git(['add', '-A']);
  git(['-c', 'user.name=t', '-c', 'user.email=t@stepchain.invalid', 'commit', '-q', '-m', 'initial']);
  return root;
}

/** The sample run used by the replay tests: five steps with inputs, a blob, nested tool calls. */
export const SAMPLE: StepInput[] = [
  {
    model: 'model-a',
    prompt: 'The test suite fails. Find out why.',
    tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
    tool_result: { exit_code: 1, stdout: 'FAILED tests/test_calc.py::test_add' },
    input: Buffer.from('user turn 0\n'),
    ts: 1700000000.5,
  },
  {
    model: 'model-a',
    prompt: 'Read the implementation of add().',
    tool_call: { name: 'read_file', args: { path: 'src/calc.py' } },
    tool_result: { content: 'def add(a, b):\n    return a - b\n' },
    input: Buffer.from('user turn 1\n'),
    blobs: [Buffer.from('attachment: calc.py contents\n')],
    ts: 1700000001.25,
  },
  {
    model: 'model-b',
    prompt: 'Fix the bug in add().',
    tool_call: { name: 'edit_file', args: { path: 'src/calc.py', old: 'a - b', new: 'a + b' } },
    tool_result: { ok: true, ratio: float(1) },
    input: Buffer.from('user turn 2\n'),
    ts: 1700000002,
  },
  {
    model: 'model-b',
    prompt: 'Run the tests again.',
    tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
    tool_result: { exit_code: 0, stdout: '1 passed in 0.01s', big: 123456789012345678901234567890n },
    input: Buffer.from('user turn 3\n'),
    ts: 1700000003.75,
  },
  {
    model: 'model-b',
    prompt: 'Summarise the change. Résumé ✓ 日本語',
    tool_call: null,
    tool_result: { summary: Array.from({ length: 30 }, (_, i) => `line ${i} of a long summary`).join('\n') },
    input: Buffer.from('user turn 4\n'),
    ts: 1700000004,
  },
];

/** Records `steps` for `agent` under `root` and returns the journal file. */
export function record(root: string, agent: string, steps: StepInput[] = SAMPLE): string {
  const j = Journal.open(journalDir(root, agent), { durability: 'none' });
  j.appendMany(steps);
  return j.file;
}
