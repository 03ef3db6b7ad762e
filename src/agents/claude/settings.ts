import { planHookFile, type HookFilePlan, type HookFileSpec } from '../hook-file';
import { writeHookFile } from '../hook-file-io';
import { RECORDED_EVENTS } from './hook';

/**
 * `stepchain init claude`: stepchain's hook entries in a Claude Code settings file (default
 * `<root>/.claude/settings.json`). The merge is the shared one for hook files of Claude Code's schema
 * (`../hook-file.ts`); this is what is Claude Code's own.
 */
export const CLAUDE_HOOK_FILE: HookFileSpec = {
  agent: 'claude',
  title: 'Claude Code',
  events: RECORDED_EVENTS,
  // Tool events take a tool-name matcher; the others match every occurrence without one.
  matchers: { PostToolUse: '*', PostToolUseFailure: '*' },
  matcherIgnored: new Set(['UserPromptSubmit', 'Stop']),
  disableKey: 'disableAllHooks',
};

export type ClaudeSettingsPlan = HookFilePlan;

/** What `init claude` would do to `file` (nothing is written). */
export function planClaudeSettings(file: string, options: { command?: string; remove?: boolean } = {}): HookFilePlan {
  return planHookFile(file, CLAUDE_HOOK_FILE, options);
}

/** Writes a plan's new text (atomically; refused when the file changed meanwhile). */
export const writeClaudeSettings = writeHookFile;
