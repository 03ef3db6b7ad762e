import { planHookFile, type HookFilePlan, type HookFileSpec } from '../hook-file';

/**
 * `stepchain init gemini`: stepchain's hook entries in a Gemini CLI settings file (default
 * `<root>/.gemini/settings.json`). Gemini CLI's `hooks` object has Claude Code's schema
 * (`{"hooks": {"AfterTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "..."}]}]}}`, its
 * docs/hooks/reference.md), so the merge is the shared one (`../hook-file.ts`); every other setting is kept.
 */

/** The events recorded; `init gemini` installs a hook for each (docs/agents.md, "Gemini CLI"). */
export const GEMINI_EVENTS = [
  'SessionStart',
  'BeforeAgent',
  'AfterTool',
  'PreCompress',
  'AfterAgent',
  'SessionEnd',
] as const;

export const GEMINI_HOOK_FILE: HookFileSpec = {
  agent: 'gemini',
  title: 'Gemini CLI',
  events: GEMINI_EVENTS,
  // Tool events take a tool-name regular expression ("*" and "" match every tool); lifecycle events an exact string.
  matchers: { AfterTool: '*' },
  matcherIgnored: new Set(['BeforeAgent', 'AfterAgent']),
  disableKey: 'hooksConfig.enabled',
  disableWhen: false,
};

/** What `init gemini` would do to `file` (nothing is written). */
export function planGeminiSettings(file: string, options: { command?: string; remove?: boolean } = {}): HookFilePlan {
  return planHookFile(file, GEMINI_HOOK_FILE, options);
}
