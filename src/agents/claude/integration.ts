import path from 'node:path';
import { CLAUDE_ADAPTER } from '../../runs';
import type { AgentIntegration, InitPlan, InitRequest, ResumeRequest, ResumeResult } from '../types';
import { handleClaudeHook, RECORDED_EVENTS } from './hook';
import { forkClaudeSession } from './resume';
import { planClaudeSettings, writeClaudeSettings } from './settings';
import { claudeProxy } from './proxy';

/** `init claude`: the project's `.claude/settings.json` (or the file given), nothing outside it. */
function planInit(request: InitRequest): InitPlan {
  const file = request.file ?? path.join(request.root, '.claude', 'settings.json');
  const plan = planClaudeSettings(file, {
    ...(request.command === undefined ? {} : { command: request.command }),
    remove: request.remove,
  });
  const warnings = [...plan.warnings];
  // Claude Code reads a project's settings only when started in the directory holding them.
  const projectSettings = path.join(request.root, '.claude', 'settings.json');
  if (!request.remove && plan.file === projectSettings && path.resolve(request.cwd) !== request.root)
    warnings.push(`Claude Code reads ${projectSettings} only when started in ${request.root}: start \`claude\` there`);
  return {
    file: plan.file,
    changes: plan.changed ? [{ file: plan.file, before: plan.before, after: plan.after }] : [],
    changed: plan.changed,
    events: plan.events,
    updated: plan.updated,
    repaired: plan.repaired,
    findings: plan.findings,
    notes: [],
    warnings,
    diff: plan.diff,
    write: () => writeClaudeSettings(plan),
  };
}

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
  name: 'claude',
  title: 'Claude Code',
  adapter: CLAUDE_ADAPTER,
  configFile: '.claude/settings.json',
  events: RECORDED_EVENTS,
  planInit,
  hook: handleClaudeHook,
  resume: { supported: true, fork: resume },
  proxy: claudeProxy,
};
