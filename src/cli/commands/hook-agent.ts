import path from 'node:path';
import type { AgentHook } from '../../agents/hooks';
import { DeferredSnapshots } from '../../record';
import { sanitize } from '../../replay/text';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { ROOT_OPTION, writeOptions } from '../common';
import { TooLongError } from '../../util/read-to-end';
import { noteCodePath } from '../code-path';
import { branchesTaken } from '../../util/code-branches';

/**
 * The most bytes of a payload a hook reads from stdin: far above any agent's (a tool call's input and response; the
 * agents cut a tool's output to tens of KB before the model sees it), so that a writer that never stops (`yes |`) is
 * refused at this size, not read until memory runs out (300 MB of garbage took 944 MB and 9 s to be refused).
 * The same bound as the recording proxy's on one request.
 */
export const MAX_PAYLOAD_BYTES = 128 * 1024 * 1024;

/**
 * `hook <agent>`: one hook payload on stdin, recorded. Whatever happens it never exits 2 (Claude Code and the
 * agents that share its hook protocol read exit 2 as "block"): 0 when everything was recorded, 1 with one line
 * per problem on stderr otherwise. It prints nothing on stdout (an agent may add a hook's stdout to the
 * model's context).
 */
export function hookCommandFor(agent: AgentHook): Command {
  const word = `hook ${agent.name}`;
  return {
    name: ['hook', agent.name],
    usage: `[--root DIR] [--no-snapshot]  (reads one ${agent.title} hook payload on stdin)`,
    summary:
      `Record one ${agent.title} hook event: a tool call becomes a step of the journal ${agent.name}-<session_id>, ` +
      'session events and compactions go to its run journal. Never blocks the agent (exit 0 or 1, never 2).',
    description:
      `Configured by \`stepchain init ${agent.name}\`; ${agent.title} runs it with one JSON payload on stdin ` +
      `(${agent.events.join(', ')}). It prints nothing on stdout; a failure is one line on stderr, and whatever ` +
      'could be recorded is.',
    options: {
      // Not the shared --root text: a hook finds its project from where the agent works, not from its own cwd.
      root: {
        ...ROOT_OPTION['root']!,
        description:
          'The project root (the directory holding .sdd/). Default: found like git (the nearest directory upwards ' +
          'holding .sdd/, else the top of the git work tree) from the directory the agent started in when it names ' +
          "one (e.g. CLAUDE_PROJECT_DIR), else from the payload's cwd; never from this process's current directory.",
      },
      'no-snapshot': { kind: 'flag', description: 'Do not store a worktree snapshot with each step.' },
    },
    examples: [
      {
        run: `stepchain ${word} < payload.json`,
        what: `what ${agent.title} does at each hook event`,
      },
    ],
    maxExitCode: 1,
    exitCodes: {
      0: 'recorded (or nothing to record)',
      1: 'not recorded (the reason on stderr); never 2, which would block the agent',
    },
    async run(args, io) {
      expectPositionals(args, [], word);
      let bytes: Buffer;
      try {
        bytes = io.readStdin(MAX_PAYLOAD_BYTES);
      } catch (e) {
        const why = e instanceof TooLongError ? `${e.message}; nothing recorded` : (e as Error).message;
        io.err(`stepchain: ${word}: cannot read the payload on stdin: ${why}`);
        return 1;
      }
      const root = args.values.get('root');
      // The agent waits on this process: each step's snapshot adds the work tree while the step is appended.
      const deferSnapshots = new DeferredSnapshots();
      const r = agent.hook(bytes, {
        ...writeOptions(io),
        ...(root === undefined ? {} : { root: path.resolve(io.cwd, root) }),
        ...(args.flags.has('no-snapshot') ? { snapshot: false } : {}),
        deferSnapshots,
      });
      // Which of the agent's events this was (another: one name for all), and a step recorded without a snapshot
      // (outside git, --no-snapshot: most of a step's code not run), for the code cache (../code-path.ts).
      const event = r.event !== undefined && agent.events.includes(r.event) ? r.event : 'other';
      const bare = r.row !== undefined && deferSnapshots.snapshots === 0 ? ' (no snapshot)' : '';
      // And the branches of the library's code it took that others do not (a repository's packs:
      // ../../util/code-branches.ts).
      const branches = branchesTaken();
      noteCodePath(`${word} ${event}${bare}${branches.length > 0 ? ` (${branches.join(', ')})` : ''}`);
      await deferSnapshots.settled();
      for (const w of r.warnings) io.err(`stepchain: ${word}: warning: ${sanitize(w)}`);
      for (const e of r.errors) io.err(`stepchain: ${word}: ${sanitize(e)}`);
      if (args.positionals.length > 0)
        io.err(`stepchain: ${word}: unexpected argument ${JSON.stringify(args.positionals[0])} (ignored)`);
      return r.errors.length > 0 ? 1 : 0;
    },
  };
}
