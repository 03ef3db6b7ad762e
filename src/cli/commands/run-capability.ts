import { recordCapability } from '../../runs';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf, writeOptions } from '../common';
import { required } from './run-common';

export const runCapabilityCommand: Command = {
  name: ['run', 'capability'],
  usage: '<run> --adapter NAME --capability observed|declared-blind [--root DIR] [--json]',
  summary: "Record an adapter's ability to observe provider-side mutations (once per adapter per run).",
  description: 'Recording the same adapter again is a no-op; a conflicting capability for the same adapter is refused.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    adapter: { kind: 'value', value: 'NAME', description: 'The adapter (required), e.g. claude.' },
    capability: {
      kind: 'value',
      value: 'observed|declared-blind',
      description: 'Whether it observes provider-side mutations (required).',
    },
  },
  examples: [
    { run: 'stepchain run capability run-42 --adapter claude --capability observed', what: 'claude observes' },
  ],
  exitCodes: {
    0: 'recorded (or already recorded)',
    1: 'the run journal does not verify, or a conflicting capability',
    2: 'usage or input error',
  },
  run(args, io) {
    const [run] = expectPositionals(args, ['run'], 'run capability');
    const adapter = required(args, 'adapter', 'run capability');
    const capability = required(args, 'capability', 'run capability');
    const { row, file } = recordCapability(
      rootOf(args, io, { create: true }),
      run!,
      adapter,
      capability,
      writeOptions(io),
    );
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
