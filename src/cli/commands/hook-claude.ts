import path from 'node:path';
import { handleClaudeHook } from '../../claude';
import { sanitize } from '../../replay/text';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { ROOT_OPTION } from '../common';

/**
 * The Claude Code hook command. Whatever happens it never exits 2 (Claude Code
 * reads exit 2 as "block"): 0 when everything was recorded, 1 with one line per
 * problem on stderr otherwise. It prints nothing on stdout (Claude Code adds a
 * SessionStart or UserPromptSubmit hook's stdout to the model's context).
 */
export const hookClaudeCommand: Command = {
  name: ['hook', 'claude'],
  usage: '[--root DIR] [--no-snapshot]  (reads one Claude Code hook payload on stdin)',
  summary:
    'Record one Claude Code hook event: a tool call becomes a step of the journal claude-<session_id>, ' +
    'session events and compactions go to its run journal. Never blocks the agent (exit 0 or 1, never 2).',
  description:
    'Configured as a Claude Code hook by `stepchain init claude`; Claude Code runs it with one JSON payload on stdin ' +
    '(PostToolUse, PostToolUseFailure, SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd). The project root ' +
    "is found from the payload's cwd. It prints nothing on stdout; a failure is one line on stderr, and whatever could " +
    'be recorded is.',
  options: {
    ...ROOT_OPTION,
    'no-snapshot': { kind: 'flag', description: 'Do not store a worktree snapshot with each step.' },
  },
  examples: [
    {
      run: `echo '{"hook_event_name":"SessionStart","session_id":"s1","cwd":"'$PWD'","source":"startup"}' | stepchain hook claude`,
      what: 'what Claude Code does at the start of a session',
    },
  ],
  maxExitCode: 1,
  exitCodes: {
    0: 'recorded (or nothing to record)',
    1: 'not recorded (the reason on stderr); never 2, which would block the agent',
  },
  run(args, io) {
    expectPositionals(args, [], 'hook claude');
    let bytes: Buffer;
    try {
      bytes = io.readStdin();
    } catch (e) {
      io.err(`stepchain: hook claude: cannot read the payload on stdin: ${(e as Error).message}`);
      return 1;
    }
    const root = args.values.get('root');
    const r = handleClaudeHook(bytes, {
      env: io.env,
      ...(root === undefined ? {} : { root: path.resolve(io.cwd, root) }),
      ...(args.flags.has('no-snapshot') ? { snapshot: false } : {}),
    });
    for (const w of r.warnings) io.err(`stepchain: hook claude: warning: ${sanitize(w)}`);
    for (const e of r.errors) io.err(`stepchain: hook claude: ${sanitize(e)}`);
    if (args.positionals.length > 0)
      io.err(`stepchain: hook claude: unexpected argument ${JSON.stringify(args.positionals[0])} (ignored)`);
    return r.errors.length > 0 ? 1 : 0;
  },
};
