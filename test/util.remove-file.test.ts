import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { removeFile } from '../src/util/fs';
import { tempDir } from './helpers/tmp';

/**
 * `removeFile` stands in for `rmSync(p, { force: true })` on the hook's paths (without Node 20's recursive remover
 * loaded): the same effect on each kind of thing at `p`, and an error where rmSync gives one.
 */
const dir = tempDir('stepchain-remove-file-');

/** What is at `p` now: its kind, or 'none'. */
function kindAt(p: string): string {
  const st = lstatSync(p, { throwIfNoEntry: false });
  if (st === undefined) return 'none';
  return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file';
}

/** Each kind of thing, made fresh at a path under `base`; what it links to stays outside. */
function cases(base: string): [string, () => string][] {
  mkdirSync(base, { recursive: true });
  const target = path.join(base, 'target');
  return [
    ['missing', () => path.join(base, 'missing')],
    ['under a missing directory', () => path.join(base, 'none', 'x')],
    [
      'file',
      () => {
        writeFileSync(path.join(base, 'f'), 'x');
        return path.join(base, 'f');
      },
    ],
    [
      'link to a file',
      () => {
        writeFileSync(target, 'kept');
        rmSync(path.join(base, 'l'), { force: true });
        symlinkSync(target, path.join(base, 'l'));
        return path.join(base, 'l');
      },
    ],
    [
      'dangling link',
      () => {
        rmSync(path.join(base, 'd'), { force: true });
        symlinkSync(path.join(base, 'nowhere'), path.join(base, 'd'));
        return path.join(base, 'd');
      },
    ],
    [
      'directory',
      () => {
        mkdirSync(path.join(base, 'sub'), { recursive: true });
        return path.join(base, 'sub');
      },
    ],
  ];
}

test('the same effect as rmSync(p, { force: true }) on each kind of thing, and an error where it errs', () => {
  const viaRm = cases(path.join(dir, 'rm'));
  const viaOurs = cases(path.join(dir, 'ours'));
  for (let i = 0; i < viaRm.length; i++) {
    const [name, makeRm] = viaRm[i]!;
    const a = makeRm();
    const b = viaOurs[i]![1]();
    let rmFailed = false;
    let oursFailed = false;
    try {
      rmSync(a, { force: true });
    } catch {
      rmFailed = true;
    }
    try {
      removeFile(b);
    } catch {
      oursFailed = true;
    }
    expect([name, oursFailed, kindAt(b)]).toEqual([name, rmFailed, kindAt(a)]);
  }
  // A link is removed, never what it names.
  expect(existsSync(path.join(dir, 'ours', 'target'))).toBe(true);
  expect(kindAt(path.join(dir, 'ours', 'sub'))).toBe('dir');
});
