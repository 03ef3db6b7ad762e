import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A fresh temporary directory, removed after the test file's tests. */
export function tempDir(prefix = 'stepchain-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let made = 0;

/** A new empty directory under `parent` each call: `<parent>/<name><n>`, n counting the test file's calls. */
export function freshDir(parent: string, name = 'p'): string {
  const dir = path.join(parent, `${name}${made++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
