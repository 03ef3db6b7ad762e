/**
 * What a pull request's check compares with, attacked from outside (the cases an attacker found, each a class):
 * - a head that merged two base commits that are not ancestors of each other (a criss-cross) has two merge bases,
 *   and history compared with one of them let the head rewrite what the other holds: both doors compare with each;
 * - a checkout that is neither the PR's head nor built on it (pull_request_target's default, the base branch)
 *   checked none of the PR's files and said so green: it fails, named;
 * - a journal path with an escape sequence reached the log raw through an annotation's `file=` property;
 * - journal ids that are names of Object.prototype (`__proto__`, `constructor`, `toString`) lost or invented pins
 *   and heads.
 * Real repositories; the CLI as a process where its exit and streams are the point (a forgery refused: exit 1, no
 * stack), runCli in this process where what the check finds is (a CLI start was ~70 ms of CPU each); the Action's
 * run() in process and (for what only its stdout shows) as the bundle.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { actionTestBed, appendSteps, eventFixture, journalPath, prScenario, runAction } from './helpers/action';
import { runInProcess } from './helpers/action-in-process';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { commitAll, emptyRepo, git } from './helpers/git';

const { tmp, scratch } = actionTestBed('stepchain-check-pr-bases-');
let n = 0;
const ALICE = journalPath('alice');
const head = (dir: string): string => git(dir, ['rev-parse', 'HEAD']);

/**
 * main: C0 (alice 2 rows, app.txt v1) - C2 (alice 5 rows, app.txt v2) - M, M merging a side branch from C0 (C1,
 * adding s.txt); the branch `pr` starts at C1 and merges C2, so main and pr have two merge bases, C1 and C2.
 */
function crissCross(): { dir: string; main: string; c1: string; c2: string } {
  const dir = emptyRepo(path.join(tmp, `criss-${++n}`));
  appendSteps(dir, 'alice', 2);
  writeFileSync(path.join(dir, 'app.txt'), 'v1\n');
  commitAll(dir, 'C0');
  const c0 = head(dir);
  appendSteps(dir, 'alice', 3);
  writeFileSync(path.join(dir, 'app.txt'), 'v2\n');
  const c2 = commitAll(dir, 'C2');
  git(dir, ['checkout', '-q', '-b', 'side', c0]);
  writeFileSync(path.join(dir, 's.txt'), 's\n');
  const c1 = commitAll(dir, 'C1');
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['merge', '-q', '--no-ff', '-m', 'M', 'side']);
  git(dir, ['checkout', '-q', '-b', 'pr', c1]);
  git(dir, ['merge', '-q', '--no-ff', '-m', 'm2', c2]);
  return { dir, main: git(dir, ['rev-parse', 'main']), c1, c2 };
}

/**
 * alice's rows 2-4 replaced by rows that chain as well (rows 0-1 copied to a project of its own, where no
 * checkpoint remembers the longer journal, three rows appended there, the file copied back).
 */
function forgeFromRow2(dir: string): void {
  const file = path.join(dir, ALICE);
  const rows = readFileSync(file, 'utf8').split('\n').slice(0, 2);
  const elsewhere = path.join(tmp, `forge-${++n}`);
  mkdirSync(path.dirname(path.join(elsewhere, ALICE)), { recursive: true });
  writeFileSync(path.join(elsewhere, ALICE), `${rows.join('\n')}\n`);
  appendSteps(elsewhere, 'alice', 3, 'FORGED');
  writeFileSync(file, readFileSync(path.join(elsewhere, ALICE)));
}

