import path from 'node:path';
import { planHookFileInit, type HookFileInit } from '../hook-init';
import type { AgentIntegration } from '../types';
import { GEMINI_HOOK } from '../hooks';
import { GEMINI_ADAPTER } from './hook';
import { GEMINI_HOOK_FILE } from './settings';
import { folderTrust } from './trust';
import { geminiProxy } from './proxy';

/**
 * `init gemini`: the project's `.gemini/settings.json` (or the file given). Gemini CLI runs a project's hooks only
 * in a trusted folder, a trust the user gives (`~/.gemini/trustedFolders.json`): `init` writes none, and says so,
 * with the one step to take, when the project is not trusted.
 */
const GEMINI_INIT: HookFileInit = {
  spec: GEMINI_HOOK_FILE,
  configFile: '.gemini/settings.json',
  warnings: (request, plan) => {
    const projectSettings = path.join(request.root, '.gemini', 'settings.json');
    if (request.remove || plan.file !== projectSettings) return [];
    const trust = folderTrust(request.root, request.env);
    return trust.trusted
      ? []
      : [
          `${request.root} is ${trust.why} in ${trust.file}: Gemini CLI ignores ${projectSettings} there, so nothing ` +
            `would be recorded; trust it: start \`gemini\` in ${request.root} and choose "Trust folder" ` +
            `(or add "${request.root}": "TRUST_FOLDER" to ${trust.file})`,
        ];
  },
};

/** Gemini CLI (docs/agents.md, "Gemini CLI"). */
export const geminiIntegration: AgentIntegration = {
  ...GEMINI_HOOK,
  adapter: GEMINI_ADAPTER,
  configFile: GEMINI_INIT.configFile,
  planInit: (request) => planHookFileInit(GEMINI_INIT, request),
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
