import { existsSync } from 'node:fs';
import { journalFile, VerifiedSteps } from '../journal';
import { UnverifiedJournalError } from '../journal/read';
import { forkParentRoot } from '../journal/tombstone';
import { isSafeId } from '../util/ids';
import type { VerifyResult } from '../journal';

/**
 * How many of a fork's steps are its own (recorded since the fork point), derived from what its agent cannot
 * rewrite: the parent's journal, under the parent's `.sdd/` (outside the fork's worktree). A fork's journal is
 * seeded with the parent's verified rows 0..N, so its own steps are those after the longest prefix it shares with
 * the parent's journal. The fork's session file (`fork.from_step`) lies in the worktree its agent writes: raising
 * `from_step` there once hid the agent's steps from `fork rm`'s refusal. It is only compared with what the journals
 * say, and a disagreement is reported (`disputed`), never believed.
 */
export interface ForkProgress {
  /** Steps of the fork's journal after the prefix it shares with its parent's journal (all of them when unknown). */
  since: number;
  /** Why the session file's fork point is not the journals' (null when they agree). */
  disputed: string | null;
}

/**
 * `fork`: the fork's verified journal; `parentSessionId` / `claimedFromStep`: what its session file says. The parent's
 * journal is looked up at the root the worktree's path names (`<root>/.sdd/worktrees/<id>`), never where the session
 * file points; a parent session id naming another journal only shortens the shared prefix (more steps counted).
 */
export function forkProgress(
  fork: VerifiedSteps,
  worktree: string,
  forkId: string,
  parentSessionId: string | null,
  claimedFromStep: number | null,
  parents?: ParentJournals,
): ForkProgress {
  const claimedPrefix = claimedFromStep === null ? 0 : claimedFromStep + 1;
  const parentRoot = forkParentRoot(worktree)?.parent;
  let parent: VerifiedSteps | undefined;
  let why: string | undefined;
  if (parentRoot === undefined) why = `its worktree ${worktree} is not under a parent's .sdd/worktrees`;
  else if (parentSessionId === null || !isSafeId(parentSessionId) || parentSessionId === forkId)
    why = 'its session file names no parent session';
  else {
    const opened = openParent(journalFile(parentRoot, parentSessionId), parents);
    if (typeof opened === 'string') why = opened;
    else parent = opened;
  }
  if (parent === undefined) {
    // Nothing to compare with: every step counts as the fork's own, and a claim of inherited steps is unchecked.
    const disputed =
      claimedPrefix === 0 || fork.length === 0
        ? null
        : `cannot check its fork point (step ${claimedFromStep}) against its parent: ${why ?? 'no parent journal'}`;
    return { since: fork.length, disputed };
  }
  const shared = sharedPrefix(fork, parent);
  const disputed =
    claimedPrefix === shared
      ? null
      : `its session file says it was forked ${claimedFromStep === null ? 'at session level' : `at step ${claimedFromStep}`}, ` +
        `but ${shared === 0 ? 'none' : `only steps 0..${shared - 1}`} of its journal ${shared === 1 ? 'is' : 'are'} its parent's (${parent.file})`;
  return { since: fork.length - shared, disputed };
}

/** Parent journals already opened (a listing of many forks of one session verifies its journal once). */
export type ParentJournals = Map<string, VerifiedSteps | string>;

/** The parent's journal, verified; or why it cannot be compared with. */
function openParent(file: string, parents: ParentJournals | undefined): VerifiedSteps | string {
  const known = parents?.get(file);
  if (known !== undefined) return known;
  let opened: VerifiedSteps | string;
  if (!existsSync(file)) opened = `the parent's journal ${file} is missing`;
  else {
    try {
      opened = VerifiedSteps.open(file);
    } catch (e) {
      if (!(e instanceof UnverifiedJournalError)) throw e;
      opened = `the parent's journal ${file} does not verify`;
    }
  }
  parents?.set(file, opened);
  return opened;
}

/**
 * The number of leading steps two verified journals share. Each row's step_hash covers its prev_hash, so sharing
 * step k means sharing 0..k: a binary search over `at` (a block read each), not a walk of either journal.
 */
function sharedPrefix(a: VerifiedSteps, b: VerifiedSteps): number {
  let lo = 0;
  let hi = Math.min(a.length, b.length);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (a.at(mid - 1)!.row.step_hash === b.at(mid - 1)!.row.step_hash) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A fork's journal, verified, and what of it is the fork's own (null fields: it has no journal file). */
export interface ForkJournal {
  result: VerifyResult;
  /** null when the journal does not verify (nothing to compare: `fork rm` refuses it for that). */
  progress: ForkProgress | null;
}

/** The fork's journal at `file` verified once, then compared with its parent's (forkProgress). */
export function readForkJournal(
  file: string,
  worktree: string,
  forkId: string,
  parentSessionId: string | null,
  claimedFromStep: number | null,
  parents?: ParentJournals,
): ForkJournal {
  let steps: VerifiedSteps;
  try {
    steps = VerifiedSteps.open(file);
  } catch (e) {
    if (!(e instanceof UnverifiedJournalError)) throw e;
    return { result: e.result, progress: null };
  }
  return {
    result: steps.result,
    progress: forkProgress(steps, worktree, forkId, parentSessionId, claimedFromStep, parents),
  };
}
