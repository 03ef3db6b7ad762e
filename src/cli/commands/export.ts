import path from 'node:path';
import { InputError } from '../../errors';
import { Cas } from '../../journal';
import { pathKind } from '../../util/fs';
import { commitExport, stageExport, type ExportOptions } from '../../receipt';
import type { Command } from '../command';
import { KEYLESS_WRITE_OPTIONS } from './keyless-sign';
import { RECEIPT_WRITE_OPTIONS } from './receipt-target';
import { writeReceipt } from './receipt-write';
import { plural } from '../../util/words';

export const exportCommand: Command = {
  name: ['export'],
  usage:
    '<agent|dir|file> -o RECEIPT [--force] [--root DIR] [--agent-id ID] [--sign-key FILE] [--keyless [--fulcio-url U] [--rekor-url U] [--tsa-url U]] [--cas DIR] [--json]',
  summary:
    'Verify a journal, then write a portable receipt (tar; .gz/.tgz names are gzipped): manifest, optional Ed25519 signature, chain, blobs.',
  description:
    "The journal must verify first. Blobs come from the journal's project CAS (or --cas); a blob missing there is " +
    'named in the output and left out. Verify the receipt anywhere with `stepchain receipt verify`.',
  options: {
    ...RECEIPT_WRITE_OPTIONS,
    ...KEYLESS_WRITE_OPTIONS,
    cas: { kind: 'value', value: 'DIR', description: "Read blobs from this CAS directory instead of the project's." },
  },
  examples: [
    { run: 'stepchain export agent-1 -o run.receipt.tar --sign-key stepchain.key', what: 'a signed receipt' },
    { run: 'stepchain export agent-1 -o run.receipt.tar --force', what: 'replace an earlier receipt' },
    {
      run: 'stepchain export agent-1 -o run.receipt.tar --keyless',
      what: "sign with the workflow's identity (id-token: write): run.receipt.tar.sigstore.json",
    },
  ],
  exitCodes: {
    0: 'written',
    1: 'the journal does not verify or keyless signing failed (nothing written)',
    2: 'usage or input error (an existing output, a bad key, no OIDC token)',
  },
  async run(args, io) {
    const w = await writeReceipt(args, io, 'export', {
      options(common): ExportOptions {
        const cas = args.values.get('cas');
        if (cas === undefined) return common;
        // A mistyped --cas is a usage error, never a receipt written with every blob "missing from the CAS".
        const dir = path.resolve(io.cwd, cas);
        const kind = pathKind(dir);
        if (kind !== 'dir')
          throw new InputError(`export: --cas ${cas}: ${kind === 'file' ? 'not a directory' : 'no such directory'}`);
        return { ...common, cas: new Cas(dir, false) };
      },
      stage: stageExport,
      commit: commitExport,
    });
    const r = w.r;
    if (args.flags.has('json')) {
      io.json(
        w.document({
          head_hash: r.manifest.head_hash,
          steps: r.manifest.steps,
          signed: r.signed,
          key_id: r.key_id,
          blobs: r.blobs,
        }),
      );
      return 0;
    }
    io.out(`exported ${plural(r.manifest.steps, 'step')} of ${r.manifest.agent_id} to ${w.out}`);
    io.out(`  head_hash ${r.manifest.head_hash}`);
    io.out(`  signed    ${r.signed ? `yes (key id ${r.key_id})` : 'no'}`);
    if (w.keylessLine !== undefined) io.out(`  keyless   ${w.keylessLine}`);
    io.out(`  blobs     ${r.blobs.bundled.length} bundled, ${r.blobs.missing.length} missing from the CAS`);
    if (w.staleLine !== undefined) io.out(`  ${w.staleLine}`);
    return 0;
  },
};