describe('a criss-cross history: compared with every merge base', () => {
  test('a rewrite of what one merge base holds fails the CLI and the Action; an append passes both', async () => {
    const { dir, main, c1, c2 } = crissCross();
    const bases = git(dir, ['merge-base', '--all', 'main', 'HEAD']).split('\n').sort();
    expect(bases).toEqual([c1, c2].sort());
    const pr = head(dir);

    // The honest PR: one more row.
    appendSteps(dir, 'alice', 1, 'pr');
    commitAll(dir, 'PR: append');
    const ok = await cliInProcess(['check', '--base', 'main'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain('and with its other merge bases');
    // Provenance takes what the PR changes against the virtual base of its two merge bases: neither s.txt (the base
    // branch's, through C1's side) nor app.txt (through C2's) is the PR's.
    expect(ok.stderr).not.toContain('warning');
    const okAction = await runInProcess({
      workspace: dir,
      scratch,
      event: eventFixture('pull_request', { base: main, head: head(dir) }),
    });
    expect(okAction.code).toBe(0);
    expect(okAction.stdout).toContain('other merge bases');

    // The forgery: rows 2-4 (on main since C2) rewritten, chaining again.
    git(dir, ['reset', '-q', '--hard', pr]);
    forgeFromRow2(dir);
    commitAll(dir, 'PR: forged');
    const bad = cli(['check', '--base', 'main'], { cwd: dir });
    expectNoStack(bad);
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toContain('agent alice: history rewritten from seq 2 (line 3)');
    // git lists the two merge bases in either order: C2's rows are the ones rewritten, named when C2 is the other one.
    const primary = /compared with where it branched from it, ([0-9a-f]{12})/.exec(bad.stderr)![1];
    expect([c1.slice(0, 12), c2.slice(0, 12)]).toContain(primary);
    if (primary === c1.slice(0, 12)) expect(bad.stderr).toContain(`against the merge base ${c2.slice(0, 12)}`);
    else expect(bad.stderr).not.toContain('against the merge base');
    const badAction = await runInProcess({
      workspace: dir,
      scratch,
      event: eventFixture('pull_request', { base: main, head: head(dir) }),
    });
    expect(badAction.code).toBe(1);
    expect(badAction.annotations.find((a) => a.title === 'stepchain: history_rewritten')).toMatchObject({
      file: ALICE,
      line: 3,
    });
  });
});

/** A commit of everything at a given day (git lists merge bases newest first: the test chooses which is first). */
function commitOn(dir: string, day: number, message: string, args: string[] = []): string {
  const date = `2020-01-0${day}T00:00:00Z`;
  const env = { ...process.env, GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date };
  git(dir, ['add', '-A'], env);
  git(dir, args.length > 0 ? args : ['commit', '-q', '--allow-empty', '-m', message], env);
  return head(dir);
}

test("a journal renamed to a file holding one merge base's rows loses the other's: deleted, whichever base is first", async () => {
  const dir = emptyRepo(path.join(tmp, `rename-${++n}`));
  appendSteps(dir, 'x', 1);
  commitOn(dir, 1, 'M');
  git(dir, ['checkout', '-q', '-b', 'feat']);
  appendSteps(dir, 'x', 1, 'feat');
  commitOn(dir, 2, 'B: x has 2 rows');
  git(dir, ['checkout', '-q', 'main']);
  writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  const a = commitOn(dir, 3, 'A: x has 1 row (the newer merge base, listed first)');
  commitOn(dir, 4, '', ['merge', '-q', '--no-ff', 'feat', '-m', 'T']);
  git(dir, ['checkout', '-q', '-b', 'pr', 'feat']);
  commitOn(dir, 5, '', ['merge', '-q', '--no-ff', a, '-m', 'H']);
  // x becomes y, holding A's one row: a rename against A, a deletion of B's second row.
  const y = path.join(dir, journalPath('y'));
  mkdirSync(path.dirname(y), { recursive: true });
  writeFileSync(y, git(dir, ['show', `${a}:${journalPath('x')}`]) + '\n');
  git(dir, ['rm', '-q', '-r', path.dirname(journalPath('x'))]);
  commitOn(dir, 6, "x -> y, A's row only");
  expect(git(dir, ['merge-base', '--all', 'main', 'HEAD']).split('\n')[0]).toBe(a);
  const r = await cliInProcess(['check', '--base', 'main'], { cwd: dir });
  expectNoStack(r);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/FAIL +journal \.sdd\/runtime\/journal\/x\/000000\.jsonl/);
});

test('provenance: a file deleted by hand, seen against one merge base as the source of a rename, is listed', async () => {
  const dir = emptyRepo(path.join(tmp, `renamed-away-${++n}`));
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join('');
  writeFileSync(path.join(dir, 'x.txt'), lines);
  appendSteps(dir, 'x', 1);
  commitAll(dir, 'M');
  git(dir, ['checkout', '-q', '-b', 'a']);
  writeFileSync(path.join(dir, 'x.txt'), `${lines}a\n`);
  commitAll(dir, 'A');
  git(dir, ['checkout', '-q', 'main', '-b', 'b']);
  writeFileSync(path.join(dir, 'f.txt'), `${lines}b\n`);
  commitAll(dir, 'B');
  git(dir, ['checkout', '-q', '-B', 'main', 'a']);
  git(dir, ['merge', '-q', '--no-ff', 'b', '-m', 'T']);
  git(dir, ['checkout', '-q', '-b', 'pr', 'b']);
  git(dir, ['merge', '-q', '--no-ff', 'a', '-m', 'H']);
  git(dir, ['rm', '-q', 'x.txt']);
  commitAll(dir, 'delete x.txt by hand');
  const r = await cliInProcess(['check', '--base', 'main', '--provenance', 'error'], { cwd: dir });
  expectNoStack(r);
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).toContain('x.txt');
  expect(r.stdout + r.stderr).not.toContain('f.txt');
});

