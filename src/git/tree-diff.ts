import { isStepchainPath, type TreeChange } from './diff';
import { MAX_TREE_DEPTH } from './index-tree';
import { readLooseObject } from './loose';

/**
 * `git diff-tree -r --no-renames <a> <b> -- ':(top,exclude,glob)**\/.sdd/**'` (./diff.ts, `diffTreesSync`) for
 * two trees stored as loose objects, without starting git: what a step changed, compared between its snapshot's
 * tree and the previous one's, which the snapshot itself wrote a moment ago (./index-tree.ts). Trees are walked in
 * git's order (a directory's name sorts as if it ended in `/`), a subtree both sides share by id is skipped, and
 * every leaf that differs is one change, in the order git prints it: added, deleted, modified (mode or content),
 * or a type change (a file that became a link or a gitlink). A `.sdd` directory is not entered (the pathspec).
 *
 * Only for trees this reads plainly: every tree it needs is a loose object that reads as a tree, every mode one
 * git writes; anything else (a packed tree, a mode of an old git) is `undefined`, and the caller runs git.
 */

interface TreeEntry {
  name: Buffer;
  mode: string;
  oid: string;
}

const TREE_MODE = '40000';
const LEAF_MODES = new Set(['100644', '100755', '120000', '160000']);

/** A tree object's entries, or undefined when it is not a loose tree read plainly. */
function readTree(commonDir: string, oid: string): TreeEntry[] | undefined {
  let o: { type: string; body: Buffer } | undefined;
  try {
    o = readLooseObject(commonDir, oid);
  } catch {
    return undefined; // corrupt: git says so
  }
  if (o === undefined || o.type !== 'tree') return undefined;
  const out: TreeEntry[] = [];
  const b = o.body;
  for (let at = 0; at < b.length;) {
    const sp = b.indexOf(0x20, at);
    const nul = sp < 0 ? -1 : b.indexOf(0, sp + 1);
    if (nul < 0 || nul + 21 > b.length) return undefined;
    const mode = b.toString('latin1', at, sp);
    if (mode !== TREE_MODE && !LEAF_MODES.has(mode)) return undefined;
    const entry = { name: b.subarray(sp + 1, nul), mode, oid: b.toString('hex', nul + 1, nul + 21) };
    // A name git's add never writes (empty, `.`, `..`, holding a slash) or entries out of git's order (or one name
    // twice): a tree git did not write, on which git's walk may pair entries otherwise than this one. git decides.
    if (!plainName(entry.name) || (out.length > 0 && compareEntries(out[out.length - 1]!, entry) >= 0))
      return undefined;
    out.push(entry);
    at = nul + 21;
  }
  return out;
}

/** A name of a tree entry as git writes one: not empty, `.` or `..`, no slash (the NUL ends it). */
function plainName(name: Buffer): boolean {
  return (
    name.length > 0 &&
    !name.includes(0x2f) &&
    !(name[0] === 0x2e && (name.length === 1 || (name.length === 2 && name[1] === 0x2e)))
  );
}

/** git's order of two entries of one tree: by name, a tree's name taken as if it ended in `/`. */
function compareEntries(x: TreeEntry, y: TreeEntry): number {
  const len = Math.min(x.name.length, y.name.length);
  const c = x.name.compare(y.name, 0, len, 0, len);
  if (c !== 0) return c;
  const nx = x.name.length > len ? x.name[len]! : x.mode === TREE_MODE ? 0x2f : 0;
  const ny = y.name.length > len ? y.name[len]! : y.mode === TREE_MODE ? 0x2f : 0;
  return nx - ny;
}

/** The S_IFMT part of a mode written in octal. */
const kind = (mode: string): number => Math.floor(parseInt(mode, 8) / 0o10000);

/** The changes from tree `a` (undefined: the empty tree) to tree `b`; undefined when git must say. */
export function diffLooseTrees(commonDir: string, a: string | undefined, b: string): TreeChange[] | undefined {
  const out: TreeChange[] = [];
  const leaf = (status: TreeChange['status'], path: string, e: TreeEntry): void => {
    out.push({
      path,
      status,
      blob: status === 'D' ? null : e.oid,
      mode: status === 'D' ? null : e.mode,
    });
  };
  /** Every leaf under `e` (a tree, or one leaf) as added or deleted. */
  const whole = (status: 'A' | 'D', prefix: string, e: TreeEntry, depth: number): boolean => {
    const path = prefix + e.name.toString('latin1');
    if (e.mode !== TREE_MODE) {
      leaf(status, path, e);
      return true;
    }
    if (e.name.toString('latin1') === '.sdd') return true;
    if (depth >= MAX_TREE_DEPTH) return false;
    const entries = readTree(commonDir, e.oid);
    return entries !== undefined && entries.every((c) => whole(status, `${path}/`, c, depth + 1));
  };
  const walk = (prefix: string, x: TreeEntry[], y: TreeEntry[], depth: number): boolean => {
    if (depth >= MAX_TREE_DEPTH) return false;
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      const c = i >= x.length ? 1 : j >= y.length ? -1 : compareEntries(x[i]!, y[j]!);
      if (c < 0) {
        if (!whole('D', prefix, x[i++]!, depth)) return false;
        continue;
      }
      if (c > 0) {
        if (!whole('A', prefix, y[j++]!, depth)) return false;
        continue;
      }
      const ex = x[i++]!;
      const ey = y[j++]!;
      if (ex.oid === ey.oid && ex.mode === ey.mode) continue;
      const path = prefix + ey.name.toString('latin1');
      if (ex.mode === TREE_MODE) {
        if (ey.name.toString('latin1') === '.sdd') continue;
        const sx = readTree(commonDir, ex.oid);
        const sy = readTree(commonDir, ey.oid);
        if (sx === undefined || sy === undefined || !walk(`${path}/`, sx, sy, depth + 1)) return false;
        continue;
      }
      leaf(kind(ex.mode) === kind(ey.mode) ? 'M' : 'T', path, ey);
    }
    return true;
  };
  const x = a === undefined ? [] : readTree(commonDir, a);
  const y = readTree(commonDir, b);
  if (x === undefined || y === undefined || !walk('', x, y, 0)) return undefined;
  // Paths are git's bytes (latin1 above, one character per byte); read as UTF-8 as git's output is (./diff.ts).
  return out
    .map((c) => ({ ...c, path: Buffer.from(c.path, 'latin1').toString('utf8') }))
    .filter((c) => !isStepchainPath(c.path));
}
