import type { IncomingHttpHeaders } from 'node:http';
import { claudeHookJournal } from '../agents/claude/proxy-session';
import { journalFile, readVerifiedJournal } from '../journal';
import { recordExchangeLinks, toolCallIds, type ExchangeLink } from '../runs/exchange-links';
import { readRegularFile } from '../util/nofollow';

/**
 * `record` links each exchange that asked for tool calls to the hook steps that ran them (docs/record.md "Hook steps
 * and the exchange behind them"), when the agent's hooks are installed too. The hook cannot write the link: when
 * its step is appended (PostToolUse), the exchange is not a step yet (a step waits for the request that carries its
 * tool results). So `record` writes it, right after appending the exchange (the hook step is there by then: the
 * agent runs its hooks before it sends the results), and again at its end for any tool call not linked yet (a
 * hook step that came later); both writes are idempotent under the run journal's lock.
 */

/** Per agent: the hook journal a request's tool calls are recorded in, from its headers. */
const HOOK_JOURNAL_OF: Partial<Record<string, (headers: IncomingHttpHeaders) => string | undefined>> = {
  claude: claudeHookJournal,
};

export function hookJournalOf(agent: string, headers: IncomingHttpHeaders): string | undefined {
  return HOOK_JOURNAL_OF[agent]?.(headers);
}

/** An exchange step with tool calls, and the hook journal its tool calls went to. */
export interface LinkableStep {
  hookJournal: string;
  exchangeJournal: string;
  seq: number;
  step_hash: string;
  toolUseIds: string[];
}

export interface LinkOutcome {
  /** Links that hold now (written now or before). */
  linked: string[];
  /** Tool call ids no hook step names (yet). */
  unlinked: string[];
  written: number;
  /** Whether the hook journal exists (no journal: the hooks are not installed, nothing to link). */
  hookJournalExists: boolean;
}

/** Finds the hook steps of `s`'s tool calls (the last step naming each id) and records the links. Throws on a write failure. */
export function linkExchange(root: string, s: LinkableStep, env: NodeJS.ProcessEnv): LinkOutcome {
  const file = journalFile(root, s.hookJournal);
  if (readRegularFile(file) === undefined)
    return { linked: [], unlinked: s.toolUseIds, written: 0, hookJournalExists: false };
  const byId = new Map<string, { seq: number; step_hash: string }>();
  for (const { row } of readVerifiedJournal(file).entries)
    for (const id of toolCallIds(row.tool_call)) byId.set(id, { seq: row.seq, step_hash: row.step_hash });
  const links: ExchangeLink[] = [];
  const unlinked: string[] = [];
  for (const id of s.toolUseIds) {
    const h = byId.get(id);
    if (h === undefined) {
      unlinked.push(id);
      continue;
    }
    links.push({
      tool_use_id: id,
      hook_journal: s.hookJournal,
      hook_seq: h.seq,
      hook_step_hash: h.step_hash,
      exchange_journal: s.exchangeJournal,
      exchange_seq: s.seq,
      exchange_step_hash: s.step_hash,
    });
  }
  const written = links.length === 0 ? [] : recordExchangeLinks(root, links, { env });
  return { linked: links.map((l) => l.tool_use_id), unlinked, written: written.length, hookJournalExists: true };
}
