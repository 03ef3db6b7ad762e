import path from 'node:path';
import { describeReceiptFault, readPublicKeyFile, signatureVerdict, verifyReceipt } from '../../receipt';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { hashOption, JSON_OPTION, PUBLIC_KEY_OPTION } from '../common';

export const receiptVerifyCommand: Command = {
  name: ['receipt', 'verify'],
  usage: 'RECEIPT [--expected-head HEX] [--public-key FILE]... [--require-blobs] [--json]',
  summary:
    'Verify a receipt offline without extracting it: members, manifest, signature, chain, blobs. Exit 0 holds, 1 does not, 2 bad input.',
  description:
    'Nothing is extracted: member names and types, the manifest, the signature, the chain from genesis, the manifest ' +
    "against the chain, and every bundled blob's digest are checked in memory. A signed receipt verifies only under a " +
    'trusted key: given none, it fails with no_trusted_key ("signature NOT checked").',
  options: {
    ...JSON_OPTION,
    'expected-head': {
      kind: 'value',
      value: 'HEX',
      description: 'The head the chain must end at (e.g. printed when the receipt was exported).',
    },
    'public-key': PUBLIC_KEY_OPTION,
    'require-blobs': { kind: 'flag', description: 'Fail when a blob the manifest names is not bundled.' },
  },
  examples: [
    { run: 'stepchain receipt verify run.receipt.tar --public-key keys/receipts.pub', what: 'a signed receipt' },
    { run: 'stepchain receipt verify public.receipt.tar --expected-head 7af96d16...', what: 'pinned to a head' },
  ],
  exitCodes: {
    0: 'the receipt verifies (and its signature, under a trusted key, when signed)',
    1: 'a problem, each printed (a signature not checked is one)',
    2: 'usage or input error (no such file, a bad key)',
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
      const sig = signatureVerdict(r, publicKeys.length).text;
      io.out(
        `OK ${receipt}: ${r.steps} step${r.steps === 1 ? '' : 's'}, head ${r.head_hash}, ${sig}, blobs ${r.blobs.bundled.length} bundled, ${r.blobs.missing.length} missing`,
      );
      if (r.published)
        io.out(
          `  published receipt: ${r.redacted_fields.join(', ')} redacted, the chain re-anchored over the redacted rows (not the original head)`,
        );
      // What holds is the content and order of the steps (docs/receipts.md, "What is and is not signed").
      io.out('  not signed: step times (ts) and which step lists which blob (blob_refs)');
    } else {
      const v = signatureVerdict(r, publicKeys.length);
      io.out(
        `FAIL ${receipt}: ${r.fault_count} problem${r.fault_count === 1 ? '' : 's'}${v.holds ? '' : `; ${v.text}`}`,
      );
    }
    if (!r.ok) for (const f of r.errors) io.err(describeReceiptFault(receipt!, f));
    return r.ok ? 0 : 1;
  },
};
