import path from 'node:path';
import { CLAUDE_ADAPTER } from '../../runs';
import { planHookFileInit, type HookFileInit } from '../hook-init';
import { CLAUDE_HOOK } from '../hooks';
import type { AgentIntegration, ResumeRequest, ResumeResult } from '../types';
import { forkClaudeSession } from './resume';
import { CLAUDE_HOOK_FILE } from './settings';
import { claudeProxy } from './proxy';

/** `init claude`: the project's `.claude/settings.json` (or the file given), nothing outside it. */
const CLAUDE_INIT: HookFileInit = {
  spec: CLAUDE_HOOK_FILE,
  configFile: '.claude/settings.json',
  warnings: (request, plan) => {
    // Claude Code reads a project's settings only when started in the directory holding them.
    const projectSettings = path.join(request.root, '.claude', 'settings.json');
    return !request.remove && plan.file === projectSettings && path.resolve(request.cwd) !== request.root
      ? [`Claude Code reads ${projectSettings} only when started in ${request.root}: start \`claude\` there`]
      : [];
  },
};

async function resume(request: ResumeRequest): Promise<ResumeResult> {
  const r = await forkClaudeSession({
    root: request.root,
    agent: request.agent,
    fromStep: request.fromStep,
    env: request.env,
    ...(request.label === undefined ? {} : { label: request.label }),
  });
  return {
    fork: r.fork,
    warnings: r.warnings,
    command: r.command,
    lines: [
      `transcript ${r.plan.transcript} (lines 1..${r.plan.cut.line} of the session, ending with the result of ${r.plan.toolUseId})`,
    ],
    details: {
      claude_session_id: r.plan.sessionId,
      claude_transcript: r.plan.transcript,
      resumes_after_tool_use_id: r.plan.toolUseId,
    },
  };
}

/** Claude Code (docs/claude.md). */
export const claudeIntegration: AgentIntegration = {
  ...CLAUDE_HOOK,
  adapter: CLAUDE_ADAPTER,
  configFile: CLAUDE_INIT.configFile,
  planInit: (request) => planHookFileInit(CLAUDE_INIT, request),
  resume: { supported: true, fork: resume },
  proxy: claudeProxy,
};
