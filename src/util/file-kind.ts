import { lstatSync, statSync, type Stats } from 'node:fs';
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
 * The nearest of `p` itself (named with a trailing `/`, or listed) and its parents that exists and is not a
 * directory, and what it is: what an ENOTDIR at `p` means (the error itself names only `p`, often a path that
 * cannot exist). A link to a directory on the way is a directory (the path goes through it), not the cause.
 * Undefined when none is found (it changed meanwhile).
 */
export function nonDirectoryAbove(p: string): { path: string; kind: string } | undefined {
  const own = p.length > 1 ? p.replace(/\/+$/, '') || '/' : p;
  for (let at = own, up = path.dirname(own); ; at = up, up = path.dirname(up)) {
    const found = notADirectoryAt(at);
    if (found !== undefined) return { path: at, kind: found };
    if (up === at) return undefined;
  }
}

/** What `p` is when it exists and a path cannot go through it as a directory; undefined otherwise. */
function notADirectoryAt(p: string): string | undefined {
  let st: Stats | undefined;
  try {
    st = lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined; // its own parent is not a directory either: the walk goes on up to it
  }
  if (st === undefined || st.isDirectory()) return undefined;
  if (st.isSymbolicLink()) {
    try {
      if (statSync(p).isDirectory()) return undefined;
    } catch {
      /* a dangling link: not a directory to go through */
    }
  }
  return kindOf(st);
}
