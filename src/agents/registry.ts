import { claudeIntegration } from './claude/integration';
import type { AgentIntegration } from './types';

/**
 * Every agent stepchain records, one integration each (docs/agents.md). The CLI's `init <agent>` and
 * `hook <agent>` commands and `fork --resume` are derived from this list: adding an agent is one line here.
 */
export const AGENTS: readonly AgentIntegration[] = [claudeIntegration];

/** The integration named `name` (`claude`), or undefined. */
export function agentNamed(name: string): AgentIntegration | undefined {
  return AGENTS.find((a) => a.name === name);
}

/** The integration whose journals are named like `id` (`<agent>-<session_id>`), or undefined. */
export function agentOfJournal(id: string): AgentIntegration | undefined {
  return AGENTS.find((a) => id.startsWith(`${a.name}-`));
}
