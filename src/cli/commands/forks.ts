import { drawSubagents, listSubagents } from '../../agents/subagents';
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
    'A fork whose directory was deleted by hand is listed as missing. Subagents (their own journals, ' +
    "`<session journal>-<agent_id>`) are listed after the forks, each under the step that launched it, from the run journals' links.",
  options: { ...ROOT_OPTION, ...JSON_OPTION },
  examples: [{ run: 'stepchain forks --json', what: 'the tree as JSON' }],
  exitCodes: { 0: 'listed', 2: 'usage or input error (not a git repository)' },
  async run(args, io) {
    expectPositionals(args, [], 'forks');
    const root = rootOf(args, io);
    const forest = await listForks(root, io.env);
    const subagents = listSubagents(root, io.env);
    if (args.flags.has('json')) io.json({ forks: forest, subagents });
    else {
      for (const line of drawForks(forest)) io.out(line);
      if (subagents.length > 0) io.out('subagents:');
      for (const line of drawSubagents(subagents)) io.out(line);
    }
    return 0;
  },
};
