import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { isJsonObject, JsonParseError, parseBytes, type JsonObject, type JsonValue } from '../canonical';
import { IntegrityError } from '../errors';
import { runtimeDir } from '../journal';
import { assertSafeId } from '../util/ids';
import { readRegularFile } from '../util/nofollow';

/** How forks are named and where their files lie: fork ids, branches, worktrees, session files. */

export const FORK_ID = /^fork-(?:[a-z0-9-]+-)?[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$/;

/** A label as it appears in a fork id: lowercase letters, digits and single dashes, at most 40 characters. */
export function labelSlug(label: string): string {
  return label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/** `fork-[<label slug>-]<YYYYMMDD-HHMMSS>-<6 hex>` (UTC). */
export function newForkId(label?: string, now: Date = new Date()): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const stamp = `${p(now.getUTCFullYear(), 4)}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const slug = label === undefined ? '' : labelSlug(label);
  return `fork-${slug ? `${slug}-` : ''}${stamp}-${randomBytes(3).toString('hex')}`;
}

export function worktreesDir(root: string): string {
  return path.join(root, '.sdd', 'worktrees');
}

/** `<root>/.sdd/worktrees/<fork_id>`. */
export function forkWorktreePath(root: string, forkId: string): string {
  return path.join(worktreesDir(root), assertSafeId(forkId, 'fork id'));
}

/** `fork/<parent branch or "session">/<fork_id>`. */
export function forkBranchName(parentBranch: string | undefined, forkId: string): string {
  return `fork/${parentBranch ?? 'session'}/${forkId}`;
}

/**
 * Whether `branch` has the shape of the branch `forkBranchName` gives fork `forkId`: the only branch `fork rm`
 * deletes. The branch a fork's worktree has checked out now (its agent may have switched to a user's branch) or
 * the one its session file names (the fork's agent can write that file) is not evidence enough.
 */
export function isForkBranchOf(branch: string, forkId: string): boolean {
  return branch.startsWith('fork/') && branch.endsWith(`/${forkId}`) && branch.length > `fork//${forkId}`.length;
}

export function sessionsDir(root: string): string {
  return path.join(runtimeDir(root), 'sessions');
}

/** `<root>/.sdd/runtime/sessions/<session>.json`. */
export function sessionFile(root: string, sessionId: string): string {
  return path.join(sessionsDir(root), `${assertSafeId(sessionId, 'session id')}.json`);
}

/**
 * A session file is names and ids (a fork's is its parent's and one block more, so nesting adds a little each
 * time): 16 MiB is far above one, and a larger file is refused, naming it, rather than held.
 */
const MAX_SESSION_FILE_BYTES = 16 * 1024 * 1024;

/** A session file's JSON object, or undefined when there is none. */
export function readSessionFile(file: string): JsonObject | undefined {
  const bytes = readRegularFile(file, { maxBytes: MAX_SESSION_FILE_BYTES });
  if (bytes === undefined) return undefined;
  let v: JsonValue;
  try {
    v = parseBytes(bytes);
  } catch (e) {
    if (e instanceof JsonParseError) throw new IntegrityError(`${file}: session file is not JSON: ${e.message}`);
    throw e;
  }
  if (!isJsonObject(v)) throw new IntegrityError(`${file}: session file is not a JSON object`);
  return v;
}
