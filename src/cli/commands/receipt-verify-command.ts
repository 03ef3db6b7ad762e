import path from 'node:path';
import { readPublicKeyFile } from '../../receipt/keys';
import { verifyReceiptFile } from '../../receipt/stream-verify';
import { signatureFails, signatureVerdict, verdictText } from '../../receipt/trust';
import {
  blobCounts,
  blobDigests,
  DEFAULT_MAX_DIGESTS,
  describeReceiptFault,
  type ReceiptVerifyResult,
} from '../../receipt/verify';
import { notCheckedFault } from '../../receipt/keyless/bundle-path';
import type { checkKeyless, KeylessFault, KeylessVerdict } from '../../receipt/keyless/verify';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { outLine, StreamedArray, WithStreamedArrays } from '../io';
import { hashOption, intArg, JSON_OPTION, KEY_HINT, PUBLIC_KEY_OPTION } from '../common';
import { KEYLESS_CHECK_OPTIONS, keylessArgs } from './keyless-check';
import { plural } from '../../util/words';

/**
 * The default budget with its thousands grouped, by hand: `toLocaleString` at a module's top level loaded ICU on every
 * start of `receipt verify` (~10 ms of a 30 ms verify of a small receipt).
 */
const MAX_DIGESTS_TEXT = String(DEFAULT_MAX_DIGESTS).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Loads the keyless check (the Sigstore program: compiled only when a keyless signature is checked). */
export type KeylessLoader = () => Promise<{ checkKeyless: typeof checkKeyless }>;

/**
 * `stepchain receipt verify`, checking a keyless signature with what `loadKeyless` loads: the whole CLI's
 * command (receipt-verify.ts), and the verify entry's, which takes no command line with a keyless check to make
 * (src/cli/verify-entry.ts), so that the Sigstore program is no part of it.
 */
