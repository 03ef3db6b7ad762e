import path from 'node:path';
import { readPublicKeyFile } from '../../receipt';
import { writeReport } from '../../report';
import type { Command } from '../command';
import { expectPositionals } from '../args';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { InputError } from '../../errors';

export const reportCommand: Command = {
  name: ['report'],
  usage: '<agent|dir|file|receipt> -o FILE.html [--root DIR] [--public-key FILE]... [--force] [--json]',
  summary:
    'Write a self-contained HTML report that re-verifies the chain in the browser. Written for a broken chain too (it shows the faults); exit 0 intact, 1 not.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    output: { kind: 'value', short: 'o' },
    'public-key': { kind: 'list' },
    force: { kind: 'flag' },
  },
  run(args, io) {
    const [target] = expectPositionals(args, ['agent|dir|file|receipt'], 'report');
    const out = args.values.get('output');
    if (out === undefined) throw new InputError('report: missing -o FILE.html');
    const outFile = path.resolve(io.cwd, out);
    const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(path.resolve(io.cwd, f)));
    const r = writeReport(target!, outFile, { root: rootOf(args, io), publicKeys, force: args.flags.has('force') });
    if (args.flags.has('json')) {
      io.json({ file: r.file, source: r.source, ok: r.ok, head_hash: r.head_hash, steps: r.steps, errors: r.errors, blobs: r.blobs });
    } else {
      const blobs = r.blobs.embedded + r.blobs.skipped > 0 ? `, ${r.blobs.embedded} blob(s) embedded, ${r.blobs.skipped} skipped` : '';
      io.out(
        r.ok
          ? `wrote ${r.file}: ${r.steps} step${r.steps === 1 ? '' : 's'}, head ${r.head_hash}, chain intact${blobs}`
          : `wrote ${r.file}: the report shows ${r.errors.length} fault${r.errors.length === 1 ? '' : 's'} (the chain does NOT verify)${blobs}`,
      );
    }
    if (!r.ok) for (const f of r.errors) io.err(`${r.source}${f.line === null ? '' : `:${f.line}`}: ${f.kind}: ${f.message}`);
    return r.ok ? 0 : 1;
  },
};
