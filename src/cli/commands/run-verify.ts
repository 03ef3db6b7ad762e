import { describeRunFaults, resolveRunJournal, runJournalOwner, verifyRunJournalChecked } from '../../runs';
import { checkProjectExchangeLinks, describeExchangeLinkFaults } from '../../runs/exchange-links';
import { rollbackUncheckedLine } from '../../util/rollback';
import { sanitize } from '../../util/terminal';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { outLine } from '../io';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { plural, pluralWord } from '../../util/words';

export const runVerifyCommand: Command = {
  name: ['run', 'verify'],
  usage: '<run|dir|file> [--strict] [--root DIR] [--json]',
  summary:
    'Verify a run journal: hash chain, mutation content addresses, flagged mutations, capabilities, exchange links. Exit 0 holds, 1 not.',
  description:
    '<run|dir|file> is a run id (under <root>/.sdd/runs/), a run directory or a journal.jsonl. A flagged mutation ' +
    '(recorded in deterministic mode) fails closed. Each exchange_link is checked against the hook journal and the ' +
    'exchange journal of its project, as replay checks it (docs/record.md); one that does not hold is a fault.',
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
    const { result: checked, unchecked } = verifyRunJournalChecked(file, { strict: args.flags.has('strict') }, io.env);
    if (unchecked !== undefined) io.err(rollbackUncheckedLine(file, unchecked));
    // Its exchange links, checked against both journals as replay checks them (a broken chain already fails).
    const owner = runJournalOwner(file);
    const links = checked.chain_ok && owner !== undefined ? checkProjectExchangeLinks(owner.root, owner.id) : undefined;
    const linkFaults = links?.faults ?? [];
    const r =
      linkFaults.length === 0
        ? checked
        : { ...checked, ok: false, fault_count: checked.fault_count + linkFaults.length };
    if (args.flags.has('json')) {
      io.json({
        ...r,
        ...(links === undefined || (links.links.length === 0 && linkFaults.length === 0)
          ? {}
          : { exchange_links: { holding: links.links.length, faults: linkFaults } }),
      });
    } else if (r.ok) {
      const caps = r.capabilities.map((c) => sanitize(`${c.adapter}=${c.capability}`)).join(', ') || 'none recorded';
      outLine(
        io,
        `OK ${file}: ${plural(r.count, 'event')}, ${r.mutation_count} pinned ${pluralWord(r.mutation_count, 'mutation')}, ` +
          `${links === undefined || links.links.length === 0 ? '' : `${plural(links.links.length, 'exchange link')} holding, `}capabilities: ${caps}, head ${r.head_hash}`,
      );
    } else {
      // The same two hashes say nothing: an edited `index` or `prev_hash` breaks the chain and leaves the hash whole.
      const why =
        r.expected_hash === r.actual_hash
          ? sanitize(r.divergent_reason ?? '')
          : `expected ${r.expected_hash}, stored ${r.actual_hash}`;
      const where = r.divergent_index === null ? '' : `; chain diverges at index ${r.divergent_index} (${why})`;
      outLine(io, `FAIL ${file}: ${plural(r.fault_count, 'fault')} in ${plural(r.count, 'row')}${where}`);
    }
    // Runs collapsed and the list capped (docs/journal.md, "Fault output"): bounded whatever the journal holds.
    if (!r.ok)
      for (const line of [...describeRunFaults(file, r), ...describeExchangeLinkFaults(linkFaults)]) io.err(line);
    return r.ok ? 0 : 1;
  },
};
