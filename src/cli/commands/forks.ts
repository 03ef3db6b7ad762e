import { drawForks, listForks } from '../../git';
import type { Command } from '../command';
import { expectPositionals } from '../args';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const forksCommand: Command = {
  name: ['forks'],
  usage: '[--root DIR] [--json]',
  summary: 'Every fork of this repository as a tree: parent, fork step, branch, worktree, steps recorded since.',
  options: { ...ROOT_OPTION, ...JSON_OPTION },
  async run(args, io) {
    expectPositionals(args, [], 'forks');
    const forest = await listForks(rootOf(args, io), io.env);
    if (args.flags.has('json')) io.json({ forks: forest });
    else for (const line of drawForks(forest)) io.out(line);
    return 0;
  },
};
