import { readdirSync } from 'node:fs';
import { compareCodePoints, type JsonValue } from '../canonical';
import { journalFile, verifyJournalFile } from '../journal';
import { readRunJournalFile, runJournalFile, runsDir, type ObservedItem } from '../runs';
import { forestOf } from '../util/forest';
import { pathKind } from '../util/fs';
import { isSafeId } from '../util/ids';
import { sanitize } from '../util/terminal';
import { runEvent } from './kit';

/**
 * Subagents as journals of their own (docs/claude.md "Subagents"). A subagent's tool calls are the steps of
 * `<session journal>-<agent_id>`; the session's run journal holds what links it to its family, as run events:
 *
 * - `subagent_start` {agent_id, agent_type, journal}: the agent said the subagent started;
 * - `subagent_link` {agent_id, agent_type, journal, parent_journal, parent_step, parent_tool_use_id, status}:
 *   the step of `parent_journal` whose tool call launched it, recorded by the same hook call that appends that
 *   step, so the link holds whatever order the agent's hooks arrive in (an asynchronous subagent's steps come
 *   after the step that launched it, a synchronous one's before);
 * - `subagent_stop` {agent_id, agent_type, journal, last_assistant_message}.
 *
 * The family is read back from those events (`listSubagents`), never from the journals' names.
 */

export const SUBAGENT_START = 'subagent_start';
export const SUBAGENT_LINK = 'subagent_link';
export const SUBAGENT_STOP = 'subagent_stop';

/** An agent's id for a subagent, as it becomes a path: 1-64 of A-Z a-z 0-9 _ -, so the journal id stays safe. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The journal of a subagent of `parentJournal`, or undefined when `agentId` is not safe as a path segment. */
export function subagentJournalId(parentJournal: string, agentId: string): string | undefined {
  if (!AGENT_ID.test(agentId)) return undefined;
  const id = `${parentJournal}-${agentId}`;
  return isSafeId(id) ? id : undefined;
}

const orNull = (v: string | null | undefined): JsonValue => v ?? null;

export function subagentStartItem(agentId: string, agentType: string | null, journal: string): ObservedItem {
  return runEvent(SUBAGENT_START, [
    ['agent_id', agentId],
    ['agent_type', orNull(agentType)],
    ['journal', journal],
  ]);
}

export interface SubagentLink {
  agentId: string;
  agentType: string | null;
  journal: string;
  parentJournal: string;
  /** The seq of the parent's step (null when that step could not be recorded). */
  parentStep: number | null;
  parentToolUseId: string | null;
  /** What the agent said of the launch (`completed`, `async_launched`, ...). */
  status: string | null;
}

export function subagentLinkItem(l: SubagentLink): ObservedItem {
  return runEvent(SUBAGENT_LINK, [
    ['agent_id', l.agentId],
    ['agent_type', orNull(l.agentType)],
    ['journal', l.journal],
    ['parent_journal', l.parentJournal],
    ['parent_step', l.parentStep],
    ['parent_tool_use_id', orNull(l.parentToolUseId)],
    ['status', orNull(l.status)],
  ]);
}

export function subagentStopItem(
  agentId: string,
  agentType: string | null,
  journal: string,
  lastMessage: string | null,
): ObservedItem {
  return runEvent(SUBAGENT_STOP, [
    ['agent_id', agentId],
    ['agent_type', orNull(agentType)],
    ['journal', journal],
    ['last_assistant_message', orNull(lastMessage)],
  ]);
}

/** One subagent journal and where it hangs in its family. */
export interface SubagentNode {
  journal: string;
  agent_id: string;
  agent_type: string | null;
  /** The journal whose step launched it (null when no link was recorded: only its start or stop). */
  parent_journal: string | null;
  parent_step: number | null;
  parent_tool_use_id: string | null;
  status: string | null;
  /** The run journal the events are in (the session's). */
  run: string;
  started: boolean;
  stopped: boolean;
  /** Steps in its journal (null: no journal, e.g. a subagent that made no tool call). */
  steps: number | null;
  journal_ok: boolean | null;
  children: SubagentNode[];
}

const str = (p: Map<string, JsonValue>, k: string): string | null => {
  const v = p.get(k);
  return typeof v === 'string' ? v : null;
};

/**
 * Every subagent recorded under `root`, as a forest: each node under the subagent whose step launched it, the
 * top-level nodes under their session's journal (`parent_journal`, or the run journal that holds the events when
 * no link was recorded). Unreadable run journals are skipped (`run verify` names what is wrong with them).
 */
