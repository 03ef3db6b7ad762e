import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { InputError } from '../src/errors';
import { PackedRefs, withPackedRefs } from '../src/git/packed-refs';
import { readRef, writeLooseRef } from '../src/git/loose';
import { git, initRepo } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * src/git/packed-refs.ts looks refs up in `packed-refs` by git's binary search, reading a few pages: on files git
 * itself wrote (`git pack-refs`), every lookup agrees with `git for-each-ref` over the same file, for names that are
 * there, their directories, names beside them and names under them.
 */
const base = realpathSync(tempDir('stepchain-packed-refs-'));

/** git with `input` on its stdin (update-ref --stdin, mktag). */
const gitIn = (cwd: string, args: string[], input: string): string =>
  execFileSync('git', args, { cwd, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] }).trim();

/** A repository with one commit and an annotated tag of it (a record with a peel line). */
function repo(): { root: string; head: string; tag: string } {
  const root = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  const head = git(root, ['rev-parse', 'HEAD']);
  const tag = gitIn(root, ['mktag'], `object ${head}\ntype commit\ntag t\ntagger T <t@x> 0 +0000\n\nt\n`);
  return { root, head, tag };
}

/** What git holds: every ref and the object its record names. */
function gitRefs(root: string): Map<string, string> {
  const out = git(root, ['for-each-ref', '--format=%(objectname) %(refname)']);
  return new Map(
    out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => [l.slice(41), l.slice(0, 40)] as [string, string]),
  );
}

const commonDir = (root: string): string => path.join(root, '.git');

/** Every query this checks against git's refs: the names, their directories, names beside and below them. */
function queries(names: string[], extra: string[]): string[] {
  const q = new Set<string>(extra);
  for (const n of names) {
    q.add(n);
    q.add(`${n}x`);
    q.add(`${n}/x`);
    q.add(n.slice(0, -1));
    const parts = n.split('/');
    for (let i = 1; i < parts.length; i++) q.add(parts.slice(0, i).join('/'));
  }
  return [...q].filter((n) => n !== '');
}

/**
 * PackedRefs against git's refs, for each query: the record's object id or null, and whether a ref is below it. The
 * queries that disagree, each with both answers, in one expect (two a query were ~12,000 expects for the file, a
 * tenth of its CPU).
 */
function expectAgrees(root: string, extra: string[] = []): void {
  const refs = gitRefs(root);
  const names = [...refs.keys()];
  const p = PackedRefs.open(commonDir(root));
  if (p === null || p === undefined) throw new Error(`packed-refs of ${root} not open (${String(p)})`);
  const disagree: unknown[] = [];
  try {
    for (const q of queries(names, extra)) {
      const [found, want] = [p.find(q), refs.get(q) ?? null];
      if (found !== want) disagree.push({ find: q, here: found, git: want });
      const [under, wantUnder] = [p.anyUnder(`${q}/`), names.some((n) => n.startsWith(`${q}/`))];
      if (under !== wantUnder) disagree.push({ anyUnder: `${q}/`, here: under, git: wantUnder });
    }
  } finally {
    p.close();
  }
  expect(disagree).toEqual([]);
}

const component = fc.stringMatching(/^[a-z0-9é_-]{1,6}$/).filter((s) => !s.endsWith('.lock'));
const refName = fc.array(component, { minLength: 1, maxLength: 4 }).map((parts) => `refs/${parts.join('/')}`);

