import { diffRuns, resolveRunJournal } from '../../runs';
import { sanitize } from '../../util/terminal';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const runDiffCommand: Command = {
  name: ['run', 'diff'],
  usage: '<a> <b> [--root DIR] [--json]',
  summary:
    'Find where two runs diverge (hashed payloads, never timestamps), attributing provider-side mutations. Exit 0 identical, 1 diverged.',
  description:
    'Rows are compared by event type and recomputed payload hash. Where both rows are the same kind of mutation, the ' +
    'payload fields that differ are named (e.g. only `flagged`). Both chains must verify; a broken chain is an error ' +
    '(with --json, the error document lists its faults).',
  options: { ...ROOT_OPTION, ...JSON_OPTION },
  examples: [{ run: 'stepchain run diff run-41 run-42', what: 'where two runs went apart' }],
  exitCodes: {
    0: 'identical',
    1: 'diverged, or a chain does not verify',
    2: 'usage or input error',
  },
  run(args, io) {
    const [a, b] = expectPositionals(args, ['a', 'b'], 'run diff');
    const root = rootOf(args, io);
    const d = diffRuns(resolveRunJournal(a!, root), resolveRunJournal(b!, root));
    if (args.flags.has('json')) io.json(d);
    else if (!d.diverged) io.out(sanitize(d.reason));
    else
      io.out(
        // The kind and the reason carry the runs' own strings: one line, nothing a terminal acts on.
        `diverged at index ${d.index}: ${d.reason_code}${d.mutation_kind === null ? '' : ` (${sanitize(d.mutation_kind)})`}: ${sanitize(d.reason)}`,
      );
    return d.diverged ? 1 : 0;
  },
};
