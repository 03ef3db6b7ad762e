import { recordRunEvent } from '../../runs';
import { runRowValue } from '../../runs/row';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf, writeOptions } from '../common';
import { jsonObjectOption, required } from './run-common';

export const runRecordCommand: Command = {
  name: ['run', 'record'],
  usage: '<run> --event TYPE [--data JSON] [--root DIR] [--json]',
  summary: 'Append one event to a run journal (.sdd/runs/<run>/journal.jsonl), verifying the chain first.',
  description:
    'The run journal is created on the first event; its chain is verified before every append (fail-closed).',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    event: { kind: 'value', value: 'TYPE', description: 'The event type (required), e.g. llm_response.' },
    data: { kind: 'value', value: 'JSON', description: 'The payload: a JSON object, key order kept.' },
  },
  examples: [{ run: 'stepchain run record run-42 --event llm_response --data \'{"text":"ok"}\'', what: 'one event' }],
  exitCodes: {
    0: 'recorded',
    1: 'the run journal does not verify (nothing written)',
    2: 'usage or input error (bad id, bad JSON)',
  },
  run(args, io) {
    const [run] = expectPositionals(args, ['run'], 'run record');
    const event = required(args, 'event', 'run record');
    const data = jsonObjectOption(args, 'data', true) ?? new Map();
    const { row, file } = recordRunEvent(rootOf(args, io, { create: true }), run!, event, data, writeOptions(io));
    // The row under `row` (its payload keys are the run's own: `ok` may be one of them).
    if (args.flags.has('json')) io.json({ file, row: runRowValue(row) });
    else io.out(`recorded ${row.event} at index ${row.index} in ${file}\n  event_hash ${row.event_hash}`);
    return 0;
  },
};
