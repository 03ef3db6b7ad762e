import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { ObjectStore, type ReadLimits } from '../src/git/object-store';
import { git, gitChain, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * src/git/object-store.ts answers whether `git write-tree` would find an object, reading the repository's files as
 * git does. Against git itself (`git cat-file --batch-check`) on repositories whose objects are loose, in one pack
 * or several, or both, for ids that are there and ids that are not (many sharing a fan-out bucket with ones that
 * are): the same answer on every path a lookup can take (a pack index read whole, a bucket at a time, searched in
 * place; loose files looked at one by one, or their directories listed).
 */
const tmp = tempDir('stepchain-object-store-');
let n = 0;

/** Every way of reading, each path forced. */
const LIMITS: Partial<ReadLimits>[] = [
  {},
  { wholeBytes: 0 },
  { wholeBytes: 0, bucketBytes: 0 },
  { listFrom: 1, listDirsFrom: 1 },
  { listFrom: Infinity, listDirsFrom: Infinity, wholeBytes: 0, bucketBytes: 20 },
];

/** git's answer for each id: whether `git cat-file --batch-check` finds it. */
function gitHas(root: string, ids: string[]): Map<string, boolean> {
  const out = execFileSync('git', ['cat-file', '--batch-check=%(objectname)'], {
    cwd: root,
    input: ids.map((id) => `${id}\n`).join(''),
    encoding: 'utf8',
  });
  const lines = out.trim().split('\n');
  return new Map(ids.map((id, i) => [id, lines[i] === id]));
}

function allObjects(root: string): string[] {
  return git(root, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']).split('\n').filter(Boolean);
}

/** Ids that are not there: each present one with its last byte changed (same bucket), and a few made up. */
function absentLike(present: string[], salt: number): string[] {
  const have = new Set(present);
  const out: string[] = [];
  for (const id of present) {
    const last = (parseInt(id.slice(38), 16) + 1 + salt) % 256;
    const other = id.slice(0, 38) + last.toString(16).padStart(2, '0');
    if (!have.has(other)) out.push(other);
  }
  out.push('0'.repeat(40), 'f'.repeat(40), `${(salt % 256).toString(16).padStart(2, '0')}${'7'.repeat(38)}`);
  return out.filter((id) => !have.has(id));
}

type Step = { kind: 'commit'; files: number } | { kind: 'repack' } | { kind: 'gc' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('commit' as const), files: fc.integer({ min: 1, max: 40 }) }),
  fc.constant({ kind: 'repack' as const }),
  fc.constant({ kind: 'gc' as const }),
);

/** A repository after `steps`: new files committed (loose objects), packed incrementally (one more pack) or gc'd. */
function repoAfter(steps: Step[]): string {
  const root = path.join(tmp, `r${n++}`);
  mkdirSync(root, { recursive: true });
  git(root, ['init', '-q', '-b', 'main']);
  let file = 0;
  for (const s of steps) {
    if (s.kind === 'commit') {
      const files: Record<string, string> = {};
      for (let i = 0; i < s.files; i++, file++) files[`d${file % 7}/f${file}.txt`] = `${file}\n`;
      writeFiles(root, files);
      gitChain(root, [
        ['add', '-A'],
        ['commit', '-q', '-m', `c${file}`],
      ]);
    } else if (s.kind === 'repack') git(root, ['repack', '-q', '-d']);
    else git(root, ['gc', '-q', '--prune=now']);
  }
  return root;
}

describe('ObjectStore finds what git finds', () => {
  test('for ids there and not, loose, packed in one pack or several (fast-check, every read path)', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 6 }), fc.nat(255), (steps, salt) => {
        const root = repoAfter(steps);
        const present = allObjects(root);
        const ids = [...present, ...absentLike(present, salt)];
        const truth = gitHas(root, ids);
        const commonDir = path.join(root, '.git');
        for (const limits of LIMITS) {
          const one = new ObjectStore(commonDir, limits);
          for (const id of ids) expect([id, one.has(id)]).toEqual([id, truth.get(id)]);
          one.close();
          const all = new ObjectStore(commonDir, limits);
          expect(all.hasAll(present)).toBe(true);
          all.close();
          for (const id of ids.filter((i) => !truth.get(i)).slice(0, 3)) {
            const some = new ObjectStore(commonDir, limits);
            expect(some.hasAll([...present, id])).toBe(false);
            some.close();
          }
        }
        rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 15 },
    );
  });

  test('a loose object that is a link, or a fan-out directory that is one: not found, on every read path', () => {
    const root = repoAfter([{ kind: 'commit', files: 30 }]);
    const commonDir = path.join(root, '.git');
    const present = allObjects(root);
    // A loose file moved away and linked back: git follows it, this never does (false: git decides).
    const [linked] = present;
    const file = path.join(commonDir, 'objects', linked!.slice(0, 2), linked!.slice(2));
    renameSync(file, `${file}.real`);
    symlinkSync(`${file}.real`, file);
    // A whole fan-out directory moved away and linked back.
    const dirId = present.find((id) => id.slice(0, 2) !== linked!.slice(0, 2))!;
    const dir = path.join(commonDir, 'objects', dirId.slice(0, 2));
    renameSync(dir, `${dir}.real`);
    symlinkSync(`${dir}.real`, dir);
    expect(gitHas(root, [linked!, dirId]).get(linked!)).toBe(true);
    for (const limits of LIMITS) {
      for (const id of [linked!, dirId]) {
        const s = new ObjectStore(commonDir, limits);
        expect([id, s.has(id)]).toEqual([id, false]);
        s.close();
        const t = new ObjectStore(commonDir, limits);
        expect([id, t.hasAll(present.filter((p) => p.slice(0, 2) === id.slice(0, 2)))]).toEqual([id, false]);
        t.close();
      }
    }
  });

  test('a closed store finds no packed object it had not found (git decides), and holds no pack index open', () => {
    const root = repoAfter([{ kind: 'commit', files: 5 }, { kind: 'gc' }]);
    const [id, other] = allObjects(root);
    const s = new ObjectStore(path.join(root, '.git'));
    expect(s.has(id!)).toBe(true);
    const fds = readdirSync('/proc/self/fd').length;
    s.close();
    expect(readdirSync('/proc/self/fd').length).toBe(fds - 1);
    expect(s.has(other!)).toBe(false);
    const t = new ObjectStore(path.join(root, '.git'));
    expect(t.hasAll([id!, other!])).toBe(true);
    t.close();
  });
});
