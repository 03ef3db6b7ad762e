import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Whether `p` exists (through links); a file on the way (ENOTDIR) is not there: the mkdir below it says so. */
function exists(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw e;
  }
}

/**
 * `mkdirSync(dir, { recursive: true, mode })` without its endless loop: Node's recursive mkdir (20, 22) goes back to
 * the parent whenever a mkdir says ENOENT, and under procfs a mkdir says ENOENT with its parent there
 * (`/proc/x/.claude`): the call never returned, and `init claude --root /proc`, `hook claude --root /proc/x` hung.
 * Here each missing directory is made once, from the first one that exists down; the first mkdir that fails throws
 * its own error. Returns the first directory made (undefined: none), as the recursive form does. A directory made
 * meanwhile by another process (EEXIST) is fine; an existing `dir` that is not a directory is EEXIST, as there.
 */
export function mkdirs(dir: string, mode?: number): string | undefined {
  const target = path.resolve(dir);
  const missing: string[] = [];
  for (let at = target; ; at = path.dirname(at)) {
    if (exists(at)) break;
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  if (missing.length === 0) {
    // There already: a directory (through links, as mkdir -p), or EEXIST from mkdir itself.
    if (!statSync(target).isDirectory()) mkdirSync(target);
    return undefined;
  }
  let first: string | undefined;
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, mode === undefined ? undefined : { mode });
      first ??= d;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && statSync(d, { throwIfNoEntry: false })?.isDirectory())
        continue;
      throw e;
    }
  }
  return first;
}
