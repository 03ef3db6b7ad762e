import { showDocument, showLines } from '../../replay';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { intArg, JSON_OPTION, ROOT_OPTION } from '../common';
import { openForDisplay } from './replay';

export const showCommand: Command = {
  name: ['show'],
  usage: '<agent|dir|file|receipt> <seq> [--root DIR] [--json] [--public-key FILE]...',
  summary: "One step of a verified run in full, with its blobs' sizes and a preview (missing blobs marked).",
  options: { ...ROOT_OPTION, ...JSON_OPTION, 'public-key': { kind: 'list' } },
  run(args, io) {
    const [target, seqText] = expectPositionals(args, ['agent|dir|file|receipt', 'seq'], 'show');
    const seq = intArg(seqText!, 'show: <seq>');
    const source = openForDisplay(target!, args, io);
    if (args.flags.has('json')) io.json(showDocument(source, seq));
    else for (const line of showLines(source, seq)) io.out(line);
    return 0;
  },
};
