import path from 'node:path';
import { InputError } from '../../errors';
import { createFork } from '../../git';
import { readPublicKeyFile } from '../../receipt';
import {
  BrokenChainError,
  openReplay,
  replayDocument,
  runInteractive,
  stepTable,
  type ReplaySource,
} from '../../replay';
import type { ParsedArgs } from '../args';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { intArg, JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import type { CommandIO } from '../io';

/**
 * Opens a target for display, verified first. A broken chain prints every fault
 * (`file:line: kind: message`) on stderr and is rethrown: exit 1, nothing shown.
 */
export function openForDisplay(target: string, args: ParsedArgs, io: CommandIO): ReplaySource {
  const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(path.resolve(io.cwd, f)));
  try {
    return openReplay(target, {
      root: rootOf(args, io),
      cwd: io.cwd,
      ...(publicKeys.length > 0 ? { publicKeys } : {}),
    });
  } catch (e) {
    if (e instanceof BrokenChainError) for (const f of e.faults) io.err(f);
    throw e;
  }
}

export const replayCommand: Command = {
  name: ['replay'],
  usage: '<agent|dir|file|receipt> [--root DIR] [--json] [--limit N] [--public-key FILE]...',
  summary:
    'Walk a verified run step by step: interactive on a terminal (n/p, g/G, seq+Enter, /search, Enter expands, f forks, q quits), ' +
    'a table of steps otherwise, or --json. A broken chain: exit 1, nothing shown.',
  options: { ...ROOT_OPTION, ...JSON_OPTION, limit: { kind: 'value' }, 'public-key': { kind: 'list' } },
  async run(args, io) {
    const [target] = expectPositionals(args, ['agent|dir|file|receipt'], 'replay');
    const limitText = args.values.get('limit');
    const limit = limitText === undefined ? undefined : intArg(limitText, '--limit');
    const source = openForDisplay(target!, args, io);
    if (args.flags.has('json')) {
      io.json(replayDocument(source, limit));
      return 0;
    }
    if (!io.isTTY) {
      for (const line of stepTable(source, limit)) io.out(line);
      return 0;
    }
    const projectRoot = source.projectRoot;
    await runInteractive(source, {
      fork: async (seq) => {
        if (projectRoot === undefined) {
          throw new InputError(
            source.kind === 'receipt'
              ? 'a receipt cannot be forked: fork the journal it came from'
              : 'this journal is not in a project (.sdd/runtime/journal/<agent>)',
          );
        }
        const r = await createFork({ root: projectRoot, sessionId: source.agentId, fromStep: seq, env: io.env });
        const warned = r.warnings.length > 0 ? ` (warning: ${r.warnings[0]})` : '';
        return `forked at step ${seq} as ${r.fork_session_id}: worktree ${r.fork_worktree} (branch ${r.fork_branch})${warned}`;
      },
    });
    return 0;
  },
};
