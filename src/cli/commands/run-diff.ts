import { diffRuns, resolveRunJournal } from '../../runs';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const runDiffCommand: Command = {
  name: ['run', 'diff'],
  usage: '<a> <b> [--root DIR] [--json]',
  summary:
    'Find where two runs diverge (hashed payloads, never timestamps), attributing provider-side mutations. Exit 0 identical, 1 diverged.',
  options: { ...ROOT_OPTION, ...JSON_OPTION },
  run(args, io) {
    const [a, b] = expectPositionals(args, ['a', 'b'], 'run diff');
    const root = rootOf(args, io);
    const d = diffRuns(resolveRunJournal(a!, root), resolveRunJournal(b!, root));
    if (args.flags.has('json')) io.json(d);
    else if (!d.diverged) io.out(d.reason);
    else
      io.out(
        `diverged at index ${d.index}: ${d.reason_code}${d.mutation_kind === null ? '' : ` (${d.mutation_kind})`}: ${d.reason}`,
      );
    return d.diverged ? 1 : 0;
  },
};
