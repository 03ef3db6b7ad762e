import { repoInfo } from '../git';
import { listForks, type ForkNode } from '../forks';
import type { ReportForkNode } from './client/data';

/** One fork as the page draws it. */
function toReportNode(n: ForkNode, current: string): ReportForkNode {
  return {
    id: n.fork_session_id,
    label: n.label,
    branch: n.branch,
    from_step: n.from_step,
    parent_step_hash: n.parent_step_hash,
    steps_since: n.steps_since,
    journal_ok: n.journal_ok,
    missing: n.missing,
    current: n.fork_session_id === current,
    children: n.children.map((c) => toReportNode(c, current)),
  };
}

/**
 * The fork tree around a run, for the report: rooted at the session the run's
 * forks (or, for a fork, its top ancestor) came from, the run itself marked
 * `current`. Null when the project is not a git repository or the run has no forks.
 */
export function forkTreeOf(forest: ForkNode[], agentId: string): ReportForkNode | null {
  const parentOf = new Map<string, string | null>();
  const walk = (list: ForkNode[]): void => {
    for (const n of list) {
      parentOf.set(n.fork_session_id, n.parent_session_id);
      walk(n.children);
    }
  };
  walk(forest);
  let session = agentId;
  const seen = new Set<string>();
  while (parentOf.has(session) && !seen.has(session)) {
    seen.add(session);
    const p = parentOf.get(session);
    if (p === null || p === undefined) break;
    session = p;
  }
  const tops = forest.filter((n) => n.parent_session_id === session);
  if (tops.length === 0) return null;
  return { id: session, current: session === agentId, children: tops.map((n) => toReportNode(n, agentId)) };
}

/** `forkTreeOf(listForks(root))`, or null outside a git repository. */
export async function reportForkTree(
  root: string,
  agentId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ReportForkNode | null> {
  if (repoInfo(root, env) === undefined) return null;
  return forkTreeOf(await listForks(root, env), agentId);
}
