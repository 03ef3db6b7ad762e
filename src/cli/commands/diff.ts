import path from 'node:path';
import { readPublicKeyFile } from '../../receipt';
import { diffJournals, diffLines, diffSideDocument, openForDiff, sideHolds } from '../../replay';
import { pausePoint } from '../../util/pause';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, PUBLIC_KEY_OPTION, ROOT_OPTION, rootOf } from '../common';
import { outLines } from '../io';

export const diffCommand: Command = {
  name: ['diff'],
  usage: '<a> <b> [--root DIR] [--json] [--public-key FILE]...',
  summary:
    'The first divergence between two runs (each an agent, dir, file or receipt): the step and the fields that differ, ' +
    'or a length mismatch, with each side verified. Exit 0 same and both verified, 1 otherwise.',
  description:
    'A side that does not verify is compared all the same (what was edited in a tampered copy is the question), ' +
    'with its faults printed beside it. Steps are compared by their hashed fields and stored hashes, never by time.',
  options: { ...ROOT_OPTION, ...JSON_OPTION, 'public-key': PUBLIC_KEY_OPTION },
  examples: [
    { run: 'stepchain diff agent-1 fork-try-again-20261202-090414-f5aeff', what: 'where a fork went another way' },
    { run: 'stepchain diff original.jsonl suspicious.jsonl', what: 'what was edited in a copy' },
  ],
  exitCodes: {
    0: 'the same steps, both sides verified',
    1: 'diverged, or a side does not verify (or its signature was not checked)',
    2: 'usage or input error',
  },
  run(args, io) {
    const [a, b] = expectPositionals(args, ['a', 'b'], 'diff');
    const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(path.resolve(io.cwd, f)));
    const options = { root: rootOf(args, io), cwd: io.cwd, ...(publicKeys.length > 0 ? { publicKeys } : {}) };
    const left = openForDiff(a!, options);
    const right = openForDiff(b!, options);
    // Both sides verified, none of their rows read yet (a test changes a journal here: docs/journal.md).
    pausePoint('diff:opened', io.env);
    const d = diffJournals(left, right);
    const ok = !d.diverged && sideHolds(left) && sideHolds(right);
    if (args.flags.has('json')) {
      io.json({ ok, ...d, left_status: diffSideDocument(left), right_status: diffSideDocument(right) });
    } else {
      outLines(io, diffLines(d, a!, b!, { left, right }));
    }
    return ok ? 0 : 1;
  },
};