describe('provenance over a criss-cross history', () => {
  test("a revert of what one merge base's side brought is the PR's change; the other side's files are not", async () => {
    const { dir } = crissCross();
    writeFileSync(path.join(dir, 'app.txt'), 'v1\n');
    commitAll(dir, 'PR: revert app.txt');
    const r = await cliInProcess(['check', '--base', 'main'], { cwd: dir });
    expectNoStack(r);
    expect(r.stderr).toContain('warning: app.txt: this content was produced by no verified recorded step');
    expect(r.stderr).not.toContain('s.txt');
  });
});

describe("a checkout that does not hold the PR's head", () => {
  test('on the base branch both PR events fail, named; a commit built on the head and the shallow merge commit pass', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 1, 'pr');
    const prHead = commitAll(dir, 'PR: append');
    git(dir, ['checkout', '-q', 'main']);
    for (const name of ['pull_request_target', 'pull_request'] as const) {
      const r = await runInProcess({ workspace: dir, scratch, event: eventFixture(name, { base, head: prHead }) });
      expect(r.code).toBe(1);
      const failed = r.annotations.find((a) => a.level === 'error' && a.title === undefined);
      expect(failed!.message).toContain(`${name}: the checkout (${base.slice(0, 12)}) is not the pull request's head`);
      expect(failed!.message).toContain("the PR's files were NOT checked");
      expect(r.summary).toContain('NOT checked');
    }
    // Built on the head (a local merge of the base into it, as a rebase or merge step would leave): checked.
    git(dir, ['checkout', '-q', '-b', 'local', prHead]);
    writeFileSync(path.join(dir, 'note.txt'), 'n\n');
    commitAll(dir, 'on top of the head');
    const built = await runInProcess({
      workspace: dir,
      scratch,
      event: eventFixture('pull_request', { base, head: prHead }),
    });
    expect(built.code).toBe(0);
    // actions/checkout's default: the merge commit alone, fetched at depth 1 (its parents named by its object, not
    // in the clone).
    git(dir, ['checkout', '-q', '--detach', base]);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'merge', prHead]);
    git(dir, ['update-ref', 'refs/pull/7/merge', 'HEAD']);
    git(dir, ['config', 'uploadpack.allowAnySHA1InWant', 'true']);
    const shallow = path.join(tmp, `shallow-merge-${n}`);
    git(tmp, ['init', '-q', shallow]);
    git(shallow, ['remote', 'add', 'origin', `file://${dir}`]);
    git(shallow, ['fetch', '-q', '--depth=1', 'origin', '+refs/pull/7/merge:refs/remotes/pull/7/merge']);
    git(shallow, ['checkout', '-q', 'refs/remotes/pull/7/merge']);
    const merged = await runInProcess({
      workspace: shallow,
      scratch,
      event: eventFixture('pull_request', { base, head: prHead }),
    });
    expect(merged.annotations).toEqual([]);
    expect(merged.code).toBe(0);
  });
});

