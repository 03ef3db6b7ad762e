import path from 'node:path';
import { writeHookFile } from '../hook-file';
import type { AgentIntegration, InitPlan, InitRequest } from '../types';
import { GEMINI_ADAPTER, handleGeminiHook } from './hook';
import { GEMINI_EVENTS, planGeminiSettings } from './settings';
import { folderTrust } from './trust';
import { geminiProxy } from './proxy';

/** Whether a settings text turns Gemini CLI's hooks off (`hooksConfig.enabled: false`). */
function hooksDisabled(text: string | null): boolean {
  if (text === null) return false;
  try {
    const v = JSON.parse(text) as { hooksConfig?: { enabled?: unknown } } | null;
    return v?.hooksConfig?.enabled === false;
  } catch {
    return false;
  }
}

/**
 * `init gemini`: the project's `.gemini/settings.json` (or the file given). Gemini CLI runs a project's hooks only
 * in a trusted folder, a trust the user gives (`~/.gemini/trustedFolders.json`): `init` writes none, and says so,
 * with the one step to take, when the project is not trusted.
 */
function planInit(request: InitRequest): InitPlan {
  const file = request.file ?? path.join(request.root, '.gemini', 'settings.json');
  const plan = planGeminiSettings(file, {
    ...(request.command === undefined ? {} : { command: request.command }),
    remove: request.remove,
  });
  const warnings: string[] = [];
  if (!request.remove) {
    if (hooksDisabled(plan.after))
      warnings.push(
        `${file} sets "hooksConfig.enabled": false: Gemini CLI runs none of its hooks, so nothing is recorded`,
      );
    const projectSettings = path.join(request.root, '.gemini', 'settings.json');
    if (plan.file === projectSettings) {
      const trust = folderTrust(request.root, request.env);
      if (!trust.trusted)
        warnings.push(
          `${request.root} is ${trust.why} in ${trust.file}: Gemini CLI ignores ${projectSettings} there, so nothing ` +
            `would be recorded; trust it: start \`gemini\` in ${request.root} and choose "Trust folder" ` +
            `(or add "${request.root}": "TRUST_FOLDER" to ${trust.file})`,
        );
    }
  }
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
    write: () => writeHookFile(plan),
  };
}

/** Gemini CLI (docs/agents.md, "Gemini CLI"). */
export const geminiIntegration: AgentIntegration = {
  name: 'gemini',
  title: 'Gemini CLI',
  adapter: GEMINI_ADAPTER,
  configFile: '.gemini/settings.json',
  events: GEMINI_EVENTS,
  planInit,
  hook: handleGeminiHook,
  resume: {
    supported: false,
    reason:
      "Gemini CLI's session file is a log of record updates (a model turn is written again as its tool calls " +
      'complete, `$set` lines patch the session) in an undocumented format, and `gemini --resume` picks sessions ' +
      'by its own project index: stepchain cannot cut it with confidence. Fork without --resume (the files and ' +
      'the journal up to the step)',
  },
  proxy: geminiProxy,
};
