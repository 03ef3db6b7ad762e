import { drawForks, listForks } from '../../forks';
import type { Command } from '../command';
import { expectPositionals } from '../args';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const forksCommand: Command = {
  name: ['forks'],
  usage: '[--root DIR] [--json]',
  summary: 'Every fork of this repository as a tree: parent, fork step, branch, worktree, steps recorded since.',
  description:
    "Built from `git worktree list` and each fork worktree's session file: it cannot disagree with what is on disk. " +
    'A fork whose directory was deleted by hand is listed as missing.',
  options: { ...ROOT_OPTION, ...JSON_OPTION },
  examples: [{ run: 'stepchain forks --json', what: 'the tree as JSON' }],
  exitCodes: { 0: 'listed', 2: 'usage or input error (not a git repository)' },
  async run(args, io) {
    expectPositionals(args, [], 'forks');
    const forest = await listForks(rootOf(args, io), io.env);
    if (args.flags.has('json')) io.json({ forks: forest });
    else for (const line of drawForks(forest)) io.out(line);
    return 0;
  },
};
