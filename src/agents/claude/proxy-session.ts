import type { IncomingHttpHeaders } from 'node:http';
import { isSafeId } from '../../util/ids';
import { oneHeader, type HookSession } from '../hook-session';
import { subagentJournalId } from '../subagents';

/**
 * The hook journal a Claude Code model request belongs to, from its headers (measured with 2.1.328: every request
 * names its session in `X-Claude-Code-Session-Id`, a subagent's adds `x-claude-code-agent-id`): `claude-<session_id>`,
 * or the subagent's `claude-<session_id>-<agent_id>`, the journals the hooks write (src/agents/claude/hook.ts).
 * Undefined when a header is missing, repeated or not safe as a journal id: the request's tool calls are not linked.
 */
export function claudeHookJournal(headers: IncomingHttpHeaders): string | undefined {
  const sid = oneHeader(headers, 'x-claude-code-session-id');
  if (sid === undefined) return undefined;
  const session = `claude-${sid}`;
  if (!isSafeId(session)) return undefined;
  if (headers['x-claude-code-agent-id'] === undefined) return session;
  const agent = oneHeader(headers, 'x-claude-code-agent-id');
  return agent === undefined ? undefined : subagentJournalId(session, agent);
}

/** `AgentProxy.hookSession` for Claude Code: the journal its headers name. */
export function claudeHookSession(request: { headers: IncomingHttpHeaders }): HookSession | undefined {
  const journal = claudeHookJournal(request.headers);
  return journal === undefined ? undefined : { journal };
}
