import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { summarizeIndex, type IndexSummary } from '../src/git/index-file';
import { journalDir } from '../src/journal';
import { recordStep } from '../src/record';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * src/git/index-file.ts reads an index's flags and modes from its bytes so a
 * snapshot starts no `git ls-files` when the answer is "none". It must agree
 * with git on every index it answers for, and answer nothing for an index it
 * does not fully understand (the snapshot then asks git, as before).
 */
const tmp = tempDir('stepchain-index-');
let n = 0;

/** What git itself says of the index: `ls-files -s -v` (tag, mode, stage, path per entry). */
function gitSays(root: string): IndexSummary {
  const lines = git(root, ['ls-files', '-s', '-v', '-z']).split('\0').filter(Boolean);
  return {
    entries: lines.length,
    // Lower-case tag: assume unchanged; `S`/`s`: skip worktree.
    assumeUnchanged: lines.some((l) => l[0] !== l[0]!.toUpperCase()),
    skipWorktree: lines.some((l) => l[0]!.toUpperCase() === 'S'),
    gitlink: lines.some((l) => l.slice(2).startsWith('160000 ')),
  };
}

const indexOf = (root: string): Buffer => readFileSync(path.join(root, '.git', 'index'));

interface Entry {
  name: string;
  gitlink: boolean;
  assume: boolean;
  skip: boolean;
  intent: boolean;
}

/** A repository whose index holds exactly `entries` (no files needed: `update-index --index-info`). */
function indexRepo(entries: Entry[], version: 2 | 3 | 4, format: 'sha1' | 'sha256'): string {
  const root = path.join(tmp, `r${n++}`);
  execFileSync('git', ['init', '-q', `--object-format=${format}`, root]);
  const blob = git(root, ['hash-object', '-w', '--stdin']);
  const info = entries.map((e) => `${e.gitlink ? '160000' : '100644'} ${blob}\t${e.name}\n`).join('');
  execFileSync('git', ['update-index', '--index-info'], { cwd: root, input: info });
  const flag = (option: string, names: string[]): void => {
    if (names.length > 0) git(root, ['update-index', option, '--', ...names]);
  };
  flag(
    '--assume-unchanged',
    entries.filter((e) => e.assume).map((e) => e.name),
  );
  flag(
    '--skip-worktree',
    entries.filter((e) => e.skip).map((e) => e.name),
  );
  // Intent-to-add is an extended flag that is neither: an index holding one is still read.
  for (const e of entries.filter((x) => x.intent && !x.gitlink)) {
    writeFiles(root, { [`ita-${e.name}`]: 'x' });
    git(root, ['add', '-N', `ita-${e.name}`]);
  }
  git(root, ['update-index', '--index-version', String(version)]);
  return root;
}

describe('summarizeIndex agrees with git', () => {
  const name = fc
    .array(fc.constantFrom('a', 'b', 'src', 'lib', 'x.py', 'long-directory-name', 'é', 'z z'), {
      minLength: 1,
      maxLength: 4,
    })
    .map((parts) => parts.join('/'));
  const entry = fc.record({
    name,
    gitlink: fc.boolean(),
    assume: fc.boolean(),
    skip: fc.boolean(),
    intent: fc.boolean(),
  });
  // Paths that are not prefixes of one another as directories (git refuses a file `a` beside `a/b`).
  const entries = fc.uniqueArray(entry, { selector: (e) => e.name, maxLength: 12 }).map((es) => {
    const names = new Set(es.map((e) => e.name));
    return es.filter((e) => ![...names].some((o) => o.startsWith(`${e.name}/`)));
  });
  // Mostly no flags at all (the common case the snapshot skips git for), sometimes some.
  const flagged = fc
    .tuple(entries, fc.boolean())
    .map(([es, keep]) =>
      keep ? es : es.map((e) => ({ ...e, gitlink: false, assume: false, skip: false, intent: false })),
    );

  test('on generated indexes of every version and both object formats', () => {
    fc.assert(
      fc.property(
        flagged,
        fc.constantFrom(2 as const, 3 as const, 4 as const),
        fc.constantFrom('sha1' as const, 'sha256' as const),
        (es, version, format) => {
          const root = indexRepo(es, version, format);
          expect(summarizeIndex(indexOf(root))).toEqual(gitSays(root));
        },
      ),
      { numRuns: 40 },
    );
  });

  test('a real work tree: tracked files, a nested repository added as a gitlink, flags set and cleared', () => {
    const root = initRepo(path.join(tmp, `w${n++}`), { 'a.txt': 'a\n', 'src/b.py': 'b\n', 'src/deep/c.md': 'c\n' });
    expect(summarizeIndex(indexOf(root))).toEqual(gitSays(root));
    const nested = path.join(root, 'crate');
    initRepo(nested, { 'main.rs': 'fn main() {}\n' });
    git(root, ['add', 'crate']);
    git(root, ['update-index', '--assume-unchanged', 'a.txt']);
    git(root, ['update-index', '--skip-worktree', 'src/b.py']);
    expect(summarizeIndex(indexOf(root))).toEqual({
      entries: 5,
      assumeUnchanged: true,
      skipWorktree: true,
      gitlink: true,
    });
    expect(gitSays(root)).toEqual(summarizeIndex(indexOf(root)));
    git(root, ['update-index', '--no-assume-unchanged', 'a.txt']);
    git(root, ['update-index', '--no-skip-worktree', 'src/b.py']);
    expect(summarizeIndex(indexOf(root))).toEqual({ ...gitSays(root), gitlink: true });
  });
});

