import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';

/** What a file is, in words ("a file", "a FIFO", "a directory", ...), for messages. */
export function kindOf(st: Stats): string {
  if (st.isFile()) return 'a file';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'a special file';
}

/**
 * The nearest parent of `p` that exists and is not a directory, and what it is: what an ENOTDIR at `p` means (the
 * error itself names only `p`, a path that cannot exist). Undefined when none is found (it changed meanwhile).
 */
export function nonDirectoryAbove(p: string): { path: string; kind: string } | undefined {
  for (let up = path.dirname(p); up !== p; p = up, up = path.dirname(up)) {
    let st: Stats | undefined;
    try {
      st = lstatSync(up, { throwIfNoEntry: false });
    } catch {
      continue; // its own parent is not a directory either: the walk goes on up to it
    }
    if (st !== undefined && !st.isDirectory()) return { path: up, kind: kindOf(st) };
  }
  return undefined;
}
