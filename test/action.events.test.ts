/**
 * The Action holds on every event it is run on: the built dist/index.js with the
 * event payloads of test/fixtures/events (push, forced push, a new branch,
 * merge_group, pull_request_target), against real repositories, clones and
 * shallow clones served over file://. The first push test's failing run is the
 * bundle (the payload read from GITHUB_EVENT_PATH, exit code 1, no stack); the rest run the
 * Action's `run()` in this process with the same payloads and assertions
 * (helpers/action-in-process.ts).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportReceipt } from '../src/receipt';
import {
  actionTestBed,
  appendSteps,
  eventFixture,
  failureOf,
  journalPath,
  prScenario,
  runAction,
  stackIn,
} from './helpers/action';
import { runInProcess } from './helpers/action-in-process';
import { commitAll, emptyRepo, git } from './helpers/git';

const { tmp, scratch } = actionTestBed('stepchain-action-events-');
let n = 0;

const ALICE = journalPath('alice');
const head = (dir: string): string => git(dir, ['rev-parse', 'HEAD']);

function rewriteStep(dir: string, from: string, to: string): void {
  const file = path.join(dir, ALICE);
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
}

describe('push', () => {
  test('before..after: an append passes, a rewrite fails at its line', async () => {
    const dir = emptyRepo(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 4);
    const before = commitAll(dir, 'journals');
    appendSteps(dir, 'alice', 2);
    const after = commitAll(dir, 'append');
    // The pass is the Action's logic (run() in this process); the failing run below is the bundle's process.
    const ok = await runInProcess({ workspace: dir, scratch, event: eventFixture('push', { before, head: after }) });
    expect(ok.code).toBe(0);
    expect(ok.summary).toContain(`append-only checked against base <code>${before.slice(0, 12)}</code>`);

    rewriteStep(dir, 'x result 1', 'x result one');
    const bad = commitAll(dir, 'rewrite');
    const r = await runAction({ workspace: dir, scratch, event: eventFixture('push', { before: after, head: bad }) });
    expect(r.code).toBe(1);
    expect(stackIn(r)).toBe(false);
    expect(r.annotations.find((a) => a.title === 'stepchain: history_rewritten')).toMatchObject({
      file: ALICE,
      line: 2,
    });
  });

  test('a forced push that rewrote a journal fails; the commit before it is fetched although no branch has it', async () => {
    const origin = emptyRepo(path.join(tmp, `origin-${++n}`));
    git(origin, ['config', 'uploadpack.allowAnySHA1InWant', 'true']); // as GitHub serves any commit by id
    appendSteps(origin, 'alice', 4);
    appendSteps(origin, 'bob', 2);
    const before = commitAll(origin, 'journals');
    // History rewritten: an orphan commit whose alice is a different, internally valid chain.
    git(origin, ['checkout', '-q', '--orphan', 'rewritten']);
    rmSync(path.join(origin, '.sdd'), { recursive: true });
    appendSteps(origin, 'alice', 4, 'other');
    appendSteps(origin, 'bob', 2);
    const after = commitAll(origin, 'force-pushed history');
    git(origin, ['branch', '-f', 'main', after]);
    git(origin, ['checkout', '-q', 'main']);
    git(origin, ['branch', '-D', 'rewritten']);
    git(origin, ['reflog', 'expire', '--expire=now', '--all']);

    const clone = path.join(tmp, `clone-${++n}`);
    git(tmp, ['clone', '-q', '--depth=1', `file://${origin}`, clone]);
    const r = await runInProcess({
      workspace: clone,
      scratch,
      event: eventFixture('push-forced', { before, head: after }),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `push: a forced push; the journals are compared with the commit before it (${before.slice(0, 12)})`,
    );
    expect(r.stdout).toContain(`Fetched the base commit ${before}`);
    expect(r.annotations.find((a) => a.title === 'stepchain: history_rewritten')).toMatchObject({
      file: ALICE,
      line: 1,
    });
    expect(r.summary).toContain('a forced push');
    expect(failureOf(r)).toMatch(/^stepchain: verification failed: 1 fault in 1 file; first: /);
  });

  test('a forced push that only rewrote other history (journals appended to) passes', async () => {
    const dir = emptyRepo(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 3);
    writeFileSync(path.join(dir, 'README'), 'one\n');
    const before = commitAll(dir, 'journals');
    git(dir, ['reset', '-q', '--soft', 'HEAD']);
    appendSteps(dir, 'alice', 1);
    writeFileSync(path.join(dir, 'README'), 'amended\n');
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '--amend', '-m', 'journals (amended)']);
    const after = head(dir);
    const r = await runInProcess({
      workspace: dir,
      scratch,
      event: eventFixture('push-forced', { before, head: after }),
    });
    expect(r.code).toBe(0);
    expect(r.summary).toContain(`append-only checked against base <code>${before.slice(0, 12)}</code>`);
  });

  test('a new branch has no commit before it: checked, and the summary says append-only was not', async () => {
    const dir = emptyRepo(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 2);
    const after = commitAll(dir, 'journals');
    const r = await runInProcess({ workspace: dir, scratch, event: eventFixture('push-new-branch', { head: after }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('push: a new branch or tag has no previous commit; append-only is not checked');
    expect(r.summary).toContain('append-only not checked');
    expect(r.outputs['verified']).toBe('1');
  });
});

/** The merge queue's commit: the PR merged onto main (reset to `base` first, when given). */
function mergeQueued(dir: string, base?: string): void {
  git(dir, ['checkout', '-q', 'main']);
  if (base !== undefined) git(dir, ['reset', '-q', '--hard', base]);
  git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #7', 'pr']);
}

