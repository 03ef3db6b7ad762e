import { PATHS_RULE, regexRule, type NormaliseRule } from '../../proxy/normalise';
import { ANTHROPIC_API } from '../../proxy/providers';
import { baseUrlVarProxy } from '../proxy-kit';
import type { AgentProxy } from '../types';
import { claudeHookSession } from './proxy-session';

/** Claude Code 2.1.328 (`-p`, API key), measured by diffing the raw requests of runs in two directories. */
export const CLAUDE_RULES: readonly NormaliseRule[] = [
  regexRule(
    'metadata.user_id: its session_id',
    /"session_id":"[^"]*"/g,
    '"session_id":"<session>"',
    /^metadata\.user_id$/,
  ),
  PATHS_RULE,
  regexRule(
    'the environment block: the two lines a linked worktree adds after " - Primary working directory:" (the worktree and the shared git stash notes)',
    /\n - (This is a git worktree|The git stash stack is shared)[^\n]*/g,
    '',
  ),
  regexRule("the date: Today's date is YYYY-MM-DD", /Today's date is \d{4}-\d{2}-\d{2}/g, "Today's date is <date>"),
  regexRule('the git status captured at start: Current branch', /(\nCurrent branch: )[^\n]*/g, '$1<branch>'),
  regexRule(
    'the git status captured at start: Status (up to the blank line)',
    /(\nStatus:\n)[\s\S]*?(?=\n\n|$)/g,
    '$1<status>',
  ),
  regexRule(
    'the git status captured at start: Recent commits (up to the blank line)',
    /(\nRecent commits:\n)[\s\S]*?(?=\n\n|$)/g,
    '$1<commits>',
  ),
];

/** Claude Code's model calls go to `ANTHROPIC_BASE_URL` (measured with 2.1.328: main turns, subagents, `/compact`). */
export const claudeProxy: AgentProxy = baseUrlVarProxy({
  agent: 'claude',
  protocol: 'anthropic-messages',
  variable: 'ANTHROPIC_BASE_URL',
  api: ANTHROPIC_API,
  normalise: CLAUDE_RULES,
  baseUrlSource: 'measured',
  hookSession: claudeHookSession,
});
