/**
 * The check judges what the commit holds, not what the work tree shows (src/check/committed.ts). A pull request
 * decides both where git's checkout differs from its commit: a `.gitattributes` conversion, and a submodule (with
 * `submodules: true` the checkout shows another repository's files, which the PR chooses). The Action's `run()`
 * runs in this process (helpers/action-in-process.ts) against real git repositories; the CLI's `check` is a
 * process of its own.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { actionTestBed, appendSteps, FakeGitHub, journalPath, prEvent, runAction, unzip } from './helpers/action';
import { inProcessOnPr, runInProcess } from './helpers/action-in-process';
import { commitAll, emptyRepo, git } from './helpers/git';

const { tmp, scratch, scenario } = actionTestBed('stepchain-action-committed-');
const inPr = inProcessOnPr(scratch);
const ALICE = journalPath('alice');
let n = 0;

/** git with the file transport allowed for submodules (git refuses it by default since 2.38.1). */
const sub = (dir: string, args: string[]): string => git(dir, ['-c', 'protocol.file.allow=always', ...args]);

describe('a journal moved into a submodule', () => {
  test("is no history of this repository: the move fails, and so does the submodule's later rewrite", async () => {
    const { dir, base } = scenario();
    // The attacker's repository: alice's journal with two steps appended, a valid chain that extends the base's.
    appendSteps(dir, 'alice', 2);
    const other = emptyRepo(path.join(tmp, `other-${++n}`));
    copyFileSync(path.join(dir, ALICE), path.join(other, '000000.jsonl'));
    commitAll(other, 'the journal, appended to');
    git(dir, ['checkout', '-q', '--', '.']);
    git(dir, ['rm', '-q', '-r', '--cached', path.dirname(ALICE)]);
    rmSync(path.join(dir, path.dirname(ALICE)), { recursive: true });
    sub(dir, ['submodule', 'add', '-q', other, path.dirname(ALICE)]);
    const moved = commitAll(dir, 'PR: alice into a submodule');
    expect(git(dir, ['ls-tree', 'HEAD', path.dirname(ALICE)])).toMatch(/^160000 commit /);
    expect(readFileSync(path.join(dir, ALICE)).length).toBeGreaterThan(0); // checked out, as submodules: true does

    const r = await inPr(dir, base);
    expect(r.code).toBe(1);
    const f = r.annotations.find((a) => a.title === 'stepchain: not_committed');
    expect(f).toMatchObject({ level: 'error', file: ALICE });
    expect(f!.message).toContain('inside the submodule .sdd/runtime/journal/alice');
    expect(r.outputs['heads']).not.toContain('alice');

    // The next pull request rewrites the submodule's journal whole: still not this repository's history.
    const fresh = emptyRepo(path.join(tmp, `fresh-${++n}`));
    appendSteps(fresh, 'alice', 3, 'REWRITTEN');
    copyFileSync(path.join(fresh, ALICE), path.join(dir, ALICE));
    commitAll(path.join(dir, path.dirname(ALICE)), 'rewrite');
    commitAll(dir, 'PR 2: bump the submodule');
    const again = await inPr(dir, moved);
    expect(again.code).toBe(1);
    expect(again.annotations.find((a) => a.title === 'stepchain: not_committed')).toMatchObject({ file: ALICE });

    // Export mode signs what the commit holds: no receipt of the submodule's journal, bob's as ever.
    const exported = await runInProcess({
      workspace: dir,
      scratch,
      event: { name: 'push', payload: {} },
      inputs: { mode: 'export', 'allow-unsigned': 'true', 'upload-artifact': 'false' },
    });
    expect(exported.code).toBe(1);
    const refused = exported.annotations.find((a) => a.title === 'stepchain: not_committed');
    expect(refused).toMatchObject({ level: 'error', file: ALICE });
    expect(refused!.message).toContain('agent alice: no receipt: lies inside the submodule');
    expect(JSON.parse(exported.outputs['receipts']!)).toEqual([expect.stringMatching(/bob\.receipt\.tar$/)]);
  });
});

