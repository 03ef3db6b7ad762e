import { familyOf, listSubagents, type SubagentNode } from '../agents/subagents';
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

/** A subagent as the page draws it: a child of the step that launched it. */
function subagentNode(n: SubagentNode, current: string): ReportForkNode {
  return {
    id: n.journal,
    label: `subagent${n.agent_type === null || n.agent_type === '' ? '' : ` ${n.agent_type}`}`,
    branch: null,
    from_step: n.parent_step,
    parent_step_hash: null,
    steps_since: n.steps,
    journal_ok: n.journal_ok,
    missing: false,
    current: n.journal === current,
    children: n.children.map((c) => subagentNode(c, current)),
  };
}

/**
 * The fork tree around a run, for the report: rooted at the session the run's
 * forks (or, for a fork, its top ancestor) came from, the run itself marked
 * `current`. Null when the project is not a git repository or the run has no forks.
 */
export function forkTreeOf(forest: ForkNode[], agentId: string, subagents: SubagentNode[] = []): ReportForkNode | null {
  const parentOf = new Map<string, string | null>();
  const walk = (list: ForkNode[]): void => {
    for (const n of list) {
      parentOf.set(n.fork_session_id, n.parent_session_id);
      walk(n.children);
    }
  };
  walk(forest);
  // Subagents are the family of the journal whose step launched them (docs/claude.md, "Subagents").
  const walkSub = (list: SubagentNode[]): void => {
    for (const n of list) {
      parentOf.set(n.journal, familyOf(n));
      walkSub(n.children);
    }
  };
  walkSub(subagents);
  let session = agentId;
  const seen = new Set<string>();
  while (parentOf.has(session) && !seen.has(session)) {
    seen.add(session);
    const p = parentOf.get(session);
    if (p === null || p === undefined) break;
    session = p;
  }
  const tops = forest.filter((n) => n.parent_session_id === session);
  const subs = subagents.filter((n) => familyOf(n) === session);
  if (tops.length === 0 && subs.length === 0) return null;
  return {
    id: session,
    current: session === agentId,
    children: [...tops.map((n) => toReportNode(n, agentId)), ...subs.map((n) => subagentNode(n, agentId))],
  };
}

/** `forkTreeOf(listForks(root), listSubagents(root))`; outside a git repository, the subagents only (null: none). */
export async function reportForkTree(
  root: string,
  agentId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ReportForkNode | null> {
  const subagents = listSubagents(root, env);
  if (repoInfo(root, env) === undefined) return forkTreeOf([], agentId, subagents);
  return forkTreeOf(await listForks(root, env), agentId, subagents);
}
