import { describeRunFaults, resolveRunJournal, verifyRunJournalChecked } from '../../runs';
import { rollbackUncheckedLine } from '../../util/rollback';
import { sanitize } from '../../util/terminal';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { plural, pluralWord } from '../../util/words';

export const runVerifyCommand: Command = {
  name: ['run', 'verify'],
  usage: '<run|dir|file> [--strict] [--root DIR] [--json]',
  summary:
    'Verify a run journal: hash chain, mutation content addresses, flagged mutations, capabilities. Exit 0 holds, 1 not.',
  description:
    '<run|dir|file> is a run id (under <root>/.sdd/runs/), a run directory or a journal.jsonl. A flagged mutation ' +
    '(recorded in deterministic mode) fails closed.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    strict: { kind: 'flag', description: 'Also report blank lines and non-canonical bytes.' },
  },
  examples: [{ run: 'stepchain run verify run-42', what: 'verify a run journal' }],
  exitCodes: { 0: 'the run journal holds', 1: 'a fault (each printed with its line)', 2: 'usage or input error' },
  run(args, io) {
    const [target] = expectPositionals(args, ['run|dir|file'], 'run verify');
    const file = resolveRunJournal(target!, rootOf(args, io));
    // With the rollback check: the file against its authenticated checkpoint (docs/journal.md, "Rollback").
    const { result: r, unchecked } = verifyRunJournalChecked(file, { strict: args.flags.has('strict') }, io.env);
    if (unchecked !== undefined) io.err(rollbackUncheckedLine(file, unchecked));
    if (args.flags.has('json')) {
      io.json(r);
    } else if (r.ok) {
      const caps = r.capabilities.map((c) => sanitize(`${c.adapter}=${c.capability}`)).join(', ') || 'none recorded';
      io.out(
        `OK ${file}: ${plural(r.count, 'event')}, ${r.mutation_count} pinned ${pluralWord(r.mutation_count, 'mutation')}, capabilities: ${caps}, head ${r.head_hash}`,
      );
    } else {
      const where =
        r.divergent_index === null
          ? ''
          : `; chain diverges at index ${r.divergent_index} (expected ${r.expected_hash}, stored ${r.actual_hash})`;
      io.out(`FAIL ${file}: ${plural(r.fault_count, 'fault')} in ${r.count} rows${where}`);
    }
    // Runs collapsed and the list capped (docs/journal.md, "Fault output"): bounded whatever the journal holds.
    if (!r.ok) for (const line of describeRunFaults(file, r)) io.err(line);
    return r.ok ? 0 : 1;
  },
};
