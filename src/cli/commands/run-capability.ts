import { recordCapability } from '../../runs';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { required } from './run-common';

export const runCapabilityCommand: Command = {
  name: ['run', 'capability'],
  usage: '<run> --adapter NAME --capability observed|declared-blind [--root DIR] [--json]',
  summary: "Record an adapter's ability to observe provider-side mutations (once per adapter per run).",
  options: { ...ROOT_OPTION, ...JSON_OPTION, adapter: { kind: 'value' }, capability: { kind: 'value' } },
  run(args, io) {
    const [run] = expectPositionals(args, ['run'], 'run capability');
    const adapter = required(args, 'adapter', 'run capability');
    const capability = required(args, 'capability', 'run capability');
    const { row, file } = recordCapability(rootOf(args, io), run!, adapter, capability, { env: io.env });
    if (args.flags.has('json')) {
      io.json({
        file,
        adapter,
        capability,
        recorded: row !== undefined,
        index: row?.index ?? null,
        event_hash: row?.event_hash ?? null,
      });
    } else if (row === undefined) {
      io.out(`${adapter} is already recorded as ${capability} for this run (${file}); nothing written`);
    } else {
      io.out(`recorded ${adapter}: ${capability} at index ${row.index} in ${file}`);
    }
    return 0;
  },
};
