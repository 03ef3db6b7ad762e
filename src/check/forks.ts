import path from 'node:path';
import { compareCodePoints, isJsonInteger, isJsonObject, parseBytes, type JsonValue } from '../canonical';
import { flattenForks, listForks } from '../forks';
import { isSafeId } from '../util/ids';
import { readUnder } from '../util/nofollow';
import { globSet, scanFiles, type DirCache } from './glob';
import type { ForkTreeNode } from './markdown';

/**
 * The fork tree as committed: every session snapshot
 * (`.sdd/runtime/sessions/<fork_id>.json`, docs/format.md §4) whose `fork` block names its
 * parent. A PR check sees the files, not the worktrees, so it reads the tree from
 * them. Files that are not session snapshots are skipped, not failed, and so are
 * links (never followed: the tree is shown, not trusted).
 */
export const DEFAULT_SESSIONS = '**/.sdd/runtime/sessions/*.json';

export function forkTreeFromSessions(
  root: string,
  patterns: string | string[] = DEFAULT_SESSIONS,
  cache?: DirCache,
): ForkTreeNode[] {
  const nodes = new Map<string, ForkTreeNode>();
  for (const rel of scanFiles(root, globSet(patterns), cache).files) {
    let v: JsonValue;
    try {
      const r = readUnder(root, rel, 1024 * 1024);
      if (r.kind !== 'file') continue;
      v = parseBytes(r.bytes);
    } catch {
      continue;
    }
    if (!isJsonObject(v)) continue;
    const fork = v['fork'];
    if (!isJsonObject(fork)) continue;
    const id = path.basename(rel, '.json');
    const parent = fork['parent_session_id'];
    if (!isSafeId(id) || typeof parent !== 'string') continue;
    const step = fork['from_step'];
    const label = fork['label'];
    nodes.set(id, {
      id,
      parent,
      fromStep: isJsonInteger(step) && typeof step === 'number' ? step : null,
      label: typeof label === 'string' ? label : null,
    });
  }
  return [...nodes.values()].sort((a, b) => compareCodePoints(a.id, b.id));
}

/**
 * The fork tree a check can see: committed session snapshots, plus the fork
 * worktrees of this checkout (`listForks`; a CI checkout usually has none).
 * A failure to list worktrees leaves the committed tree as it is.
 */
export async function forkTree(
  root: string,
  patterns: string | string[] = DEFAULT_SESSIONS,
  env: NodeJS.ProcessEnv = process.env,
  cache?: DirCache,
): Promise<ForkTreeNode[]> {
  const nodes = new Map(forkTreeFromSessions(root, patterns, cache).map((n) => [n.id, n]));
  try {
    for (const f of flattenForks(await listForks(root, env))) {
      if (nodes.has(f.fork_session_id)) continue;
      nodes.set(f.fork_session_id, {
        id: f.fork_session_id,
        parent: f.parent_session_id,
        fromStep: f.from_step,
        label: f.label,
      });
    }
  } catch {
    /* not a repository with worktrees we can list: the committed tree stands */
  }
  return [...nodes.values()].sort((a, b) => compareCodePoints(a.id, b.id));
}
