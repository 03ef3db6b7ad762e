import path from 'node:path';
import { describeReceiptFault, readPublicKeyFile, verifyReceipt } from '../../receipt';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { hashOption, JSON_OPTION } from '../common';

export const receiptVerifyCommand: Command = {
  name: ['receipt', 'verify'],
  usage: 'RECEIPT [--expected-head HEX] [--public-key FILE]... [--require-blobs] [--json]',
  summary:
    'Verify a receipt offline without extracting it: members, manifest, signature, chain, blobs. Exit 0 holds, 1 does not, 2 bad input.',
  options: {
    ...JSON_OPTION,
    'expected-head': { kind: 'value' },
    'public-key': { kind: 'list' },
    'require-blobs': { kind: 'flag' },
  },
  run(args, io) {
    const [receipt] = expectPositionals(args, ['receipt'], 'receipt verify');
    const expectedHead = hashOption(args, 'expected-head');
    const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(path.resolve(io.cwd, f)));
    const r = verifyReceipt(path.resolve(io.cwd, receipt!), {
      publicKeys,
      requireBlobs: args.flags.has('require-blobs'),
      ...(expectedHead === undefined ? {} : { expectedHead }),
    });
    if (args.flags.has('json')) {
      io.json(r);
    } else if (r.ok) {
      const sig = r.signed ? `signature OK (key id ${r.key_id})` : 'unsigned';
      io.out(
        `OK ${receipt}: ${r.steps} step${r.steps === 1 ? '' : 's'}, head ${r.head_hash}, ${sig}, blobs ${r.blobs.bundled.length} bundled, ${r.blobs.missing.length} missing`,
      );
    } else {
      io.out(`FAIL ${receipt}: ${r.errors.length} problem${r.errors.length === 1 ? '' : 's'}`);
    }
    if (!r.ok) for (const f of r.errors) io.err(describeReceiptFault(receipt!, f));
    return r.ok ? 0 : 1;
  },
};
