import { runCli } from '../src/cli/main';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeContext } from '../src/cli/demo/context';
import { demoFork } from '../src/cli/demo/fork';
import { demoJournal } from '../src/cli/demo/journal';
import { SAMPLE_FILES } from '../src/cli/demo/sample';
import { journalFile } from '../src/journal';
import { git, initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-fork-demo-');

// npm start's fork section, over the journal section's sample run, in a project set up as runDemo does.
test('the demo forks at step 1: the files of step 1, the parent prefix, a step of its own, the tree', async () => {
  const root = initRepo(path.join(tmp, 'project'), SAMPLE_FILES);
  const env = {
    ...process.env,
    STEPCHAIN_AUDIT: 'off',
    GIT_AUTHOR_NAME: 'stepchain demo',
    GIT_AUTHOR_EMAIL: 'demo@stepchain.invalid',
    GIT_COMMITTER_NAME: 'stepchain demo',
    GIT_COMMITTER_EMAIL: 'demo@stepchain.invalid',
  };
  let out = '';
  const ctx = makeContext(root, env, (s) => void (out += s), runCli);
  await demoJournal(ctx);
  await demoFork(ctx);
  const section = out.slice(out.indexOf('== Fork the run at step 1'));
  expect(section).toContain(
    'src/calc.py in the fork (the files of step 1):\n  def add(a, b):\n      return a - b  # bug: should add\n',
  );
  expect(section).toContain('src/calc.py in the main tree (fixed at step 2):\n  def add(a, b):\n      return a + b\n');
  expect(section).toMatch(
    /\$ stepchain verify fork-try-another-fix-\S+ --root \S+\n {2}OK \S+: 3 steps, head [0-9a-f]{64}\n {2}\(exit 0\)/,
  );
  expect(section).toMatch(
    /\$ stepchain forks\n {2}agent-demo\n {2}└── fork-try-another-fix-\S+ {2}"try another fix" {2}from step 1 {2}\+1 step since {2}files of step 1\n/,
  );
  expect(section).not.toMatch(/warning/);

  const id = /fork-try-another-fix-\d{8}-\d{6}-[0-9a-f]{6}/.exec(section)![0];
  const wt = path.join(root, '.sdd', 'worktrees', id);
  const parent = readFileSync(journalFile(root, 'agent-demo'), 'utf8').split('\n');
  const fork = readFileSync(journalFile(wt, id), 'utf8').split('\n');
  expect(fork.slice(0, 2)).toEqual(parent.slice(0, 2));
  expect(JSON.parse(fork[2]!).prev_hash).toBe(JSON.parse(parent[1]!).step_hash);
  // The main tree's checkout is untouched by snapshots and the fork.
  expect(git(root, ['status', '--porcelain'])).toBe('M src/calc.py');
  expect(git(root, ['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('main');
});
