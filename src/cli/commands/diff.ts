import { diffJournals, diffLines } from '../../replay';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION } from '../common';
import { openForDisplay } from './replay';

export const diffCommand: Command = {
  name: ['diff'],
  usage: '<a> <b> [--root DIR] [--json] [--public-key FILE]...',
  summary:
    'The first divergence between two verified runs (each an agent, dir, file or receipt): the seq and the fields that differ, ' +
    'or a length mismatch. Exit 0 same, 1 diverged (or a chain that does not verify).',
  options: { ...ROOT_OPTION, ...JSON_OPTION, 'public-key': { kind: 'list' } },
  run(args, io) {
    const [a, b] = expectPositionals(args, ['a', 'b'], 'diff');
    const left = openForDisplay(a!, args, io);
    const right = openForDisplay(b!, args, io);
    const d = diffJournals(left, right);
    if (args.flags.has('json')) io.json(d);
    else for (const line of diffLines(d, a!, b!)) io.out(line);
    return d.diverged ? 1 : 0;
  },
};
