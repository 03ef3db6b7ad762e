import { existsSync } from 'node:fs';
import path from 'node:path';
import { IntegrityError } from '../errors';
import { writeFileWhole, ensureDir } from '../util/fs';
import { PRIVATE_FILE_MODE } from '../util/modes';
import { isSafeId } from '../util/ids';
import { JOURNAL_FILE, journalDir, runtimeDir } from './layout';
import { readExistingFile } from '../util/nofollow';

/**
 * Tombstones: `stepchain fork rm` leaves `<parent root>/.sdd/runtime/tombstones/<fork_id>.json`
 * behind, so an append that still names the removed fork (by id, or into its
 * vanished worktree) is refused, naming it, instead of silently starting a
 * fresh chain at seq 0 where a journal existed a moment ago.
 */
export interface Tombstone {
  fork_session_id: string;
  removed_at: string;
  worktree: string;
  branch: string | null;
  branch_commit: string | null;
  steps: number | null;
  head_hash: string | null;
  forced: boolean;
}

export function tombstonesDir(root: string): string {
  return path.join(runtimeDir(root), 'tombstones');
}

export function tombstoneFile(root: string, id: string): string {
  return path.join(tombstonesDir(root), `${id}.json`);
}

export function writeTombstone(root: string, t: Tombstone): string {
  const file = tombstoneFile(root, t.fork_session_id);
  ensureDir(path.dirname(file));
  writeFileWhole(file, Buffer.from(`${JSON.stringify(t)}\n`, 'utf8'), { durable: true, mode: PRIVATE_FILE_MODE });
  return file;
}

/** `<P>` when `root` is a fork worktree `<P>/.sdd/worktrees/<id>`. */
export function forkParentRoot(root: string): { parent: string; id: string } | undefined {
  const r = path.resolve(root);
  const worktrees = path.dirname(r);
  const sdd = path.dirname(worktrees);
  if (path.basename(worktrees) !== 'worktrees' || path.basename(sdd) !== '.sdd') return undefined;
  const id = path.basename(r);
  return isSafeId(id) ? { parent: path.dirname(sdd), id } : undefined;
}

/** The tombstone that names the journal of `agentId` under project `root`, if any. */
export function findTombstone(root: string, agentId: string): string | undefined {
  const candidates: string[] = [];
  if (isSafeId(agentId)) candidates.push(tombstoneFile(root, agentId));
  const fork = forkParentRoot(root);
  if (fork !== undefined) candidates.push(tombstoneFile(fork.parent, fork.id));
  return candidates.find((f) => existsSync(f));
}

function describe(file: string): string {
  try {
    const t = JSON.parse(readExistingFile(file, { maxBytes: 1 << 20 }).toString('utf8')) as Partial<Tombstone>;
    const steps = typeof t.steps === 'number' ? `, ${t.steps} steps` : '';
    return `fork ${String(t.fork_session_id)} was removed at ${String(t.removed_at)}${steps}`;
  } catch {
    return 'it was removed';
  }
}

/**
 * Refuses to start a fresh journal for `agentId` under `root` when a tombstone
 * names it, when `agentId` is a live fork of `root` (its journal is in its own
 * worktree), or when `root` is a fork worktree that no longer exists (creating
 * the journal would resurrect the directory of a removed fork).
 */
export function refuseRemovedJournal(root: string, agentId: string, journalFile: string): void {
  const t = findTombstone(root, agentId);
  if (t !== undefined) {
    throw new IntegrityError(
      `${journalFile}: refusing to start a fresh journal: ${describe(t)} (tombstone ${t}); record into a live session or fork`,
    );
  }
  // A live fork of this project keeps its journal in its own worktree: a fresh chain under its id here would be a
  // second, unrelated journal of the same name (and would outlive the fork's removal).
  const live = isSafeId(agentId) ? path.join(root, '.sdd', 'worktrees', agentId) : undefined;
  if (live !== undefined && existsSync(live)) {
    throw new IntegrityError(
      `${journalFile}: refusing to start a fresh journal: ${agentId} is a fork of this project, whose journal is ${path.join(journalDir(live, agentId), JOURNAL_FILE)}; record there (run from ${live}, or pass that journal directory)`,
    );
  }
  const fork = forkParentRoot(root);
  if (fork !== undefined && !existsSync(root)) {
    throw new IntegrityError(
      `${journalFile}: refusing to start a fresh journal: the fork worktree ${root} does not exist (removed?); see \`stepchain forks\``,
    );
  }
}

/**
 * `refuseRemovedJournal` for the journal of `agentId` under `root`, when that
 * journal does not exist yet (a fresh chain would start there). For callers
 * that resolve the project root afterwards: a removed fork's worktree is no
 * project any more, and the refusal should name the fork.
 */
export function refuseRemovedJournalAt(root: string, agentId: string): void {
  if (!isSafeId(agentId)) return;
  const file = path.join(journalDir(root, agentId), JOURNAL_FILE);
  if (!existsSync(file)) refuseRemovedJournal(root, agentId, file);
}
