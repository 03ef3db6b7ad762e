import { forkPoints } from '../git';
import { diffCommits, type TreeChange } from '../git/diff';

/**
 * The files a pull request changes, as git's merge of it takes them: HEAD against its merge base. When HEAD merged
 * two base commits that are not ancestors of each other (a criss-cross: two merge bases), git's merge compares with
 * a virtual base it builds by merging the two over their own merge base, and so does this, file by file, from diffs
 * alone:
 * - a file HEAD changed against both merge bases is the PR's (the virtual base holds one of theirs, or a conflict);
 * - a file HEAD holds as one merge base holds it is the PR's unless only the other base's side changed it since
 *   their merge base (the virtual base then holds that side's version, which HEAD has). A revert of what one side
 *   brought is the PR's change; a file the base branch brought in through the other side is not.
 * Anything else (three merge bases or more, bases with no single merge base of their own) takes every file HEAD
 * changed against any of them: fail closed, at the cost of listing what the base branch changed between them.
 */
export async function pullRequestChanges(root: string, bases: readonly string[]): Promise<TreeChange[]> {
  const unique = [...new Set(bases)];
  const diffs: TreeChange[][] = [];
  for (const b of unique) diffs.push(await diffCommits(root, b, 'HEAD'));
  if (diffs.length === 1) return diffs[0]!;
  const union = unionByPath(diffs);
  if (unique.length !== 2) return union;
  const [a, b] = unique as [string, string];
  const below = await forkPoints(root, a, b);
  if (below === undefined || below.length !== 1 || below[0] === a || below[0] === b) return union;
  const sideA = changedPaths(await diffCommits(root, below[0]!, a));
  const sideB = changedPaths(await diffCommits(root, below[0]!, b));
  // A rename's source is a path HEAD changed too (it is gone): in the sets, judged as any path.
  const againstA = changedPaths(diffs[0]!);
  const againstB = changedPaths(diffs[1]!);
  const brought = (p: string): boolean => {
    const inA = againstA.has(p);
    const inB = againstB.has(p);
    if (inA && inB) return true;
    // HEAD holds B's version (changed against A only): not the PR's when B's side alone changed it.
    if (inA) return !(sideB.has(p) && !sideA.has(p));
    if (inB) return !(sideA.has(p) && !sideB.has(p));
    return false;
  };
  const out: TreeChange[] = [];
  for (const c of union) {
    if (brought(c.path)) out.push(c);
    // A rename whose target is the other side's file but whose source the PR deleted: that deletion is the PR's.
    else if (c.status === 'R' && c.from !== undefined && brought(c.from))
      out.push({ path: c.from, status: 'D', blob: null, mode: null });
  }
  return unionByPath([out]);
}

/** Every path a diff touches (a rename's or copy's source too). */
function changedPaths(changes: readonly TreeChange[]): Set<string> {
  const out = new Set<string>();
  for (const c of changes) {
    out.add(c.path);
    if (c.from !== undefined) out.add(c.from);
  }
  return out;
}

/** The changes of several diffs, each path once (the first diff's), in git's order: by the paths' bytes. */
function unionByPath(diffs: readonly TreeChange[][]): TreeChange[] {
  const seen = new Set<string>();
  const out: TreeChange[] = [];
  for (const d of diffs)
    for (const c of d)
      if (!seen.has(c.path)) {
        seen.add(c.path);
        out.push(c);
      }
  return out.sort((x, y) => Buffer.compare(Buffer.from(x.path), Buffer.from(y.path)));
}
