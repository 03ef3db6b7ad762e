/**
 * docs/record.md: "The journal ID must not exist: its seqs are the exchanges' indices, which a replay names." A
 * recording that made no model call writes no journal, but it does write the run journal (its `proxy.start`, naming
 * the start snapshot) and the start snapshot's ref. A second `record` under that id must be refused like an existing
 * journal: run through, it chained a second `proxy.start` after the first and moved the start ref, so that
 * `fork --replay` (which reads the first `proxy.start`) found its snapshot "not what its ref holds" and refused.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cli, expectNoStack } from './helpers/cli';
import { git, initRepo } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-record-reuse-');

test('record refuses an id whose run journal exists, even when the earlier recording made no exchange', () => {
  const root = initRepo(freshDir(tmp), { 'a.txt': 'a\n' });
  // No model call: `true` exits at once; the upstream is never contacted.
  const args = ['record', '--agent', 'claude', '--journal', 'rec', '--upstream', 'http://127.0.0.1:9', '--', 'true'];
  const first = cli(args, { cwd: root });
  expectNoStack(first);
  expect(first.code).toBe(0);
  const runFile = path.join(root, '.sdd', 'runs', 'rec', 'journal.jsonl');
  const before = readFileSync(runFile);
  const ref = git(root, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/stepchain/snapshots/rec/']);
  expect(ref).toMatch(/\/start$/);

  const second = cli(args, { cwd: root });
  expectNoStack(second);
  expect(second.code).toBe(2);
  expect(second.stderr).toContain(runFile);
  expect(second.stderr.trim().split('\n')).toHaveLength(1);
  // Nothing was written: the run journal and the start ref are the first recording's.
  expect(readFileSync(runFile)).toEqual(before);
  expect(git(root, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/stepchain/snapshots/rec/'])).toBe(ref);
});