describe('data in annotation properties', () => {
  test("a journal path's escape sequence never reaches the log raw (the bundle's stdout)", async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    const bad = path.join(dir, '.sdd/runtime/journal/f\x1b[31m');
    mkdirSync(bad, { recursive: true });
    writeFileSync(path.join(bad, '000000.jsonl'), 'garbage\n');
    commitAll(dir, 'PR: a hostile name');
    const r = await runAction({
      workspace: dir,
      scratch,
      event: eventFixture('pull_request', { base, head: head(dir) }),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('\x1b');
    expect(r.annotations.find((a) => a.title === 'stepchain: malformed_json')!.file).toBe(
      '.sdd/runtime/journal/f\\x1b[31m/000000.jsonl',
    );
  });
});

describe('journal ids that name members of Object.prototype', () => {
  test('pins and heads of __proto__, constructor and toString are their own', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    for (const id of ['constructor', 'toString']) appendSteps(dir, id, 2);
    commitAll(dir, 'PR: more journals');
    const event = (): { name: string; payload: unknown } => eventFixture('pull_request', { base, head: head(dir) });
    // A pin of a journal that does not exist fails, named, whatever its id.
    const ghost = await runInProcess({
      workspace: dir,
      scratch,
      event: event(),
      inputs: { 'expected-heads': JSON.stringify({ ['__proto__']: 'a'.repeat(64) }) },
    });
    expect(ghost.code).toBe(1);
    expect(ghost.annotations.map((a) => a.message).join('\n')).toContain(
      'agent __proto__: a head is pinned (' + 'a'.repeat(64) + ') but no journal for this agent was found',
    );
    // Unpinned journals are not compared with a member of the prototype.
    expect(ghost.annotations.map((a) => a.message).join('\n')).not.toMatch(/native code|object Object/);

    appendSteps(dir, '__proto__', 2);
    commitAll(dir, 'PR: __proto__');
    const free = await runInProcess({ workspace: dir, scratch, event: event() });
    expect(free.code).toBe(0);
    const heads = JSON.parse(free.outputs['heads']!) as Record<string, string>;
    expect(Object.keys(heads).sort()).toEqual(['__proto__', 'alice', 'bob', 'constructor', 'toString']);
    // Its heads, fed back as pins, hold; one changed pin fails that journal only.
    const pinned = await runInProcess({
      workspace: dir,
      scratch,
      event: event(),
      inputs: { 'expected-heads': free.outputs['heads']! },
    });
    expect(pinned.code).toBe(0);
    const wrong = JSON.parse(free.outputs['heads']!) as Record<string, string>;
    Object.defineProperty(wrong, '__proto__', { value: 'b'.repeat(64), enumerable: true });
    const mismatch = await runInProcess({
      workspace: dir,
      scratch,
      event: event(),
      inputs: { 'expected-heads': JSON.stringify(wrong) },
    });
    expect(mismatch.code).toBe(1);
    const faults = mismatch.annotations.filter((a) => a.title === 'stepchain: head_mismatch');
    expect(faults.map((a) => a.file)).toEqual([journalPath('__proto__')]);
  });
});
