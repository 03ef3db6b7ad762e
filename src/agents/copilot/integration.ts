import path from 'node:path';
import type { HookFileSpec } from '../hook-file';
import { planHookFileInit, type HookFileInit } from '../hook-init';
import type { AgentIntegration } from '../types';
import { COPILOT_HOOK } from '../hooks';
import { COPILOT_ADAPTER, COPILOT_EVENTS } from './hook';
import { copilotHome, folderTrust } from './home';
import { copilotProxy } from './proxy';

/**
 * `init copilot`: stepchain's own hook file, `.github/hooks/stepchain.json` (Copilot loads every
 * `.github/hooks/*.json` of the repository it runs in), in Copilot's documented format with Claude Code's event
 * names (which give Claude-style payloads). Copilot runs a project's hooks only in a folder the user trusted:
 * `init` reads that trust and says what to do when it is missing; trusting a folder stays the user's decision.
 */
export const COPILOT_HOOK_FILE: HookFileSpec = {
  agent: 'copilot',
  title: 'GitHub Copilot CLI',
  events: COPILOT_EVENTS,
  matchers: {},
  matcherIgnored: new Set(),
  layout: 'flat',
  commandKey: 'bash',
  timeoutKey: 'timeoutSec',
  header: [['version', 1]],
  ownFile: true,
};

const COPILOT_INIT: HookFileInit = {
  spec: COPILOT_HOOK_FILE,
  configFile: '.github/hooks/stepchain.json',
  warnings: (request) => {
    if (request.remove) return [];
    const trust = folderTrust(request.root, request.env);
    return trust.trusted
      ? []
      : [
          `Copilot runs the hooks of ${request.root} only in a trusted folder, and skips them without a word ` +
            `otherwise (${trust.why}): start \`copilot\` in ${request.root} once and answer "Yes" to trusting ` +
            `the folder (or add it to "trustedFolders" in ${path.join(copilotHome(request.env), 'config.json')})`,
        ];
  },
};

/** GitHub Copilot CLI (docs/agents.md "GitHub Copilot CLI"). */
export const copilotIntegration: AgentIntegration = {
  ...COPILOT_HOOK,
  adapter: COPILOT_ADAPTER,
  configFile: COPILOT_INIT.configFile,
  planInit: (request) => planHookFileInit(COPILOT_INIT, request),
  resume: {
    supported: false,
    reason:
      "Copilot's session log (session-state/<id>/events.jsonl) is flushed in batches and shares the session with " +
      'a SQLite store and rewind snapshots; a cut copy cannot be shown to resume as the same conversation, so it is not made',
  },
  proxy: copilotProxy,
};
