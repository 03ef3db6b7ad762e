import { recordRunEvent } from '../../runs';
import { encodeRunRow } from '../../runs/row';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { jsonObjectOption, required } from './run-common';

export const runRecordCommand: Command = {
  name: ['run', 'record'],
  usage: '<run> --event TYPE [--data JSON] [--root DIR] [--json]',
  summary: 'Append one event to a run journal (.sdd/runs/<run>/journal.jsonl), verifying the chain first.',
  options: { ...ROOT_OPTION, ...JSON_OPTION, event: { kind: 'value' }, data: { kind: 'value' } },
  run(args, io) {
    const [run] = expectPositionals(args, ['run'], 'run record');
    const event = required(args, 'event', 'run record');
    const data = jsonObjectOption(args, 'data', true) ?? new Map();
    const { row, file } = recordRunEvent(rootOf(args, io), run!, event, data, { env: io.env });
    if (args.flags.has('json')) io.out(encodeRunRow(row));
    else io.out(`recorded ${row.event} at index ${row.index} in ${file}\n  event_hash ${row.event_hash}`);
    return 0;
  },
};
