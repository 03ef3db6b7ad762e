import path from 'node:path';
import { blameFile } from '../../provenance/blame';
import { sanitize } from '../../util/terminal';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

/** `stepchain blame FILE`: which recorded step last wrote each line (docs/provenance.md). */
export const blameCommand: Command = {
  name: ['blame'],
  usage: '<file> [--root DIR] [--json]',
  summary: 'Each line of a file with the agent, seq and step that last wrote it, or `unrecorded`.',
  description:
    "Like git blame over the recorded steps: the versions are the per-step snapshots of the project's verified journals " +
    '(a step wrote the lines its snapshot added to the file); lines no recorded step wrote are `unrecorded`. ' +
    "It reads this repository's snapshot refs (refs/stepchain/snapshots), so it runs where the steps were recorded.",
  options: { ...ROOT_OPTION, ...JSON_OPTION },
  examples: [
    { run: 'stepchain blame src/calc.py', what: 'who wrote each line: an agent step, or unrecorded' },
    { run: 'stepchain blame src/calc.py --json', what: 'the same as one JSON document' },
  ],
  exitCodes: {
    0: 'shown',
    1: 'a journal does not verify (its steps count for nothing, said)',
    2: 'usage or input error (no such file, not in a git work tree)',
  },
  async run(args, io) {
    const [file] = expectPositionals(args, ['file'], 'blame');
    const root = rootOf(args, io);
    const r = await blameFile(root, path.resolve(io.cwd, file!), io.env);
    const ok = r.warnings.length === 0;
    if (args.flags.has('json')) {
      io.json({
        ok,
        path: r.path,
        recorded: r.recorded,
        unrecorded: r.unrecorded,
        lines: r.lines.map((l) => ({
          line: l.line,
          agent: l.origin?.agent ?? null,
          seq: l.origin?.seq ?? null,
          step_hash: l.origin?.step_hash ?? null,
          text: l.text,
        })),
        warnings: r.warnings,
      });
    } else {
      const who = r.lines.map((l) => (l.origin === null ? 'unrecorded' : `${l.origin.agent} ${l.origin.seq}`));
      const width = Math.max(10, ...who.map((w) => w.length));
      const digits = String(r.lines.length).length;
      for (const [i, l] of r.lines.entries()) {
        const hash = l.origin === null ? ' '.repeat(12) : l.origin.step_hash.slice(0, 12);
        io.out(sanitize(`${who[i]!.padEnd(width)} ${hash} ${String(l.line).padStart(digits)}) ${l.text}`));
      }
    }
    for (const w of r.warnings) io.err(`stepchain: warning: ${w}`);
    return ok ? 0 : 1;
  },
};