export const receiptVerifyWith = (loadKeyless: KeylessLoader): Command => ({
  name: ['receipt', 'verify'],
  usage:
    'RECEIPT [--expected-head HEX] [--public-key FILE]... [--require-blobs] [--max-digests N] [--bundle FILE --certificate-identity ID --certificate-oidc-issuer ISS [--trusted-root FILE] [--owner ORG]] [--json]',
  summary:
    'Verify a receipt offline without extracting it: members, manifest, signature, chain, blobs. Exit 0 holds, 1 does not, 2 bad input.',
  description:
    'Nothing is extracted: member names and types, the manifest, the signature, the chain from genesis, the manifest ' +
    "against the chain, and every bundled blob's digest are checked in memory. A signed receipt verifies only under a " +
    'trusted key: given none, it fails with no_trusted_key ("signature NOT checked").\n\n' +
    'A keyless signature (a Sigstore bundle, RECEIPT.sigstore.json beside it or --bundle) is checked offline against ' +
    "a trusted root (default: the public Sigstore root shipped with stepchain; GitHub's private instance: " +
    '`gh attestation trusted-root > roots.jsonl`, then --trusted-root roots.jsonl): the certificate identity and issuer ' +
    'must equal the ones given exactly, and the signed statement must name this receipt file and its manifest. A ' +
    'bundle beside the receipt that no identity was given for fails (keyless_not_checked).',
  options: {
    ...JSON_OPTION,
    'expected-head': {
      kind: 'value',
      value: 'HEX',
      description: 'The head the chain must end at (e.g. printed when the receipt was exported).',
    },
    'public-key': PUBLIC_KEY_OPTION,
    'require-blobs': { kind: 'flag', description: 'Fail when a blob the manifest names is not bundled.' },
    'max-digests': {
      kind: 'value',
      value: 'N',
      description:
        'The most blob digests the check holds at once (listed, referred to and bundled together; ~40 bytes each; ' +
        `default ${MAX_DIGESTS_TEXT}): a receipt that needs more fails with too_many_digests.`,
    },
    ...KEYLESS_CHECK_OPTIONS,
  },
  examples: [
    { run: 'stepchain receipt verify run.receipt.tar --public-key keys/receipts.pub', what: 'a signed receipt' },
    { run: 'stepchain receipt verify public.receipt.tar --expected-head 7af96d16...', what: 'pinned to a head' },
    {
      run:
        'stepchain receipt verify run.receipt.tar --certificate-identity https://github.com/acme/app/.github/workflows/agent.yml@refs/heads/main ' +
        '--certificate-oidc-issuer https://token.actions.githubusercontent.com',
      what: 'a keyless receipt (run.receipt.tar.sigstore.json beside it)',
    },
  ],
  exitCodes: {
    0: 'the receipt verifies (and its signature, when signed)',
    1: 'a problem, each printed (a signature not checked is one)',
    2: 'usage or input error (a missing file or flag, a bad key, bundle or root)',
  },
  async run(args, io) {
    const [receipt] = expectPositionals(args, ['receipt'], 'receipt verify');
    const receiptFile = path.resolve(io.cwd, receipt!);
    const expectedHead = hashOption(args, 'expected-head');
    const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(path.resolve(io.cwd, f)));
    const keylessCheck = keylessArgs(args, io, receiptFile, 'receipt verify');
    const maxDigests = args.values.get('max-digests');
    const options = {
      publicKeys,
      // The file's digest is what a keyless statement names: computed only for a keyless check.
      fileDigest: keylessCheck.check !== undefined,
      manifestBytes: keylessCheck.check !== undefined,
      requireBlobs: args.flags.has('require-blobs'),
      ...(expectedHead === undefined ? {} : { expectedHead }),
      ...(maxDigests === undefined ? {} : { maxDigests: intArg(maxDigests, '--max-digests') }),
    };
    // One streamed pass (memory does not grow with the receipt): the verdict, the manifest and the file's digest.
    const streamed = await verifyReceiptFile(receiptFile, options);
    const r = streamed.verdict;
    let keyless: KeylessVerdict | null = null;
    if (keylessCheck.check !== undefined) {
      const { checkKeyless } = await loadKeyless();
      keyless = checkKeyless(
        streamed.sha256 === undefined
          ? { bytes: Buffer.alloc(0), manifestBytes: streamed.manifestBytes }
          : { sha256: streamed.sha256, manifestBytes: streamed.manifestBytes },
        keylessCheck.check,
      );
      addFaults(r, keyless.errors);
    } else if (keylessCheck.unchecked !== undefined) {
      addFaults(r, [
        notCheckedFault(
          path.relative(io.cwd, keylessCheck.unchecked) || keylessCheck.unchecked,
          '--certificate-identity and --certificate-oidc-issuer',
        ),
      ]);
    }
    if (args.flags.has('json')) {
      // The blob lists a digest at a time (a million strings made whole were ~200 MB more than the verdict).
      const lists = Object.keys(r.blobs) as (keyof ReceiptVerifyResult['blobs'])[];
      const blobs = Object.fromEntries(lists.map((k) => [k, new StreamedArray(() => blobDigests(r, k))]));
      io.json(new WithStreamedArrays({ ...r, blobs, ...(keyless === null ? {} : { keyless }) }));
    } else if (r.ok) {
      const sig = verdictText(signatureVerdict(r, publicKeys.length), KEY_HINT);
      // Counted, not listed: the lists are a string per blob (--json writes them a digest at a time).
      const blobs = blobCounts(r);
      outLine(
        io,
        `OK ${receipt}: ${plural(r.steps, 'step')}, head ${r.head_hash}, ${sig}, blobs ${blobs.bundled} bundled, ${blobs.missing} missing`,
      );
      if (keyless !== null)
        io.out(
          `  keyless signature verified: ${keyless.identity} (${keyless.issuer}), ${keyless.log_index === null ? 'no log entry' : `log index ${keyless.log_index}`}, signed at ${keyless.time}`,
        );
      if (r.published)
        io.out(
          `  published receipt: ${r.redacted_fields.join(', ')} redacted, the chain re-anchored over the redacted rows (not the original head)`,
        );
      // What holds is the content and order of the steps (docs/receipts.md, "What is and is not signed").
      io.out('  not signed: step times (ts) and which step lists which blob (blob_refs)');
    } else {
      const v = signatureVerdict(r, publicKeys.length);
      outLine(
        io,
        `FAIL ${receipt}: ${plural(r.fault_count, 'problem')}${signatureFails(v, r.errors) ? `; ${verdictText(v, KEY_HINT)}` : ''}`,
      );
    }
    if (!r.ok) for (const f of r.errors) io.err(describeReceiptFault(receipt!, f));
    return r.ok ? 0 : 1;
  },
});

/** Keyless faults join the receipt's: one verdict, one exit code. */
function addFaults(r: ReceiptVerifyResult, faults: KeylessFault[]): void {
  for (const f of faults) r.errors.push({ kind: f.kind, message: f.message });
  r.fault_count += faults.length;
  if (faults.length > 0) r.ok = false;
}
