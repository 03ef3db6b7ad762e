import { handleClaudeHook, RECORDED_EVENTS } from './claude/hook';
import { CODEX, CODEX_EVENTS, handleCodexHook } from './codex/hook';
import { COPILOT_EVENTS, handleCopilotHook } from './copilot/hook';
import { handleGeminiHook } from './gemini/hook';
import { GEMINI_EVENTS } from './gemini/settings';
import { handleOpenCodeHook, OPENCODE_EVENTS } from './opencode/hook';
import type { AgentIntegration } from './types';

/** What `stepchain hook <agent>` needs of an agent's integration (./types.ts): its names, its events, its hook. */
export type AgentHook = Pick<AgentIntegration, 'name' | 'title' | 'events' | 'hook'>;

export const CLAUDE_HOOK: AgentHook = {
  name: 'claude',
  title: 'Claude Code',
  events: RECORDED_EVENTS,
  hook: handleClaudeHook,
};
export const CODEX_HOOK: AgentHook = { name: CODEX, title: 'Codex', events: CODEX_EVENTS, hook: handleCodexHook };
export const GEMINI_HOOK: AgentHook = {
  name: 'gemini',
  title: 'Gemini CLI',
  events: GEMINI_EVENTS,
  hook: handleGeminiHook,
};
export const COPILOT_HOOK: AgentHook = {
  name: 'copilot',
  title: 'GitHub Copilot CLI',
  events: COPILOT_EVENTS,
  hook: handleCopilotHook,
};
export const OPENCODE_HOOK: AgentHook = {
  name: 'opencode',
  title: 'OpenCode',
  events: OPENCODE_EVENTS,
  hook: handleOpenCodeHook,
};

/**
 * Every agent's hook, in the order of the agents' registry (./registry.ts), whose integrations are built on these.
 * The hook commands are made from this list, not the registry: the hook entry (src/cli/hook-entry.ts), which an
 * agent starts on every tool call, then holds none of what `init`, `fork --resume` and `record` need of an agent
 * (a quarter of its program, every byte of it read, checked and loaded on each call).
 */
export const AGENT_HOOKS: readonly AgentHook[] = [CLAUDE_HOOK, CODEX_HOOK, GEMINI_HOOK, COPILOT_HOOK, OPENCODE_HOOK];
