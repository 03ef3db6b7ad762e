import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { addPackedRefs, removePackedRefs, type RefValue } from '../src/git/packed-refs-write';
import { initRepo } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * src/git/packed-refs-write.ts creates and removes many refs in one rewrite of `packed-refs`: on every shape of
 * repository, whenever it says done, git's own transaction would have been taken too and leaves the same refs; when
 * it says not, nothing changed (git then decides). Differential with `git update-ref --stdin` on a copy.
 */
const base = realpathSync(tempDir('stepchain-packed-write-'));

const gitIn = (cwd: string, args: string[], input = ''): { ok: boolean; out: string } => {
  try {
    return { ok: true, out: execFileSync('git', args, { cwd, input, encoding: 'utf8', stdio: 'pipe' }) };
  } catch {
    return { ok: false, out: '' };
  }
};
const refsOf = (root: string): string => gitIn(root, ['for-each-ref', '--format=%(objectname) %(refname)']).out;
const packedOf = (root: string): string | undefined => {
  const f = path.join(root, '.git', 'packed-refs');
  return existsSync(f) ? readFileSync(f, 'latin1') : undefined;
};

/**
 * The loose refs under .git/refs, each path and its bytes: with `packedOf`, the whole ref store, read without a git
 * process (where "nothing changed" is asked, these bytes hold more than git's listing of them).
 */