test('property: lookups in a packed-refs git wrote agree with git, for every name, directory and neighbour', () => {
  const { root, head, tag } = repo();
  fc.assert(
    fc.property(
      fc.uniqueArray(refName, { minLength: 1, maxLength: 40 }),
      fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      fc.array(refName, { maxLength: 10 }),
      (names, tagged, others) => {
        rmSync(path.join(commonDir(root), 'packed-refs'), { force: true });
        rmSync(path.join(commonDir(root), 'refs'), { recursive: true, force: true });
        mkdirSync(path.join(commonDir(root), 'refs')); // git finds no repository without it
        // git refuses a ref named like another's directory: keep only the names it takes, in order.
        const kept: string[] = [];
        for (const n of names) if (!kept.some((k) => k.startsWith(`${n}/`) || n.startsWith(`${k}/`))) kept.push(n);
        const input = kept.map((n, i) => `create ${n} ${tagged[i] ? tag : head}\n`).join('');
        gitIn(root, ['update-ref', '--stdin'], input);
        git(root, ['pack-refs', '--all']);
        expect(readFileSync(path.join(commonDir(root), 'packed-refs'), 'latin1')).toMatch(
          /^# pack-refs with:.* sorted /,
        );
        expectAgrees(root, [...others, 'refs', 'refs/', 'a', 'zzzz']);
      },
    ),
    { numRuns: 25 },
  );
});

