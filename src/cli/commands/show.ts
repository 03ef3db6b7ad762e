import { showDocument, showLines } from '../../replay';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { intArg, JSON_OPTION, PUBLIC_KEY_OPTION, ROOT_OPTION } from '../common';
import { outLines } from '../io';
import { displayVerdict, openForDisplay } from './replay';

export const showCommand: Command = {
  name: ['show'],
  usage: '<agent|dir|file|receipt> <seq> [--root DIR] [--json] [--public-key FILE]...',
  summary: "One step of a verified run in full, with its blobs' sizes and a preview (missing blobs marked).",
  description:
    '<seq> is the 0-based step number. The chain is verified from genesis first; a chain that does not verify shows nothing (exit 1).',
  options: { ...ROOT_OPTION, ...JSON_OPTION, 'public-key': PUBLIC_KEY_OPTION },
  examples: [
    { run: 'stepchain show agent-1 3', what: 'step 3 of agent-1, every field in full' },
    { run: 'stepchain show agent-1 3 --json', what: 'the row exactly as stored, with its blobs' },
  ],
  exitCodes: {
    0: 'shown, everything verified',
    1: 'the chain or receipt does not verify, or a signature was not checked',
    2: 'usage or input error (no such step)',
  },
  run(args, io) {
    const [target, seqText] = expectPositionals(args, ['agent|dir|file|receipt', 'seq'], 'show');
    const seq = intArg(seqText!, 'show: <seq>');
    const source = openForDisplay(target!, args, io);
    const json = args.flags.has('json');
    if (json) io.json(showDocument(source, seq));
    else outLines(io, showLines(source, seq));
    return displayVerdict([source], io, json);
  },
};
