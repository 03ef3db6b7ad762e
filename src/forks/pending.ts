import { readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { ensureDir, fsyncDir, pathKind, writeFileWhole } from '../util/fs';
import { PRIVATE_FILE_MODE } from '../util/modes';
import { isSafeId } from '../util/ids';
import { sameProcessAlive, selfIdentity } from '../util/proc';
import { readExistingFile } from '../util/nofollow';

/**
 * A fork's creation intent: `<root>/.sdd/worktrees/<fork_id>.pending.json`,
 * written (durably) before anything else of the fork is created and removed
 * once the fork is whole. A creator killed in between leaves it behind, so
 * `stepchain forks` can show the half-made fork (worktree, branch, refs as far
 * as they got) and `stepchain fork rm` can remove exactly what was made.
 */
export interface ForkIntent {
  fork_session_id: string;
  parent_session_id: string;
  worktree: string;
  branch: string;
  /** The branch existed before (it is then never deleted). */
  branch_existed: boolean;
  base: string;
  /** The last parent step the fork keeps (null for a session-level fork). */
  from_step: number | null;
  created_at: string;
  pid: number;
  host: string;
  start: string | null;
  boot: string | null;
}

const SUFFIX = '.pending.json';

export function pendingFile(worktreesDir: string, forkId: string): string {
  return path.join(worktreesDir, `${forkId}${SUFFIX}`);
}

export function writeIntent(worktreesDir: string, intent: Omit<ForkIntent, 'pid' | 'host' | 'start' | 'boot'>): string {
  const me = selfIdentity();
  const full: ForkIntent = { ...intent, pid: me.pid, host: me.host, start: me.start ?? null, boot: me.boot ?? null };
  ensureDir(worktreesDir);
  const file = pendingFile(worktreesDir, intent.fork_session_id);
  writeFileWhole(file, Buffer.from(`${JSON.stringify(full)}\n`, 'utf8'), {
    durable: true,
    exclusive: true,
    mode: PRIVATE_FILE_MODE,
  });
  return file;
}

export function removeIntent(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    return;
  }
  // A directory gone meanwhile (a concurrent fork's undo removes it once empty) holds no entry to make durable.
  const dir = path.dirname(file);
  try {
    fsyncDir(dir);
  } catch (e) {
    if (pathKind(dir) === 'dir') throw e;
  }
}

function parseIntent(text: string): ForkIntent | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const str = (k: string): boolean => typeof o[k] === 'string';
  if (!['fork_session_id', 'parent_session_id', 'worktree', 'branch', 'base', 'created_at', 'host'].every(str))
    return undefined;
  if (typeof o.pid !== 'number' || typeof o.branch_existed !== 'boolean') return undefined;
  if (o.from_step !== null && !(typeof o.from_step === 'number' && Number.isSafeInteger(o.from_step))) return undefined;
  if (!isSafeId(o.fork_session_id as string)) return undefined;
  return v as ForkIntent;
}

/** The intents under one root's `.sdd/worktrees/` (unreadable or malformed ones are skipped), with their files. */
export function readIntents(worktreesDir: string): { file: string; intent: ForkIntent }[] {
  let names: string[];
  try {
    names = readdirSync(worktreesDir);
  } catch {
    return [];
  }
  const out: { file: string; intent: ForkIntent }[] = [];
  for (const n of names.filter((x) => x.endsWith(SUFFIX)).sort()) {
    const file = path.join(worktreesDir, n);
    let text: string;
    try {
      text = readExistingFile(file, { maxBytes: 1 << 20 }).toString('utf8');
    } catch {
      continue;
    }
    const intent = parseIntent(text);
    if (intent !== undefined && `${intent.fork_session_id}${SUFFIX}` === n) out.push({ file, intent });
  }
  return out;
}

/** The creator's pid while it is still running (creation in progress), else undefined. */
export function liveCreator(intent: ForkIntent): number | undefined {
  if (intent.host !== selfIdentity().host) return undefined;
  return sameProcessAlive(intent.pid, intent.start ?? undefined, intent.boot ?? undefined) ? intent.pid : undefined;
}
