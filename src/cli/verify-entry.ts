import { verifyCommand } from './commands/verify';
import { receiptVerifyWith } from './commands/receipt-verify-command';
import { parseArgs } from './args';
import { runWholeCommandLine } from './small-entry';
import { setChunkWorkerEntry } from '../journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../journal/worker/source.generated';

/**
 * The verify entry: the program `dist/cli.js` runs for `stepchain verify` and `stepchain receipt verify`, checks
 * whose whole cost is the process (a 130 MB journal verifies in a few hundred milliseconds, of which compiling the
 * whole CLI's bundle was a sixth). It holds the two commands and what they import; any command line it does not
 * take (help, options that do not parse, a keyless signature to check) the launcher hands to the whole CLI
 * (./small-entry.ts).
 */
export function runVerify(argv: string[]): boolean {
  if (argv[0] === 'receipt' && argv[1] === 'verify') return runReceiptVerify(argv.slice(2));
  if (argv[0] !== verifyCommand.name[0] || verifyCommand.name.length !== 1) return false;
  // Verification worker threads run their own small script, carried here as text (as the whole CLI does).
  setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
  return runWholeCommandLine(verifyCommand, argv.slice(1));
}

/** `receipt verify` without its keyless check: the Sigstore program (most of the whole CLI's bytes) is not here. */
const receiptVerify = receiptVerifyWith(() =>
  Promise.reject(new Error('the verify entry checks no keyless signature (the whole CLI does)')),
);

/**
 * A receipt verify with no signer to expect (no --certificate-identity, no --certificate-oidc-issuer): the only
 * command lines whose run never checks a keyless signature (a bundle beside the receipt is then a fault that needs
 * no Sigstore code, keyless_not_checked). Any other goes to the whole CLI.
 */
function runReceiptVerify(rest: string[]): boolean {
  try {
    const args = parseArgs(rest, receiptVerify.options, receiptVerify.name.join(' '));
    if (args.values.has('certificate-identity') || args.values.has('certificate-oidc-issuer')) return false;
  } catch {
    return false;
  }
  return runWholeCommandLine(receiptVerify, rest);
}
