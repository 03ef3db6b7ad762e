import path from 'node:path';
import { handleClaudeHook } from '../../claude';
import { sanitize } from '../../replay/text';
import type { Command } from '../command';

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
  options: { root: { kind: 'value' }, 'no-snapshot': { kind: 'flag' } },
  run(args, io) {
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
