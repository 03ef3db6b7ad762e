import { removeFork } from '../../forks';
import type { Command } from '../command';
import { expectPositionals } from '../args';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const forkRmCommand: Command = {
  name: ['fork', 'rm'],
  usage: '<fork_id> [--force] [--root DIR] [--json]',
  summary:
    'Remove a fork: its worktree, its branch and its snapshot refs (a tombstone refuses later appends to it). ' +
    'Refuses steps recorded since the fork, a writer holding its lock, or uncommitted changes unless --force.',
  description:
    "The branch's last commit is printed, so `git branch <name> <commit>` brings it back. A fork that has forks of its " +
    'own is refused: remove them first. A half-made fork (its creation was interrupted) is removed as far as it got.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    force: {
      kind: 'flag',
      description:
        'Remove it even with steps recorded since the fork point, a writer holding its journal lock, uncommitted changes or untracked files.',
    },
  },
  examples: [{ run: 'stepchain fork rm fork-try-another-fix-20261202-090414-f5aeff', what: 'remove one fork' }],
  exitCodes: {
    0: 'removed',
    1: 'refused (steps since the fork point, a live writer, uncommitted changes without --force; forks of its own)',
    2: 'usage or input error (no such fork)',
  },
  async run(args, io) {
    const [id] = expectPositionals(args, ['fork_id'], 'fork rm');
    const r = await removeFork(rootOf(args, io), id!, { force: args.flags.has('force'), env: io.env });
    if (args.flags.has('json')) {
      io.json({ ...r });
      return 0;
    }
    io.out(`removed fork ${r.fork_session_id}`);
    io.out(`  worktree ${r.worktree}`);
    if (r.branch !== null) io.out(`  branch   ${r.branch}${r.branch_commit ? ` (was ${r.branch_commit})` : ''}`);
    io.out(`  snapshot refs ${r.removed_snapshot_refs}`);
    if (r.tombstone !== null) io.out(`  tombstone ${r.tombstone}`);
    return 0;
  },
};
