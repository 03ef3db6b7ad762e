import type { AgentIntegration } from '../types';
import { CODEX, CODEX_ADAPTER, CODEX_EVENTS, handleCodexHook } from './hook';
import { CODEX_HOOKS_FILE, planCodexInit } from './init';
import { resumeCodex } from './resume';
import { codexProxy } from './proxy';

/** Codex CLI (docs/agents.md, "Codex"). */
export const codexIntegration: AgentIntegration = {
  name: CODEX,
  title: 'Codex',
  adapter: CODEX_ADAPTER,
  configFile: CODEX_HOOKS_FILE,
  events: CODEX_EVENTS,
  planInit: planCodexInit,
  hook: handleCodexHook,
  resume: { supported: true, fork: resumeCodex },
  proxy: codexProxy,
};
