import { describeFaults, resolveJournal, verifyJournalFile, withJournalRollback } from '../../journal';
import { checkProjectExchangeLinks, describeExchangeLinkFaults } from '../../runs/exchange-links';
import { rollbackUncheckedLine } from '../../util/rollback';
import { terminalProgress } from '../../util/progress';
import type { Command } from '../command';
import { outLine } from '../io';
import { expectPositionals } from '../args';
import { hashOption, JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { plural } from '../../util/words';

/** A key as data: quoted, escaped, and cut when long (the terminal sanitiser sees the line after). */
function keyText(k: string): string {
  const q = JSON.stringify(k);
  return q.length > 80 ? `${q.slice(0, 77)}…"` : q;
}

export const verifyCommand: Command = {
  name: ['verify'],
  usage: '<agent|dir|file> [--root DIR] [--expected-head HEX] [--strict] [--json]',
  summary: 'Verify a per-step journal from genesis: every fault with its line and kind. Exit 0 intact, 1 not.',
  description:
    '<agent|dir|file> is an agent id (under <root>/.sdd/runtime/journal/), a journal directory or a .jsonl file. ' +
    'Every fault is printed on stderr as file:line: kind: message (malformed_json, seq_mismatch, prev_hash_mismatch, ' +
    'step_hash_mismatch, head_mismatch, rollback, ...). A journal that holds less than its authenticated checkpoint ' +
    'recorded (truncated, rolled back, its last rows replaced) is a rollback; where that cannot be checked (no ' +
    'checkpoint key) a warning says so. A hook journal whose run journal links its steps to model exchanges ' +
    '(stepchain record) has each link checked against both journals, as replay does; one that does not hold is a fault.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    'expected-head': {
      kind: 'value',
      value: 'HEX',
      description: 'The head the journal must end at (e.g. recorded elsewhere); another head is a head_mismatch.',
    },
    strict: {
      kind: 'flag',
      description: 'Also report lines whose bytes are not canonical, and blank lines (non_canonical).',
    },
  },
  examples: [
    { run: 'stepchain verify agent-1', what: "verify agent-1's journal in this project" },
    {
      run: 'stepchain verify .sdd/runtime/journal/agent-1/000000.jsonl --expected-head 7af96d16...',
      what: 'a file, pinned to a known head',
    },
  ],
  exitCodes: { 0: 'the chain is intact', 1: 'a fault (each printed with its line)', 2: 'usage or input error' },
  run(args, io) {
    const [target] = expectPositionals(args, ['agent|dir|file'], 'verify');
    const expectedHead = hashOption(args, 'expected-head');
    const { file, root, agentId, laidOut } = resolveJournal(target!, rootOf(args, io));
    const progress = terminalProgress(`verifying ${file}`, io.env);
    let walked;
    try {
      walked = verifyJournalFile(file, {
        ...(expectedHead === undefined ? {} : { expectedHead }),
        strict: args.flags.has('strict'),
        ...(progress === undefined ? {} : { onProgress: progress.update }),
      });
    } finally {
      progress?.done();
    }
    // Rollback is tampering: the file against its authenticated checkpoint (docs/journal.md, "Rollback").
    const { result: verified, unchecked } = withJournalRollback(file, walked, io.env);
    if (unchecked !== undefined) io.err(rollbackUncheckedLine(file, unchecked));
    // A hook journal's steps linked to model exchanges (its run journal's exchange_link rows): each link checked
    // against both journals, as replay checks it; one that does not hold fails the journal (docs/record.md).
    const links = verified.ok && laidOut ? checkProjectExchangeLinks(root, agentId) : undefined;
    const linkFaults = links?.faults ?? [];
    const result =
      linkFaults.length === 0
        ? verified
        : { ...verified, ok: false, fault_count: verified.fault_count + linkFaults.length };
    if (args.flags.has('json')) {
      // Runs collapsed and the list capped: `fault_count` is every fault, `errors_omitted` those not listed.
      io.json({
        ok: result.ok,
        head_hash: result.head_hash,
        steps: result.steps,
        errors: result.errors,
        fault_count: result.fault_count,
        errors_omitted: result.errors_omitted,
        ...(result.unhashed === undefined ? {} : { unhashed: result.unhashed }),
        ...(links === undefined || (links.links.length === 0 && linkFaults.length === 0)
          ? {}
          : { exchange_links: { holding: links.links.length, faults: linkFaults } }),
      });
    } else if (result.ok) {
      outLine(
        io,
        `OK ${file}: ${plural(result.steps, 'step')}, ` +
          `${links === undefined || links.links.length === 0 ? '' : `${plural(links.links.length, 'exchange link')} holding, `}head ${result.head_hash}`,
      );
    } else {
      outLine(io, `FAIL ${file}: ${plural(result.fault_count, 'fault')} in ${plural(result.steps, 'row')}`);
    }
    if (!result.ok)
      for (const line of [...describeFaults(file, result), ...describeExchangeLinkFaults(linkFaults)]) io.err(line);
    // Not a fault (the reference reads such rows), but never passed over in silence; --strict fails on them.
    if (!args.flags.has('strict') && result.unhashed !== undefined) {
      for (const u of result.unhashed.rows)
        io.err(
          `stepchain: warning: ${file}:${u.line}: ${u.keys.length === 1 ? 'a key' : 'keys'} outside the hashed row, NOT verified: ${u.keys.map(keyText).join(', ')}`,
        );
      const more = result.unhashed.count - result.unhashed.rows.length;
      if (more > 0) io.err(`stepchain: warning: ${file}: and ${more} more rows with keys outside the hashed row`);
    }
    return result.ok ? 0 : 1;
  },
};
