import { gitRun, gitSync, type GitSyncOptions } from './exec';

/**
 * Two trees compared by `git diff-tree -r -z` (raw output: modes and object ids,
 * never file content): what per-step provenance records (src/provenance) and
 * what the PR check compares a pull request by. Paths are the repository's
 * (relative to its top, `/`-separated), whatever directory git runs in.
 */

/** One changed path: its object id and mode after the change (null for a deletion). */
export interface TreeChange {
  path: string;
  /** `A` added, `M` modified, `T` type changed, `D` deleted, `R` renamed (with `from`), `C` copied. */
  status: 'A' | 'M' | 'T' | 'D' | 'R' | 'C';
  blob: string | null;
  mode: string | null;
  /** The path a rename or copy came from. */
  from?: string;
}

/** Never part of a recorded change or a compared one: stepchain's own state (as the snapshot excludes it). */
export const DIFF_EXCLUDE = ':(top,exclude,glob)**/.sdd/**';

/** Whether a repository path lies under a `.sdd` directory (the pathspec above, said again for a path read back). */
export function isStepchainPath(p: string): boolean {
  return p === '.sdd' || p.startsWith('.sdd/') || p.includes('/.sdd/') || p.endsWith('/.sdd');
}

const ZERO = /^0+$/;

/** A path read back with U+FFFD: not valid UTF-8 (or naming that character), so it cannot be named exactly. */
export function isUnnameable(p: string): boolean {
  return p.includes('\uFFFD');
}

/**
 * Parses `git diff-tree -r -z` raw output: `:<mode a> <mode b> <oid a> <oid b> <status>\0<path>\0`
 * (`\0<path a>\0<path b>\0` for a rename or copy). Paths are read as UTF-8: one that is not comes back
 * holding U+FFFD (`isUnnameable`), which the recording leaves out and the check therefore never attributes.
 */
export function parseRawDiff(out: string): TreeChange[] {
  const parts = out.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i < parts.length;) {
    const head = parts[i++]!;
    if (!head.startsWith(':')) continue;
    const [, modeB, , oidB, statusRaw] = head.slice(1).split(' ');
    const status = statusRaw?.[0];
    if (status === undefined || modeB === undefined || oidB === undefined) continue;
    const two = status === 'R' || status === 'C';
    const from = two ? parts[i++] : undefined;
    const p = parts[i++];
    if (p === undefined) continue;
    if (!'AMTDRC'.includes(status)) continue; // U (unmerged), X (unknown): never in a diff of two trees
    const deleted = status === 'D' || ZERO.test(oidB);
    changes.push({
      path: p,
      status: status as TreeChange['status'],
      blob: deleted ? null : oidB,
      mode: deleted ? null : modeB,
      ...(from === undefined ? {} : { from }),
    });
  }
  return changes.filter((c) => !isStepchainPath(c.path));
}

/**
 * What changed from tree-ish `a` to `b` (`a` undefined: from the empty tree, `--root`), without rename
 * detection: every path added, modified or deleted. Synchronous (a step's recording is).
 */
export function diffTreesSync(
  cwd: string,
  a: string | undefined,
  b: string,
  options: GitSyncOptions = {},
): TreeChange[] {
  const args =
    a === undefined
      ? ['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', '--root', b, '--', DIFF_EXCLUDE]
      : ['diff-tree', '-r', '-z', '--no-renames', a, b, '--', DIFF_EXCLUDE];
  return parseRawDiff(gitSync(cwd, args, options));
}

/** What a pull request changes from `base` to `head`, renames followed (`-M`), `.sdd/` left out. */
export async function diffCommits(cwd: string, base: string, head: string): Promise<TreeChange[]> {
  const out = await gitRun(cwd, ['diff-tree', '-r', '-z', '-M', base, head, '--', DIFF_EXCLUDE]);
  return parseRawDiff(out.toString('utf8'));
}

/**
 * The paths where two commits' trees differ (content, mode or type), sorted, as git compares them: by the paths'
 * bytes. (A comparison of two listings by path string would take two names that are not UTF-8, or one of them and a
 * name holding a real U+FFFD, for one file: the same spelling, and a change to either hidden by the other.)
 */
export function differingPathsSync(cwd: string, a: string, b: string, options: GitSyncOptions = {}): string[] {
  return [...new Set(diffTreesSync(cwd, a, b, options).map((c) => c.path))].sort();
}