test('many refs: names of a long session agree with git (the search crosses many pages)', () => {
  const { root, head } = repo();
  // The 20,000 records given to git as a packed-refs of no header, out of order: `pack-refs` reads it (sorting it, as
  // it must without the trait) and writes it again whole, the file read here. (Created by `update-ref --stdin`, the
  // same refs were 20,000 loose files written and then deleted by pack-refs: 2.5 s of CPU, most of it the kernel's.)
  const order = Array.from({ length: 20000 }, (_, i) => (i * 7919) % 20000); // a permutation: 7919 is prime
  const file = path.join(commonDir(root), 'packed-refs');
  writeFileSync(file, order.map((i) => `${head} refs/stepchain/snapshots/a/j1/${i}\n`).join(''));
  git(root, ['update-ref', 'refs/heads/zz', head]);
  git(root, ['pack-refs', '--all']);
  const written = readFileSync(file, 'latin1');
  expect(written).toMatch(/^# pack-refs with:.* sorted \n/);
  expect(written.split('\n')).toHaveLength(20000 + 2 + 2); // the header, the records, main and zz, the last newline
  const p = PackedRefs.open(commonDir(root))!;
  try {
    for (const i of [0, 1, 9, 10, 99, 12345, 19999]) expect(p.find(`refs/stepchain/snapshots/a/j1/${i}`)).toBe(head);
    for (const n of ['refs/stepchain/snapshots/a/j1/20000', 'refs/stepchain/snapshots/a/j1', 'refs/heads/main0'])
      expect(p.find(n)).toBeNull();
    expect(p.find('refs/heads/zz')).toBe(head);
    expect(p.anyUnder('refs/stepchain/snapshots/a/')).toBe(true);
    expect(p.anyUnder('refs/stepchain/snapshots/b/')).toBe(false);
    expect(p.anyUnder('refs/replace/')).toBe(false);
  } finally {
    p.close();
  }
});

test('lines longer than a page, peel lines on page boundaries: a file written here, git reading the same', () => {
  const { root, head, tag } = repo();
  const names: string[] = [];
  for (let i = 0; i < 400; i++) {
    const long = i % 7 === 0 ? `/${'l'.repeat(3000 + ((i * 997) % 6000))}` : '';
    names.push(`refs/n/${String(i).padStart(4, '0')}${long}`);
  }
  names.sort();
  const body = names.map((n, i) => (i % 3 === 0 ? `${tag} ${n}\n^${head}\n` : `${head} ${n}\n`)).join('');
  writeFileSync(path.join(commonDir(root), 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted \n${body}`);
  rmSync(path.join(commonDir(root), 'refs', 'heads', 'main')); // only packed refs: git lists what the file holds
  expect(gitRefs(root).size).toBe(names.length); // git reads every record
  expectAgrees(root);
});

test('without the sorted trait: read whole when in order (the same answers), git decides when not', () => {
  const { root, head, tag } = repo();
  const names = ['refs/a/b', 'refs/a/c/d', 'refs/heads/x', 'refs/tags/t'];
  gitIn(root, ['update-ref', '--stdin'], names.map((n, i) => `create ${n} ${i === 3 ? tag : head}\n`).join(''));
  git(root, ['pack-refs', '--all']);
  const file = path.join(commonDir(root), 'packed-refs');
  const written = readFileSync(file, 'latin1');
  const body = written.slice(written.indexOf('\n') + 1);
  writeFileSync(file, body, 'latin1'); // no header: git sorts, finds it in order
  expectAgrees(root);
  writeFileSync(file, `# pack-refs with: peeled fully-peeled \n${body}`, 'latin1');
  expectAgrees(root);
  // Out of order, a duplicate, a malformed line: git must sort or refuses; nothing is told here.
  const lines = body.split('\n');
  for (const text of [
    [lines[2], lines[0], lines[1], ...lines.slice(3)].join('\n'),
    `${lines[0]}\n${body}`,
    `${body}garbage line of forty-two characters or more\n`,
  ]) {
    writeFileSync(file, text, 'latin1');
    expect(PackedRefs.open(commonDir(root))).toBeUndefined();
    expect(withPackedRefs(commonDir(root), null, (p) => p.find('refs/a/b'))).toBeUndefined();
  }
});

test('a record the search meets that is not one: nothing told, nothing thrown', () => {
  const { root, head } = repo();
  const file = path.join(commonDir(root), 'packed-refs');
  const sorted = '# pack-refs with: peeled fully-peeled sorted \n';
  const records = Array.from({ length: 50 }, (_, i) => `${head} refs/r/${String(i).padStart(3, '0')}\n`);
  records[40] = 'not a record at all, but long enough to pass for one here\n';
  writeFileSync(file, sorted + records.join(''));
  const p = PackedRefs.open(commonDir(root))!;
  try {
    expect(p.find('refs/r/040')).toBeUndefined(); // the search for the name it took must meet it
    expect(p.find('refs/r/000')).toBe(head); // a search that never meets it answers
    for (let i = 0; i < 50; i++) expect([head, undefined]).toContain(p.find(`refs/r/${String(i).padStart(3, '0')}`));
  } finally {
    p.close();
  }
});

test('never through a link, never a FIFO: refused as the other readers refuse; none is null', () => {
  const { root, head } = repo();
  const file = path.join(commonDir(root), 'packed-refs');
  expect(PackedRefs.open(commonDir(root))).toBeNull();
  const elsewhere = path.join(freshDir(base), 'packed-refs');
  writeFileSync(elsewhere, `# pack-refs with: peeled fully-peeled sorted \n${head} refs/heads/main\n`);
  symlinkSync(elsewhere, file);
  expect(() => PackedRefs.open(commonDir(root))).toThrow(InputError);
  // The ref writer leaves it to git (which reads the link); nothing is written.
  expect(writeLooseRef({ commonDir: commonDir(root), ident: 'a <b>' }, 'refs/stepchain/x', head)).toBe(false);
  rmSync(file);
  execFileSync('mkfifo', [file]);
  expect(() => PackedRefs.open(commonDir(root))).toThrow(InputError);
});

/** What `git show-ref --verify` says of `ref`: its object id, null when there is no such ref, 'dies' when git dies. */
function gitSays(root: string, ref: string): string | null {
  try {
    return git(root, ['show-ref', '--verify', '--hash', ref]);
  } catch (e) {
    return String((e as { stderr?: unknown }).stderr).includes(' - not a valid ref') ? null : 'dies';
  }
}

test('without the sorted trait, a record with an empty name anywhere: git dies sorting the file, nothing told here', () => {
  const { root, head } = repo();
  rmSync(path.join(commonDir(root), 'refs', 'heads', 'main')); // only packed refs
  const file = path.join(commonDir(root), 'packed-refs');
  // `<oid> ` is 41 bytes: git's sort_snapshot wants at least 42 (a name of one byte) of every record line; as the
  // last line it passes verify_buffer_safe (42 bytes with its newline), so only the sorting dies on it.
  for (const text of [
    `${head} \n${head} refs/heads/main\n`,
    `# pack-refs with: peeled \n${head} \n${head} refs/heads/main\n`,
    `${head} refs/heads/main\n${head} \n`,
  ]) {
    writeFileSync(file, text);
    expect(gitSays(root, 'refs/heads/main')).toBe('dies');
    expect(withPackedRefs(commonDir(root), null, (p) => p.find('refs/heads/main'))).toBeUndefined();
  }
  // With the trait git does not sort: the record is compared as a name sorting first, and so it is here.
  writeFileSync(file, `# pack-refs with: sorted \n${head} \n${head} refs/heads/main\n`);
  expect(gitSays(root, 'refs/heads/main')).toBe(head);
  expect(withPackedRefs(commonDir(root), null, (p) => p.find('refs/heads/main'))).toBe(head);
});

test('property: the ref writer writes only where git update-ref would, over hand-made packed-refs (a ref named refs too)', () => {
  const { root, head } = repo();
  const loose = { commonDir: commonDir(root), ident: 'a <b>' };
  const file = path.join(commonDir(root), 'packed-refs');
  const clear = (): void => {
    rmSync(path.join(commonDir(root), 'refs'), { recursive: true, force: true });
    rmSync(path.join(commonDir(root), 'logs'), { recursive: true, force: true });
    mkdirSync(path.join(commonDir(root), 'refs'));
  };
  // What stepchain's git runs with (src/git/exec.ts): no replace refs read for the new value.
  const env = { ...process.env, GIT_NO_REPLACE_OBJECTS: '1' };
  const name = fc.constantFrom('refs', 'refs/a', 'refs/a/b', 'refs/a-b', 'refs/a/b/c', 'refs/s/x', 'refs/é', 'refs/b');
  fc.assert(
    fc.property(fc.uniqueArray(name, { maxLength: 4 }), fc.boolean(), name, (names, sorted, target) => {
      fc.pre(target !== 'refs');
      const byBytes = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const header = sorted ? '# pack-refs with: peeled fully-peeled sorted \n' : '';
      writeFileSync(file, header + byBytes.map((n) => `${head} ${n}\n`).join(''));
      clear();
      let gitWrites = true;
      try {
        git(root, ['update-ref', target, head], env);
      } catch {
        gitWrites = false;
      }
      clear();
      const written = writeLooseRef(loose, target, head);
      clear();
      if (written) expect([names, target, gitWrites]).toEqual([names, target, true]);
      // A packed ref named like a directory of the target (`refs` included) or below it: both refuse.
      if (names.some((n) => target.startsWith(`${n}/`) || n.startsWith(`${target}/`))) expect(written).toBe(false);
    }),
    { numRuns: 60 },
  );
  writeFileSync(file, `# pack-refs with: peeled fully-peeled sorted \n${head} refs\n${head} refs/heads/main\n`);
  expect(() => git(root, ['update-ref', 'refs/stepchain/x', head], env)).toThrow(/'refs' exists/);
  expect(writeLooseRef(loose, 'refs/stepchain/x', head)).toBe(false);
});

test('a loose file where a directory of the ref should be: git looks in no packed-refs for the ref (ENOTDIR)', () => {
  const { root, head, tag } = repo();
  writeFileSync(path.join(commonDir(root), 'packed-refs'), `# pack-refs with: sorted \n${tag} refs/s/a/b\n`);
  mkdirSync(path.join(commonDir(root), 'refs', 's'));
  writeFileSync(path.join(commonDir(root), 'refs', 's', 'a'), `${head}\n`);
  expect(gitSays(root, 'refs/s/a/b')).toBeNull(); // files_read_raw_ref: lstat fails, not with ENOENT
  expect(readRef(commonDir(root), 'refs/s/a/b')).toBeUndefined();
  expect(readRef(commonDir(root), 'refs/s/a')).toBe(head);
  rmSync(path.join(commonDir(root), 'refs', 's', 'a'));
  expect(gitSays(root, 'refs/s/a/b')).toBe(tag);
  expect(readRef(commonDir(root), 'refs/s/a/b')).toBe(tag);
});
