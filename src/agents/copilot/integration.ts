import path from 'node:path';
import { planFlatHookFile, writeFlatHookFile, type FlatHookFileSpec } from '../flat-hook-file';
import type { AgentIntegration, InitPlan, InitRequest } from '../types';
import { COPILOT_ADAPTER, COPILOT_EVENTS, handleCopilotHook } from './hook';
import { copilotHome, folderTrust } from './home';
import { copilotProxy } from './proxy';

/**
 * `init copilot`: stepchain's own hook file, `.github/hooks/stepchain.json` (Copilot loads every
 * `.github/hooks/*.json` of the repository it runs in), in Copilot's documented format with Claude Code's event
 * names (which give Claude-style payloads). Copilot runs a project's hooks only in a folder the user trusted:
 * `init` reads that trust and says what to do when it is missing; trusting a folder stays the user's decision.
 */
export const COPILOT_HOOK_FILE: FlatHookFileSpec = {
  agent: 'copilot',
  title: 'GitHub Copilot CLI',
  events: COPILOT_EVENTS,
  commandKey: 'bash',
  header: [['version', 1]],
};

function planInit(request: InitRequest): InitPlan {
  const file = request.file ?? path.join(request.root, '.github', 'hooks', 'stepchain.json');
  const plan = planFlatHookFile(file, COPILOT_HOOK_FILE, {
    ...(request.command === undefined ? {} : { command: request.command }),
    remove: request.remove,
  });
  const warnings: string[] = [];
  if (!request.remove) {
    const trust = folderTrust(request.root, request.env);
    if (!trust.trusted)
      warnings.push(
        `Copilot runs the hooks of ${request.root} only in a trusted folder, and skips them without a word ` +
          `otherwise (${trust.why}): start \`copilot\` in ${request.root} once and answer "Yes" to trusting ` +
          `the folder (or add it to "trustedFolders" in ${path.join(copilotHome(request.env), 'config.json')})`,
      );
  }
  return {
    file: plan.file,
    changes: plan.changed
      ? [{ file: plan.file, before: plan.before, after: plan.after === '' ? null : plan.after }]
      : [],
    changed: plan.changed,
    events: plan.events,
    updated: plan.updated,
    repaired: plan.repaired,
    findings: plan.findings,
    notes: [],
    warnings,
    diff: plan.diff,
    write: () => writeFlatHookFile(plan),
  };
}

/** GitHub Copilot CLI (docs/agents.md "GitHub Copilot CLI"). */
export const copilotIntegration: AgentIntegration = {
  name: 'copilot',
  title: 'GitHub Copilot CLI',
  adapter: COPILOT_ADAPTER,
  configFile: '.github/hooks/stepchain.json',
  events: COPILOT_EVENTS,
  planInit,
  hook: handleCopilotHook,
  resume: {
    supported: false,
    reason:
      "Copilot's session log (session-state/<id>/events.jsonl) is flushed in batches and shares the session with " +
      'a SQLite store and rewind snapshots; a cut copy cannot be shown to resume as the same conversation, so it is not made',
  },
  proxy: copilotProxy,
};