export function listSubagents(root: string, env?: NodeJS.ProcessEnv): SubagentNode[] {
  let runs: string[];
  try {
    runs = readdirSync(runsDir(root)).filter(isSafeId).sort();
  } catch {
    return [];
  }
  const nodes = new Map<string, SubagentNode>();
  for (const run of runs) {
    const file = runJournalFile(root, run);
    if (pathKind(file) !== 'file') continue;
    let entries;
    try {
      entries = readRunJournalFile(file).entries;
    } catch {
      continue;
    }
    for (const { row } of entries) {
      if (row.event !== SUBAGENT_START && row.event !== SUBAGENT_LINK && row.event !== SUBAGENT_STOP) continue;
      const journal = str(row.payload, 'journal');
      const agentId = str(row.payload, 'agent_id');
      if (journal === null || agentId === null || !isSafeId(journal)) continue;
      let n = nodes.get(journal);
      if (n === undefined) {
        n = {
          journal,
          agent_id: agentId,
          agent_type: null,
          parent_journal: null,
          parent_step: null,
          parent_tool_use_id: null,
          status: null,
          run,
          started: false,
          stopped: false,
          steps: null,
          journal_ok: null,
          children: [],
        };
        nodes.set(journal, n);
      }
      n.agent_type ??= str(row.payload, 'agent_type');
      if (row.event === SUBAGENT_START) n.started = true;
      if (row.event === SUBAGENT_STOP) n.stopped = true;
      if (row.event === SUBAGENT_LINK) {
        const step = row.payload.get('parent_step');
        n.parent_journal = str(row.payload, 'parent_journal');
        n.parent_step = typeof step === 'number' && Number.isSafeInteger(step) ? step : null;
        n.parent_tool_use_id = str(row.payload, 'parent_tool_use_id');
        n.status = str(row.payload, 'status');
      }
    }
  }
  // Only what was started or launched is a subagent of the family: Claude Code's compaction summariser fires a
  // SubagentStop alone (recorded as it came, listed nowhere).
  for (const [journal, n] of nodes) if (!n.started && n.parent_journal === null) nodes.delete(journal);
  for (const n of nodes.values()) {
    const jf = journalFile(root, n.journal);
    if (pathKind(jf) !== 'file') continue;
    const v = verifyJournalFile(jf, {}, env);
    n.steps = v.steps;
    n.journal_ok = v.ok;
  }
  return forestOf(
    nodes.values(),
    (n) => (n.parent_journal === null ? undefined : nodes.get(n.parent_journal)),
    (a, b) => (a.parent_step ?? -1) - (b.parent_step ?? -1) || compareCodePoints(a.journal, b.journal),
  );
}

/** The journal a top-level subagent belongs to (its parent's, else its session's run journal). */
export function familyOf(n: SubagentNode): string {
  return n.parent_journal ?? n.run;
}

function summary(n: SubagentNode): string {
  const parts = [n.journal, `subagent${n.agent_type === null ? '' : ` ${JSON.stringify(n.agent_type)}`}`];
  parts.push(n.parent_step === null ? 'launching step unknown' : `launched by step ${n.parent_step}`);
  if (n.status === 'async_launched') parts.push('async');
  parts.push(n.steps === null ? 'no steps' : `${n.steps} step${n.steps === 1 ? '' : 's'}`);
  if (n.journal_ok === false) parts.push('JOURNAL DOES NOT VERIFY');
  if (n.started && !n.stopped) parts.push('not stopped');
  return sanitize(parts.join('  '));
}

/** The subagent forest for a terminal, grouped under the session journals they belong to. */
export function drawSubagents(nodes: SubagentNode[]): string[] {
  const lines: string[] = [];
  const draw = (list: SubagentNode[], prefix: string): void => {
    list.forEach((n, i) => {
      const last = i === list.length - 1;
      lines.push(`${prefix}${last ? '└── ' : '├── '}${summary(n)}`);
      draw(n.children, `${prefix}${last ? '    ' : '│   '}`);
    });
  };
  const bySession = new Map<string, SubagentNode[]>();
  for (const n of nodes) bySession.set(familyOf(n), [...(bySession.get(familyOf(n)) ?? []), n]);
  for (const [session, list] of bySession) {
    lines.push(sanitize(session));
    draw(list, '');
  }
  return lines;
}
