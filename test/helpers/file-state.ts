import { mkdtempSync, readFileSync, statSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What must not change of a file a command only reads (the user's git index): its inode, link count, mtime, bytes. */
export function fileState(file: string): { ino: number; nlink: number; mtimeMs: number; bytes: string } {
  const st = statSync(file);
  return { ino: st.ino, nlink: st.nlink, mtimeMs: st.mtimeMs, bytes: readFileSync(file).toString('base64') };
}

/**
 * A new directory on another file system than `than` (where no hard link to a file under `than` can be made), or a
 * thrown error naming the places looked at: a test that needs one fails saying why, never skips.
 */
export function dirOnAnotherFileSystem(than: string): string {
  const dev = statSync(than).dev;
  const candidates = [tmpdir(), '/dev/shm', '/tmp', '/var/tmp', process.cwd()];
  for (const c of candidates) {
    let st: Stats;
    try {
      st = statSync(c);
    } catch {
      continue;
    }
    if (!st.isDirectory() || st.dev === dev) continue;
    try {
      return mkdtempSync(path.join(c, 'stepchain-other-fs-'));
    } catch {
      /* not writable: the next */
    }
  }
  throw new Error(`no writable directory on another file system than ${than} among ${candidates.join(', ')}`);
}
