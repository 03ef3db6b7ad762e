import { describeFault, resolveJournal, verifyJournalFile } from '../../journal';
import type { Command } from '../command';
import { expectPositionals } from '../args';
import { hashOption, JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const verifyCommand: Command = {
  name: ['verify'],
  usage: '<agent|dir|file> [--root DIR] [--expected-head HEX] [--strict] [--json]',
  summary: 'Verify a per-step journal from genesis: every fault with its line and kind. Exit 0 intact, 1 not.',
  options: { ...ROOT_OPTION, ...JSON_OPTION, 'expected-head': { kind: 'value' }, strict: { kind: 'flag' } },
  run(args, io) {
    const [target] = expectPositionals(args, ['agent|dir|file'], 'verify');
    const expectedHead = hashOption(args, 'expected-head');
    const { file } = resolveJournal(target!, rootOf(args, io));
    const result = verifyJournalFile(file, {
      ...(expectedHead === undefined ? {} : { expectedHead }),
      strict: args.flags.has('strict'),
    });
    if (args.flags.has('json')) {
      io.json({ ok: result.ok, head_hash: result.head_hash, steps: result.steps, errors: result.errors });
    } else if (result.ok) {
      io.out(`OK ${file}: ${result.steps} step${result.steps === 1 ? '' : 's'}, head ${result.head_hash}`);
    } else {
      io.out(
        `FAIL ${file}: ${result.errors.length} fault${result.errors.length === 1 ? '' : 's'} in ${result.steps} well-formed rows`,
      );
    }
    if (!result.ok) for (const f of result.errors) io.err(describeFault(file, f));
    return result.ok ? 0 : 1;
  },
};