/** The Action run on the merge queue's commit, its base being `base`. */
const onMergeGroup = (dir: string, base: string) =>
  runInProcess({ workspace: dir, scratch, event: eventFixture('merge_group', { base, head: head(dir) }) });

describe('merge_group', () => {
  test("compared with the queue's base_sha: an append passes, a rewrite fails", async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 2);
    commitAll(dir, 'append');
    // The merge queue's commit: the PR merged onto main.
    mergeQueued(dir);
    const ok = await onMergeGroup(dir, base);
    expect(ok.code).toBe(0);
    expect(ok.summary).toContain(`append-only checked against base <code>${base.slice(0, 12)}</code>`);

    git(dir, ['checkout', '-q', 'pr']);
    rewriteStep(dir, 'x result 3', 'x result three');
    commitAll(dir, 'rewrite');
    mergeQueued(dir, base);
    const bad = await onMergeGroup(dir, base);
    expect(bad.code).toBe(1);
    expect(bad.annotations.find((a) => a.title === 'stepchain: history_rewritten')).toMatchObject({
      file: ALICE,
      line: 4,
    });
  });
});

describe('pull_request_target', () => {
  test("the default checkout (the base branch) fails: the PR's files were not checked; the PR's head is checked", async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    rewriteStep(dir, 'x result 1', 'x result one');
    const prHead = commitAll(dir, 'PR: rewrite');
    git(dir, ['checkout', '-q', 'main']);
    const event = eventFixture('pull_request_target', { base, head: prHead });
    const r = await runInProcess({ workspace: dir, scratch, event });
    // The base branch itself holds, and says nothing of the PR: a check that checked none of its files is no pass.
    expect(r.code).toBe(1);
    const failed = r.annotations.find((a) => a.level === 'error' && a.message.includes('pull_request_target'));
    expect(failed!.message).toContain("the PR's files were NOT checked");
    expect(r.summary).toContain('NOT checked');

    git(dir, ['checkout', '-q', prHead]);
    const checked = await runInProcess({ workspace: dir, scratch, event });
    expect(checked.code).toBe(1);
    expect(checked.annotations.some((a) => a.message.startsWith('pull_request_target'))).toBe(false);
    expect(checked.annotations.find((a) => a.title === 'stepchain: history_rewritten')).toMatchObject({ file: ALICE });
  });
  test("a checkout of the PR's head is compared with where it branched, not with what the base appended since", async () => {
    const { dir } = prScenario(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'bob', 1, 'pr');
    const prHead = commitAll(dir, 'PR: append to bob');
    const forkedAt = git(dir, ['rev-parse', 'main']);
    git(dir, ['checkout', '-q', 'main']);
    appendSteps(dir, 'alice', 2, 'main');
    const mainTip = commitAll(dir, 'main moves on: append to alice');
    git(dir, ['checkout', '-q', prHead]);
    for (const name of ['pull_request_target', 'pull_request'] as const) {
      const r = await runInProcess({
        workspace: dir,
        scratch,
        event: eventFixture(name, { base: mainTip, head: prHead }),
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        `${name}: the checkout is the PR's own head, not built on its base ${mainTip.slice(0, 12)}: the journals are compared with where the PR branched from it, ${forkedAt.slice(0, 12)}`,
      );
      expect(r.summary).toContain(`append-only checked against base <code>${forkedAt.slice(0, 12)}</code>`);
    }
    // Still append-only: a rewrite on the PR's branch fails against the fork point.
    rewriteStep(dir, 'x result 1', 'x result one');
    const rewritten = commitAll(dir, 'PR: rewrite alice');
    const bad = await runInProcess({
      workspace: dir,
      scratch,
      event: eventFixture('pull_request_target', { base: mainTip, head: rewritten }),
    });
    expect(bad.code).toBe(1);
    expect(bad.annotations.find((a) => a.title === 'stepchain: history_rewritten')).toMatchObject({
      file: ALICE,
      line: 2,
    });
    // The merge commit actions/checkout makes (the base is its parent) is compared with the base itself.
    git(dir, ['checkout', '-q', '--detach', mainTip]);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'merge', prHead]);
    const merged = await runInProcess({
      workspace: dir,
      scratch,
      event: eventFixture('pull_request', { base: mainTip, head: prHead }),
    });
    expect(merged.code).toBe(0);
    expect(merged.stdout).not.toContain('the checkout is the PR');
    expect(merged.summary).toContain(`append-only checked against base <code>${mainTip.slice(0, 12)}</code>`);
    // A shallow clone of the PR's head cannot tell where it branched: it says so, and what to do.
    const origin = dir;
    git(origin, ['config', 'uploadpack.allowAnySHA1InWant', 'true']);
    git(origin, ['branch', '-f', 'pr-head', prHead]);
    const clone = path.join(tmp, `shallow-${n}`);
    git(tmp, ['clone', '-q', '--depth=1', '--branch', 'pr-head', `file://${origin}`, clone]);
    const shallow = await runInProcess({
      workspace: clone,
      scratch,
      event: eventFixture('pull_request_target', { base: mainTip, head: prHead }),
    });
    expect(shallow.stdout).toContain('its history is too shallow to find where the PR branched');
    expect(shallow.stdout).toContain('fetch-depth: 0');
  });

  test('a receipts-only check of a pull request needs no history (no git repository at all)', async () => {
    const dir = path.join(tmp, `plain-${++n}`);
    const { dir: repo } = prScenario(path.join(tmp, `repo-${++n}`));
    mkdirSync(path.join(dir, 'receipts'), { recursive: true });
    exportReceipt(path.join(repo, ALICE), path.join(dir, 'receipts/alice.receipt.tar'));
    const r = await runInProcess({
      workspace: dir,
      scratch,
      event: eventFixture('pull_request', { base: 'a'.repeat(40), head: 'b'.repeat(40) }),
      inputs: { journals: 'none', runs: 'none' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('OK   receipt receipts/alice.receipt.tar: 5 steps');
  });
});
