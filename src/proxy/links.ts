import type { TornTailMoved } from '../util/chain-file';
import { readdirSync } from 'node:fs';
import { journalFile } from '../journal';
import { hookCallsOf } from './hook-calls';
import { readRunJournalFile, runJournalFile, runsDir } from '../runs';
import { exchangeLinksIn, recordExchangeLinks, type ExchangeLink } from '../runs/exchange-links';
import { isSafeId } from '../util/ids';
import { mayHoldJsonText } from '../util/json-bytes';
import { readRegularFile, regularFileExists } from '../util/nofollow';

/**
 * `record` links each exchange that asked for tool calls to the hook steps that ran them (docs/record.md "Hook steps
 * and the exchange behind them"), when the agent's hooks are installed too. The hook cannot write the link: when
 * its step is appended (PostToolUse), the exchange is not a step yet (a step waits for the request that carries its
 * tool results). So `record` writes it, right after appending the exchange (the hook step is there by then: the
 * agent runs its hooks before it sends the results), and again at its end for any tool call not linked yet (a
 * hook step that came later); both writes are idempotent under the run journal's lock. Which hook journal a
 * request's calls went to is the agent's to say (`AgentProxy.hookSession`, src/agents/hook-session.ts).
 */

/** An exchange step with tool calls, and the hook journal its tool calls went to. */
export interface LinkableStep {
  hookJournal: string;
  exchangeJournal: string;
  seq: number;
  step_hash: string;
  /** Its tool calls, each as the ids a hook step may name it by (`exchangeCalls`). */
  calls: string[][];
}

export interface LinkOutcome {
  /** Links that hold now (written now or before). */
  linked: string[];
  /** Tool calls no hook step names (yet), by their first id. */
  unlinked: string[];
  /**
   * Tool call ids not linked because the link would not be sure: several steps of the hook journal name the id, or
   * the step that does is linked to another exchange already. Never linked, even at the end.
   */
  ambiguous: string[];
  written: number;
  /** Whether the hook journal exists (no journal: the hooks are not installed, nothing to link). */
  hookJournalExists: boolean;
}

/** The hook steps an exchange link names already, with the exchange each is linked to (`journal:seq`). */
function linkedHookSteps(root: string, hookJournal: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const l of exchangeLinksIn(runJournalFile(root, hookJournal)))
    out.set(l.hook_seq, `${l.exchange_journal}:${l.exchange_seq}`);
  return out;
}

/**
 * Finds the hook step of each of `s`'s tool calls and records the links. Fail-closed: an id that several hook steps
 * name, or whose step is linked to another exchange already, is not linked (`ambiguous`). Throws on a write failure.
 */
export function linkExchange(
  root: string,
  s: LinkableStep,
  options: { env: NodeJS.ProcessEnv; onTornTail?: (m: TornTailMoved) => void },
): LinkOutcome {
  const file = journalFile(root, s.hookJournal);
  if (!regularFileExists(file))
    return { linked: [], unlinked: s.calls.map((c) => c[0]!), ambiguous: [], written: 0, hookJournalExists: false };
  const byId = hookCallsOf(file);
  const taken = linkedHookSteps(root, s.hookJournal);
  const links: ExchangeLink[] = [];
  const unlinked: string[] = [];
  const ambiguous: string[] = [];
  for (const names of s.calls) {
    const found = names.flatMap((id) => (byId.get(id) ?? []).map((h) => ({ id, ...h })));
    if (found.length === 0) {
      unlinked.push(names[0]!);
      continue;
    }
    const h = found[0]!;
    const id = h.id;
    const other = taken.get(h.seq);
    if (found.length > 1 || (other !== undefined && other !== `${s.exchangeJournal}:${s.seq}`)) {
      ambiguous.push(id);
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
  const written = links.length === 0 ? [] : recordExchangeLinks(root, links, options);
  return {
    linked: links.map((l) => l.tool_use_id),
    unlinked,
    ambiguous,
    written: written.length,
    hookJournalExists: true,
  };
}

/**
 * The hook journals of `agent` (`<agent>-<session id>`) whose run journal records a `session_start` with the
 * recording's token: the agent's sessions that ran under this recording (src/agents/hook-session.ts). A run journal
 * that names the token and does not verify is counted too (it may be one of them).
 */
export function recordingSessions(root: string, agent: string, token: string): string[] {
  let names: string[];
  try {
    names = readdirSync(runsDir(root));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const id of names.sort()) {
    if (!id.startsWith(`${agent}-`) || !isSafeId(id)) continue;
    const file = runJournalFile(root, id);
    let bytes: Buffer | undefined;
    try {
      bytes = readRegularFile(file);
    } catch {
      continue; // not a regular file: never read through
    }
    if (bytes === undefined || !mayHoldJsonText(bytes, token)) continue;
    // A journal that names the token but does not verify may be one of them: counted, so nothing is linked then.
    let run;
    try {
      run = readRunJournalFile(file);
    } catch {
      out.push(id);
      continue;
    }
    if (
      !run.chain_ok ||
      run.entries.some((e) => e.row.event === 'session_start' && e.row.payload.get('recording') === token)
    )
      out.push(id);
  }
  return out;
}
