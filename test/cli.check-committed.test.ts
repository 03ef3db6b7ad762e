/**
 * `stepchain check --committed` judges what HEAD commits, as the Action does (src/check/committed.ts, the library's
 * `committed` option: one rule for both doors); without it the check judges the work tree, as a check before
 * committing must (uncommitted appends included). The repositories are real, the CLI is the built bin, and the
 * Action's own verdict on the same commit is compared with the CLI's, fault for fault.
 */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { actionTestBed, appendSteps, journalPath } from './helpers/action';
import { inProcessOnPr } from './helpers/action-in-process';
import { cli, expectNoStack } from './helpers/cli';
import { commitAll, emptyRepo, git } from './helpers/git';
import { tempDir } from './helpers/tmp';

const { tmp, scratch, scenario } = actionTestBed('stepchain-cli-check-committed-');
const inPr = inProcessOnPr(scratch);
const ALICE = journalPath('alice');
const bare = tempDir('stepchain-cli-check-committed-bare-');

interface Fault {
  kind: string;
  path: string;
  message: string;
}
const faultsOf = (stdout: string): Fault[] => (JSON.parse(stdout) as { faults: Fault[] }).faults;

/** The working-tree-encoding rewrite of action.committed.test.ts: a valid append checked out over other bytes. */
function encodedAppend(): { dir: string; base: string } {
  const s = scenario();
  appendSteps(s.dir, 'alice', 2);
  writeFileSync(path.join(s.dir, '.gitattributes'), `${ALICE} working-tree-encoding=IBM037\n`);
  commitAll(s.dir, 'PR: append, and a working-tree encoding');
  expect(git(s.dir, ['cat-file', 'blob', `HEAD:${ALICE}`]).includes('"seq"')).toBe(false);
  return s;
}

test('a .gitattributes working-tree-encoding rewrite fails check --committed with not_committed, as the Action', async () => {
  const { dir, base } = encodedAppend();
  const r = cli(['check', '--committed', '--base', base], { cwd: dir });
  expect(r.code).toBe(1);
  expectNoStack(r);
  expect(r.stdout).toContain(`FAIL journal ${ALICE}`);
  expect(r.stderr).toContain(`${ALICE}: agent alice: the checked-out bytes are not the blob the commit`);

  const json = cli(['check', '--committed', '--base', base, '--json'], { cwd: dir });
  expect(json.code).toBe(1);
  const faults = faultsOf(json.stdout).filter((f) => f.kind === 'not_committed');
  expect(faults.map((f) => f.path)).toEqual([ALICE]);
  // The Action on the same commit: the same fault, worded the same.
  const action = await inPr(dir, base);
  expect(action.code).toBe(1);
  const annotated = action.annotations.filter((a) => a.title === 'stepchain: not_committed');
  expect(annotated.map((a) => [a.file, a.message])).toEqual(faults.map((f) => [f.path, f.message]));

  // Without --committed the work tree is judged (docs/action.md, "The CLI"): its bytes are a valid append, so it
  // passes; that is the check before committing, not the check of a commit.
  const tree = cli(['check', '--base', base, '--provenance', 'off'], { cwd: dir });
  expect(tree.stderr).toBe('');
  expect(tree.code).toBe(0);
});

test("a journal moved into a submodule fails check --committed (another repository's files), and passes the work tree", () => {
  const { dir, base } = scenario();
  appendSteps(dir, 'alice', 2);
  const other = emptyRepo(path.join(tmp, 'other'));
  copyFileSync(path.join(dir, ALICE), path.join(other, '000000.jsonl'));
  commitAll(other, 'the journal, appended to');
  git(dir, ['checkout', '-q', '--', '.']);
  git(dir, ['rm', '-q', '-r', '--cached', path.dirname(ALICE)]);
  rmSync(path.join(dir, path.dirname(ALICE)), { recursive: true });
  git(dir, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', other, path.dirname(ALICE)]);
  commitAll(dir, 'PR: alice into a submodule');

  const r = cli(['check', '--committed', '--base', base, '--json'], { cwd: dir });
  expect(r.code).toBe(1);
  const f = faultsOf(r.stdout).find((x) => x.kind === 'not_committed');
  expect(f).toMatchObject({ path: ALICE });
  expect(f!.message).toContain('inside the submodule .sdd/runtime/journal/alice');
  expect(cli(['check', '--base', base], { cwd: dir }).code).toBe(0);
});

test('uncommitted appends pass the work-tree check and fail --committed; once committed, both pass', () => {
  const { dir, base } = scenario();
  appendSteps(dir, 'alice', 2);
  expect(cli(['check', '--base', base], { cwd: dir }).code).toBe(0);
  const r = cli(['check', '--committed', '--base', base], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${ALICE}: agent alice: the checked-out bytes are not the blob the commit`);
  // A journal HEAD does not hold at all (new, untracked) is read as it is, as by the Action.
  appendSteps(dir, 'carol', 1);
  commitAll(dir, 'PR: append');
  appendSteps(dir, 'dave', 1);
  git(dir, ['reset', '-q', '--', '.sdd/runtime/journal/dave']);
  const ok = cli(['check', '--committed', '--base', base], { cwd: dir });
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('journal .sdd/runtime/journal/dave/000000.jsonl: 1 step,');
});

test('--committed where there is no HEAD commit: one line, exit 2', () => {
  const dir = bare;
  appendSteps(dir, 'alice', 1);
  const r = cli(['check', '--committed'], { cwd: dir });
  expect(r.code).toBe(2);
  expectNoStack(r);
  expect(r.stderr).toBe(
    `stepchain: --committed: ${dir} has no HEAD commit to judge (not a git repository, or nothing committed)\n`,
  );
});