describe('a .gitattributes conversion', () => {
  test('working-tree-encoding: a checkout that verifies over a committed blob of other bytes fails, so the blob never becomes a base that vouches for nothing', async () => {
    const { dir, base } = scenario();
    appendSteps(dir, 'alice', 2);
    // Declared EBCDIC, the journal's ASCII is committed as other characters: one line of no JSON, which as a base
    // holds no row (a torn last line), so the next pull request, dropping the attribute, could write any chain in
    // the journal's place and pass (seen before this check: both pull requests green).
    writeFileSync(path.join(dir, '.gitattributes'), `${ALICE} working-tree-encoding=IBM037\n`);
    commitAll(dir, 'PR: append, and a working-tree encoding');
    const blob = Buffer.from(git(dir, ['cat-file', 'blob', `HEAD:${ALICE}`]), 'utf8');
    expect(blob.includes('"seq"')).toBe(false);
    expect(readFileSync(path.join(dir, ALICE)).includes('"seq":6')).toBe(true);

    const r = await inPr(dir, base);
    expect(r.code).toBe(1);
    const f = r.annotations.find((a) => a.title === 'stepchain: not_committed');
    expect(f).toMatchObject({ level: 'error', file: ALICE });
    expect(f!.message).toContain('not the blob the commit');
  });

  test("the artifact's HTML page of a not_committed journal shows it as not committed, with nothing of its checked-out bytes", async () => {
    const { dir, base } = scenario();
    appendSteps(dir, 'alice', 2, 'WORKTREE-ONLY');
    appendSteps(dir, 'bob', 1, 'COMMITTED-BOB');
    writeFileSync(path.join(dir, '.gitattributes'), `${ALICE} working-tree-encoding=IBM037\n`);
    commitAll(dir, 'PR: append, and a working-tree encoding');
    expect(readFileSync(path.join(dir, ALICE), 'utf8')).toContain('WORKTREE-ONLY prompt 6');
    const gh = new FakeGitHub();
    await gh.start();
    try {
      const r = await runAction({
        workspace: dir,
        scratch,
        event: prEvent(dir, base),
        inputs: { 'upload-artifact': 'true' },
        env: { ACTIONS_RUNTIME_TOKEN: FakeGitHub.runtimeToken(), ACTIONS_RESULTS_URL: `${gh.url}/` },
      });
      expect(r.code).toBe(1);
      expect(r.annotations.find((a) => a.title === 'stepchain: not_committed')).toMatchObject({ file: ALICE });
      const art = unzip(gh.artifacts[0]!.bytes);
      const page = art['html/journal-alice.html']!.toString('utf8');
      expect(page).toContain('Not committed: this file is not what the commit holds at its path');
      expect(page).toContain('not_committed: agent alice: the checked-out bytes are not the blob the commit');
      expect(page).not.toContain('<script');
      // Nothing of the work tree's bytes anywhere in the artifact: not as text, not in a page's embedded journal.
      const shown = (text: string): string =>
        [
          text,
          ...[...text.matchAll(/"journal_b64":"([A-Za-z0-9+/=]*)"/g)].map((m) =>
            Buffer.from(m[1]!, 'base64').toString('latin1'),
          ),
        ].join('\n');
      for (const [name, bytes] of Object.entries(art))
        expect([name, shown(bytes.toString('latin1')).includes('WORKTREE-ONLY')]).toEqual([name, false]);
      // bob's journal is what the commit holds: rendered from its bytes as ever.
      expect(shown(art['html/journal-bob.html']!.toString('utf8'))).toContain('COMMITTED-BOB prompt 3');
    } finally {
      await gh.stop();
    }
  });

  test('the same commit with no conversion passes, and a file the commit does not hold (untracked) is read as it is', async () => {
    const { dir, base } = scenario();
    appendSteps(dir, 'alice', 1);
    commitAll(dir, 'PR: append');
    mkdirSync(path.join(dir, '.sdd/runtime/journal/carol'), { recursive: true });
    appendSteps(dir, 'carol', 2); // the workflow's own file, never committed
    const r = await inPr(dir, base);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('journal .sdd/runtime/journal/carol/000000.jsonl: 2 steps');
  });
});
