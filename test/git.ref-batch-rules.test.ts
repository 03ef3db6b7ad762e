/**
 * createRefs and deleteRefsUnder (src/git/ref-batch.ts) write packed-refs themselves from 256 refs on: whatever they
 * do must be what git's own transaction (`git update-ref --stdin`, run on a copy) leaves, beyond the refs' values:
 * the peeled values git reads back (`show-ref -d`), its refusal of an object it does not have, the reflogs it
 * writes and removes with a ref, and the refs it keeps per worktree.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { createRefs, deleteRefsUnder, type RefValue } from '../src/git/ref-batch';
import { addPackedRefs } from '../src/git/packed-refs-write';
import { requireRepo } from '../src/git/repo';
import { initRepo } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

const base = realpathSync(tempDir('stepchain-ref-batch-rules-'));
const N = 300;

const run = (cwd: string, args: string[], input = ''): string =>
  execFileSync('git', args, { cwd, input, encoding: 'utf8', stdio: 'pipe' });
const tryRun = (cwd: string, args: string[], input = ''): boolean => {
  try {
    run(cwd, args, input);
    return true;
  } catch {
    return false;
  }
};
/** What git tells of the refs: values, peeled values, and the reflogs (files, as `git reflog exists` looks). */
const stateOf = (root: string): string => {
  const dir = path.join(root, '.git', 'logs', 'refs');
  const logs = existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort().join('\n') : '';
  return `${run(root, ['show-ref', '-d'])}\n--\n${logs}`;
};

function repo(): { root: string; head: string; tag: string } {
  const root = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  const head = run(root, ['rev-parse', 'HEAD']).trim();
  const tag = run(root, ['mktag'], `object ${head}\ntype commit\ntag t\ntagger T <t@x> 0 +0000\n\nt\n`).trim();
  run(root, ['update-ref', 'refs/tags/t', tag]);
  run(root, ['pack-refs', '--all']);
  return { root, head, tag };
}

const copyOf = (root: string): string => {
  const copy = `${root}-copy`;
  cpSync(root, copy, { recursive: true });
  return copy;
};

const many = (prefix: string, oid: (i: number) => string): RefValue[] =>
  Array.from({ length: N }, (_, i) => ({ ref: `${prefix}${i}`, oid: oid(i) }));

test('property: createRefs of commits, annotated tags or missing objects leaves what git leaves (or throws as git)', () => {
  const { root: r0, head, tag } = repo();
  let n = 0;
  fc.assert(
    fc.property(fc.array(fc.constantFrom('commit', 'tag', 'missing'), { minLength: 1, maxLength: 3 }), (kinds) => {
      const root = path.join(base, `c${n++}`);
      cpSync(r0, root, { recursive: true });
      const copy = copyOf(root);
      const oidOf = (i: number): string =>
        ({ commit: head, tag, missing: '0123456789abcdef0123456789abcdef01234567' })[kinds[i % kinds.length]!]!;
      const refs = many('refs/stepchain/snapshots/f/', oidOf);
      let ours = true;
      try {
        createRefs(requireRepo(root), refs);
      } catch {
        ours = false;
      }
      const theirs = tryRun(copy, ['update-ref', '--stdin'], refs.map((r) => `create ${r.ref} ${r.oid}\n`).join(''));
      expect(ours).toBe(theirs);
      expect(stateOf(root)).toBe(stateOf(copy));
      run(root, ['pack-refs', '--all']);
      run(copy, ['pack-refs', '--all']);
      expect(run(root, ['show-ref', '-d'])).toBe(run(copy, ['show-ref', '-d']));
      run(root, ['fsck', '--no-progress']);
    }),
    { numRuns: 8 },
  );
});

test('deleteRefsUnder removes the reflogs of the refs it removes, as git does', () => {
  const { root, head } = repo();
  const refs = many('refs/stepchain/snapshots/f/', () => head);
  // A reflog for some (as core.logAllRefUpdates=always, or --create-reflog, leaves them), then packed.
  const create = (rs: RefValue[]): string => rs.map((r) => `create ${r.ref} ${r.oid}\n`).join('');
  run(root, ['update-ref', '--create-reflog', '--stdin'], create(refs.slice(0, 10)));
  run(root, ['update-ref', '--stdin'], create(refs.slice(10)));
  run(root, ['pack-refs', '--all']);
  expect(existsSync(path.join(root, '.git', 'logs', 'refs', 'stepchain', 'snapshots', 'f', '3'))).toBe(true);
  const copy = copyOf(root);
  expect(deleteRefsUnder(requireRepo(root), 'refs/stepchain/snapshots/f/')).toBe(N);
  run(copy, ['update-ref', '--stdin'], refs.map((r) => `delete ${r.ref} ${r.oid}\n`).join(''));
  expect(stateOf(root)).toBe(stateOf(copy));
  // Created again: no history of the refs removed comes back.
  createRefs(requireRepo(root), refs);
  run(copy, ['update-ref', '--stdin'], refs.map((r) => `create ${r.ref} ${r.oid}\n`).join(''));
  expect(stateOf(root)).toBe(stateOf(copy));
});

test('createRefs: a reflog already there is appended to, branches get theirs (core.logAllRefUpdates=true)', () => {
  const { root, head } = repo();
  expect(run(root, ['config', 'core.logAllRefUpdates']).trim()).toBe('true');
  mkdirSync(path.join(root, '.git', 'logs', 'refs', 'stepchain', 'f'), { recursive: true });
  writeFileSync(path.join(root, '.git', 'logs', 'refs', 'stepchain', 'f', '7'), '');
  for (const prefix of ['refs/stepchain/f/', 'refs/heads/many/', 'refs/notes/many/']) {
    const copy = copyOf(root);
    const refs = many(prefix, () => head);
    createRefs(requireRepo(root), refs);
    run(copy, ['update-ref', '--stdin'], refs.map((r) => `create ${r.ref} ${r.oid}\n`).join(''));
    expect(stateOf(root)).toBe(stateOf(copy));
    expect(run(root, ['reflog', 'show', `${prefix}7`])).toBe(run(copy, ['reflog', 'show', `${prefix}7`]));
  }
});

test('addPackedRefs leaves refs git keeps per worktree (refs/bisect/, refs/worktree/, refs/rewritten/) to git', () => {
  const { root, head } = repo();
  const wt = path.join(base, 'linked');
  run(root, ['worktree', 'add', '-q', '--detach', wt]);
  for (const prefix of ['refs/bisect/', 'refs/worktree/x/', 'refs/rewritten/']) {
    const before = run(root, ['for-each-ref']);
    expect(
      addPackedRefs(
        path.join(root, '.git'),
        many(prefix, () => head),
      ),
    ).toBe(false);
    expect(run(root, ['for-each-ref'])).toBe(before);
    // Through createRefs from the linked worktree: git's, in that worktree only.
    createRefs(
      requireRepo(wt),
      many(prefix, () => head),
    );
    expect(run(wt, ['for-each-ref', '--format=%(refname)', prefix]).split('\n')).toHaveLength(N + 1);
    expect(run(root, ['for-each-ref', '--format=%(refname)', prefix])).toBe('');
  }
});
