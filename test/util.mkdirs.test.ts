import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mkdirs } from '../src/util/mkdirs';
import { tempDir } from './helpers/tmp';

/** `mkdirs` answers as `mkdirSync(dir, { recursive: true, mode })` does, where that one returns at all. */
const dir = tempDir('stepchain-mkdirs-');

test('the first directory made is returned (undefined: none), each made with the mode; the errors are the same', () => {
  const want = path.join(dir, 'a', 'b', 'c');
  expect(mkdirs(want, 0o700)).toBe(path.join(dir, 'a'));
  expect(statSync(path.join(dir, 'a', 'b')).mode & 0o777).toBe(0o700);
  expect(mkdirs(want)).toBeUndefined();
  expect(mkdirSync(want, { recursive: true })).toBeUndefined();
  const file = path.join(dir, 'file');
  writeFileSync(file, 'x');
  for (const [target, code] of [
    [file, 'EEXIST'],
    [path.join(file, 'x', 'y'), 'ENOTDIR'],
  ] as const) {
    expect(() => mkdirSync(target, { recursive: true })).toThrow(expect.objectContaining({ code }));
    expect(() => mkdirs(target)).toThrow(expect.objectContaining({ code }));
  }
  // Where Node's own never returns (procfs says ENOENT with the parent there), this one throws ENOENT.
  expect(() => mkdirs('/proc/stepchain-none/x')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
});