const looseOf = (root: string): string =>
  readdirSync(path.join(root, '.git', 'refs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort()
    .map((f) => `${f} ${readFileSync(f, 'latin1')}`)
    .join('');

/** A repository with a commit, an annotated tag object, and no refs but main. */
function repo(): { root: string; head: string; tag: string } {
  const root = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  const head = gitIn(root, ['rev-parse', 'HEAD']).out.trim();
  const tag = gitIn(root, ['mktag'], `object ${head}\ntype commit\ntag t\ntagger T <t@x> 0 +0000\n\nt\n`).out.trim();
  return { root, head, tag };
}

/**
 * Of `names`, those git takes when asked one at a time, in order: it refuses a name that is a directory of one it
 * took, or below one (these names have no other fault). Given to git in one `update-ref --stdin` (which then must
 * succeed): one process for a case's refs where a process each (~500 for the file) was most of its CPU.
 */
function takenInOrder(names: string[]): number[] {
  const kept: number[] = [];
  for (const [i, n] of names.entries())
    if (!kept.some((k) => names[k]!.startsWith(`${n}/`) || n.startsWith(`${names[k]}/`))) kept.push(i);
  return kept;
}

/** `update-ref --stdin` of `commands` in `root`, which git must take whole. */
function updateAll(root: string, commands: string[]): void {
  expect([commands, gitIn(root, ['update-ref', '--stdin'], commands.join('')).ok]).toEqual([commands, true]);
}

const component = fc.constantFrom('a', 'b', 'a-b', 'a.b', 'é', 'z', '1', '10', '2');
const name = fc.array(component, { minLength: 1, maxLength: 3 }).map((p) => `refs/${p.join('/')}`);

test('property: creating refs agrees with git update-ref --stdin (or changes nothing and leaves it to git)', () => {
  const { root, head, tag } = repo();
  const copy = path.join(base, 'copy');
  let taken = 0;
  fc.assert(
    fc.property(
      fc.uniqueArray(name, { maxLength: 8 }),
      fc.uniqueArray(name, { minLength: 1, maxLength: 8 }),
      fc.boolean(),
      fc.boolean(),
      (existing, added, pack, tagged) => {
        rmSync(path.join(root, '.git', 'packed-refs'), { force: true });
        rmSync(path.join(root, '.git', 'refs'), { recursive: true, force: true });
        mkdirSync(path.join(root, '.git', 'refs', 'heads'), { recursive: true });
        // The existing refs git takes, one at a time (it refuses those in each other's way), packed or loose.
        updateAll(root, [
          `update refs/heads/main ${head}\n`,
          ...takenInOrder(existing).map((i) => `update ${existing[i]} ${tagged && i % 2 === 0 ? tag : head}\n`),
        ]);
        if (pack) gitIn(root, ['pack-refs', '--all']);
        rmSync(copy, { recursive: true, force: true });
        cpSync(root, copy, { recursive: true });
        const before = looseOf(root);
        const packedBefore = packedOf(root);
        const refs: RefValue[] = added.map((ref) => ({ ref, oid: head }));
        const done = addPackedRefs(path.join(root, '.git'), refs);
        const byGit = gitIn(copy, ['update-ref', '--stdin'], refs.map((r) => `create ${r.ref} ${r.oid}\n`).join(''));
        expect(existsSync(path.join(root, '.git', 'packed-refs.lock'))).toBe(false);
        if (done) {
          taken++;
          expect(byGit.ok).toBe(true);
          expect(refsOf(root)).toBe(refsOf(copy));
          // The records that were there are there byte for byte (peel lines included).
          for (const line of (packedBefore ?? '').split('\n').slice(1)) expect(packedOf(root)).toContain(line);
        } else {
          expect(looseOf(root)).toBe(before);
          expect(packedOf(root)).toBe(packedBefore);
        }
      },
    ),
    { numRuns: 40 },
  );
  expect(taken).toBeGreaterThan(0); // not vacuous: the plain case is taken
});

test('property: removing packed refs agrees with git (the loose ones are left for git)', () => {
  const { root, head, tag } = repo();
  const copy = path.join(base, 'copy2');
  fc.assert(
    fc.property(
      fc.uniqueArray(name, { minLength: 1, maxLength: 8 }),
      fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      (names, loose, stale) => {
        rmSync(path.join(root, '.git', 'packed-refs'), { force: true });
        rmSync(path.join(root, '.git', 'refs'), { recursive: true, force: true });
        mkdirSync(path.join(root, '.git', 'refs', 'heads'), { recursive: true });
        // The refs git takes, one at a time (as above), packed.
        const taken = takenInOrder(names);
        updateAll(root, [
          `update refs/heads/main ${head}\n`,
          ...taken.map((i) => `update ${names[i]} ${i % 3 === 0 ? tag : head}\n`),
        ]);
        gitIn(root, ['pack-refs', '--all']);
        // Some written loose again over their packed record (the same value or another).
        const again = taken.filter((i) => loose[i]).map((i) => `update ${names[i]} ${stale[i] ? tag : head}\n`);
        if (again.length > 0) updateAll(root, again);
        const listed = refsOf(root)
          .split('\n')
          .filter((l) => l !== '' && !l.endsWith(' refs/heads/main'))
          .map((l) => ({ oid: l.slice(0, 40), ref: l.slice(41) }));
        rmSync(copy, { recursive: true, force: true });
        cpSync(root, copy, { recursive: true });
        const before = packedOf(root);
        const removed = removePackedRefs(path.join(root, '.git'), listed);
        if (removed === false) {
          expect(packedOf(root)).toBe(before);
        } else {
          // The rest by git, as deleteRefsUnder does: then the same refs as git deleting them all.
          const left = refsOf(root)
            .split('\n')
            .filter((l) => l !== '' && !l.endsWith(' refs/heads/main'));
          gitIn(root, ['update-ref', '--stdin'], left.map((l) => `delete ${l.slice(41)} ${l.slice(0, 40)}\n`).join(''));
        }
        gitIn(copy, ['update-ref', '--stdin'], listed.map((r) => `delete ${r.ref} ${r.oid}\n`).join(''));
        if (removed !== false) expect(refsOf(root)).toBe(refsOf(copy));
        expect(existsSync(path.join(root, '.git', 'packed-refs.lock'))).toBe(false);
      },
    ),
    { numRuns: 40 },
  );
});

test('not the plain case: a lock held, a link, an unsorted or foreign file, a ref in the way: nothing changed', () => {
  const { root, head } = repo();
  const git = path.join(root, '.git');
  const refs = [{ ref: 'refs/x/1', oid: head }];
  writeFileSync(path.join(git, 'packed-refs.lock'), '');
  expect(addPackedRefs(git, refs)).toBe(false);
  expect(readFileSync(path.join(git, 'packed-refs.lock'), 'utf8')).toBe(''); // git's lock, left alone
  rmSync(path.join(git, 'packed-refs.lock'));
  const elsewhere = path.join(freshDir(base), 'p');
  writeFileSync(elsewhere, `# pack-refs with: peeled fully-peeled sorted \n${head} refs/y\n`);
  symlinkSync(elsewhere, path.join(git, 'packed-refs'));
  expect(addPackedRefs(git, refs)).toBe(false);
  expect(removePackedRefs(git, [{ ref: 'refs/y', oid: head }])).toBe(false);
  rmSync(path.join(git, 'packed-refs'));
  for (const text of [
    `${head} refs/b\n${head} refs/a\n`, // no header (git sorts it)
    `# pack-refs with: peeled sorted \n${head} refs/b\n${head} refs/a\n`, // unsorted
    `# pack-refs with: peeled \n${head} refs/a\n`, // no sorted trait
    `# pack-refs with: peeled sorted \n${head} refs/a`, // unterminated
  ]) {
    writeFileSync(path.join(git, 'packed-refs'), text);
    expect(addPackedRefs(git, refs)).toBe(false);
    expect(readFileSync(path.join(git, 'packed-refs'), 'utf8')).toBe(text);
  }
  rmSync(path.join(git, 'packed-refs'));
  writeFileSync(path.join(git, 'packed-refs'), '# pack-refs with: peeled fully-peeled sorted \n'); // a header alone
  expect(addPackedRefs(git, refs)).toBe(true);
  expect(gitIn(root, ['rev-parse', 'refs/x/1']).out.trim()).toBe(head);
  // A packed ref named `refs` (git takes a one-level name there) is a directory of every ref: git refuses.
  const withRefs = `# pack-refs with: peeled fully-peeled sorted \n${head} refs\n`;
  writeFileSync(path.join(git, 'packed-refs'), withRefs);
  expect(addPackedRefs(git, [{ ref: 'refs/z/1', oid: head }])).toBe(false);
  expect(readFileSync(path.join(git, 'packed-refs'), 'utf8')).toBe(withRefs);
  writeFileSync(path.join(git, 'packed-refs'), '# pack-refs with: peeled fully-peeled sorted \n');
  // A packed ref below the one to create (its directory gone with its loose file): git refuses; so does this.
  gitIn(root, ['update-ref', 'refs/p/q', head]);
  gitIn(root, ['pack-refs', '--all']);
  rmSync(path.join(git, 'refs', 'p'), { recursive: true, force: true });
  const packed = readFileSync(path.join(git, 'packed-refs'), 'utf8');
  expect(addPackedRefs(git, [{ ref: 'refs/p', oid: head }])).toBe(false);
  expect(gitIn(root, ['update-ref', 'refs/p', head]).ok).toBe(false);
  // A packed ref that no longer names what the caller read (changed since): not removed.
  const tag = gitIn(root, ['rev-parse', 'refs/x/1']).out.trim();
  expect(removePackedRefs(git, [{ ref: 'refs/p/q', oid: tag.replace(/^./, (c) => (c === '0' ? '1' : '0')) }])).toBe(
    false,
  );
  expect(readFileSync(path.join(git, 'packed-refs'), 'utf8')).toBe(packed);
  expect(removePackedRefs(git, [{ ref: 'refs/p/q', oid: head }])).toEqual(['refs/p/q']);
  // Invalid names are git's to refuse.
  for (const ref of ['refs/x/a..b', 'refs/x/a.lock', 'refs/x/ a', 'refs/x/', 'heads/x'])
    expect(addPackedRefs(git, [{ ref, oid: head }])).toBe(false);
});