describe('summarizeIndex answers nothing for an index it does not fully understand', () => {
  test('a split index (its entries are in a shared index), a torn or edited file, not an index', () => {
    const root = initRepo(path.join(tmp, `s${n++}`), { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const plain = indexOf(root);
    expect(summarizeIndex(plain)).toBeDefined();
    // One byte changed: the checksum no longer holds.
    const edited = Buffer.from(plain);
    edited[20] ^= 1;
    expect(summarizeIndex(edited)).toBeUndefined();
    expect(summarizeIndex(plain.subarray(0, plain.length - 7))).toBeUndefined();
    expect(summarizeIndex(Buffer.from('not an index at all'))).toBeUndefined();
    git(root, ['update-index', '--split-index']);
    expect(summarizeIndex(indexOf(root))).toBeUndefined();
  });

  test('a sparse index (directories as entries)', () => {
    const root = initRepo(path.join(tmp, `p${n++}`), { 'keep/a.txt': 'a\n', 'away/b.txt': 'b\n' });
    git(root, ['sparse-checkout', 'set', '--cone', '--sparse-index', 'keep']);
    const s = summarizeIndex(indexOf(root));
    // Either it is not read (the `sdir` extension), or it is read and says skip-worktree: both send the snapshot to git.
    expect(s === undefined || s.skipWorktree).toBe(true);
  });
});

describe('a snapshot starts no git process it does not need', () => {
  /** The git commands one recorded step ran (GIT_TRACE2_EVENT, which git's environment policy keeps). */
  function commandsOfOneStep(root: string, agent: string, env: NodeJS.ProcessEnv = process.env): string[] {
    const trace = path.join(tmp, `trace${n++}.json`);
    writeFileSync(trace, '');
    const r = recordStep(
      journalDir(root, agent),
      { prompt: 'p' },
      { root, env: { ...env, STEPCHAIN_AUDIT: 'off', GIT_TRACE2_EVENT: trace } },
    );
    expect(r.warnings).toEqual([]);
    expect(r.snapshot).toBeDefined();
    return readFileSync(trace, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; argv?: string[] })
      .filter((e) => e.event === 'start')
      .map((e) => e.argv!.filter((a, i, all) => a !== '-c' && all[i - 1] !== '-c')[1]!);
  }

  /**
   * The distribution's git first on PATH and a home of the test's own (no user configuration but what it writes): the
   * configuration naming programs is read without git (src/git/config-read.ts) where it can be.
   */
  function plainEnv(): NodeJS.ProcessEnv {
    const home = path.join(tmp, `home${n++}`);
    mkdirSync(home, { recursive: true });
    const who = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };
    return { ...process.env, PATH: '/usr/bin:/bin', HOME: home, XDG_CONFIG_HOME: '', ...who };
  }

  test('a plain work tree: the only git process is add (no config read by git, no ls-files)', () => {
    const root = initRepo(path.join(tmp, `c${n++}`), { 'a.txt': 'a\n', 'src/b.py': 'b\n' });
    writeFiles(root, { 'a.txt': 'edited\n' });
    const commands = commandsOfOneStep(root, 'ag', plainEnv());
    // The trees, the commit and the ref are written without git (test/git.index-tree.test.ts, test/git.loose.test.ts).
    expect(commands).toEqual(['add']);
  });

  test('a configuration the in-process read leaves to git (an include): git reads it, once', () => {
    const root = initRepo(path.join(tmp, `c${n++}`), { 'a.txt': 'a\n' });
    appendFileSync(path.join(root, '.git', 'config'), '[include]\n\tpath = none\n');
    writeFiles(root, { 'a.txt': 'edited\n' });
    const commands = commandsOfOneStep(root, 'ag', plainEnv());
    expect(commands.filter((c) => c === 'config')).toHaveLength(1);
    expect(commands).toContain('add');
    expect(commands).not.toContain('ls-files');
  });

  test('a flag in the index: git is asked (and the snapshot holds the edit)', () => {
    const root = initRepo(path.join(tmp, `c${n++}`), { 'a.txt': 'a\n' });
    git(root, ['update-index', '--assume-unchanged', 'a.txt']);
    writeFiles(root, { 'a.txt': 'edited\n' });
    expect(commandsOfOneStep(root, 'ag')).toContain('ls-files');
    const ref = git(root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots/ag']);
    expect(git(root, ['show', `${ref}:a.txt`])).toBe('edited');
  });
});
