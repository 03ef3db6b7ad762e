import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../src/errors';
import { readRegularFile, refuseLinkedStoreDirs } from '../src/util/nofollow';
import { tempDir } from './helpers/tmp';

/**
 * The one reader of files under `.sdd/` (util/nofollow.ts) on every layout of a blob's path: each directory from
 * `.sdd` down there, missing, a file or a link, and the blob itself missing, regular, a link, a FIFO or a directory.
 * A missing directory answers "not there" without opening the file (a receipt of 200,000 blobs none of which is
 * stored asks 200,000 times): the answer must be what opening it says, and a link or a non-directory met before the
 * missing part is still refused, naming it.
 */
const root = tempDir('stepchain-nofollow-');
const DIRS = ['.sdd', 'runtime', 'cas', 'ab'];
const BLOB = 'ab'.repeat(32);
type Bad = 'missing' | 'file' | 'link';
let n = 0;

/** A project whose blob path has its directories up to `at` in place and `bad` at `at` (none: all in place). */
function layout(at: number, bad: Bad | undefined): { dirs: string[]; file: string } {
  const top = path.join(root, `p${n++}`);
  const elsewhere = path.join(top, 'elsewhere');
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(path.join(elsewhere, BLOB), 'linked');
  let cur = top;
  const dirs: string[] = [];
  for (const [i, name] of DIRS.entries()) {
    cur = path.join(cur, name);
    dirs.push(cur);
    if (i < at || bad === undefined) mkdirSync(cur);
    else if (i === at && bad === 'file') writeFileSync(cur, 'x');
    else if (i === at && bad === 'link') symlinkSync(elsewhere, cur);
  }
  return { dirs, file: path.join(cur, BLOB) };
}

test('a missing directory on the way reads as a missing file; a link or a file before it is refused', () => {
  for (let at = 0; at < DIRS.length; at++) {
    for (const bad of ['missing', 'file', 'link'] as const) {
      const { dirs, file } = layout(at, bad);
      const where = { at: DIRS[at], bad };
      if (bad === 'missing') {
        expect({ ...where, there: lstatSync(file, { throwIfNoEntry: false }) }).toEqual({ ...where, there: undefined });
        expect({ ...where, read: readRegularFile(file) }).toEqual({ ...where, read: undefined });
        expect({ ...where, present: refuseLinkedStoreDirs(path.dirname(file)) }).toEqual({ ...where, present: false });
        continue;
      }
      const refused = bad === 'link' ? 'is a symbolic link; refusing to follow it' : 'not a directory';
      for (const look of [() => readRegularFile(file), () => refuseLinkedStoreDirs(path.dirname(file))]) {
        expect(look).toThrow(InputError);
        expect(look).toThrow(`${dirs[at]}: `);
        expect(look).toThrow(refused);
      }
    }
  }
});

test('with every directory there, the blob itself: missing, regular, a link, a FIFO, a directory', () => {
  const read = (make: (file: string) => void): Buffer | undefined => {
    const { dirs, file } = layout(DIRS.length, undefined);
    make(file);
    expect(refuseLinkedStoreDirs(dirs[dirs.length - 1]!)).toBe(true);
    return readRegularFile(file);
  };
  expect(read(() => undefined)).toBeUndefined();
  expect(read((f) => writeFileSync(f, 'bytes'))?.toString()).toBe('bytes');
  expect(() => read((f) => symlinkSync(path.join(root, 'anything'), f))).toThrow('symbolic link');
  expect(() => read((f) => execFileSync('mkfifo', [f]))).toThrow('a FIFO, not a regular file');
  expect(() => read((f) => mkdirSync(f))).toThrow('a directory, not a regular file');
});
