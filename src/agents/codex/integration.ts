import type { AgentIntegration } from '../types';
import { CODEX_HOOK } from '../hooks';
import { CODEX_ADAPTER } from './hook';
import { CODEX_HOOKS_FILE, planCodexInit } from './init';
import { resumeCodex } from './resume';
import { codexProxy } from './proxy';

/** Codex CLI (docs/agents.md, "Codex"). */
export const codexIntegration: AgentIntegration = {
  ...CODEX_HOOK,
  adapter: CODEX_ADAPTER,
  configFile: CODEX_HOOKS_FILE,
  planInit: planCodexInit,
  resume: { supported: true, fork: resumeCodex },
  proxy: codexProxy,
};
