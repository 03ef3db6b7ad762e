import { closeSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { verifyCommand } from './commands/verify';
import { receiptVerifyWith } from './commands/receipt-verify-command';
import { parseArgs } from './args';
import { runWholeCommandLine } from './small-entry';
import { prestartChunkWorkers, setChunkWorkerEntry } from '../journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../journal/worker/source.generated';
import { JOURNAL_FILE, journalDir } from '../journal/layout';
import { isGzip } from '../receipt/gzip';
import { openReceiptFile } from '../receipt/read-file';
import { noteCodePath } from './code-path';

export { codeCachePath } from './code-path';

/**
 * The verify entry: the program `dist/cli.js` runs for `stepchain verify` and `stepchain receipt verify`, checks
 * whose whole cost is the process (a 130 MB journal verifies in a few hundred milliseconds, of which compiling the
 * whole CLI's bundle was a sixth). It holds the two commands and what they import; any command line it does not
 * take (help, options that do not parse, a keyless signature to check) the launcher hands to the whole CLI
 * (./small-entry.ts).
 */
export function runVerify(argv: string[]): boolean {
  // A path is named only once the entry runs the command line: one it hands to the whole CLI (help, a signer to
  // expect) compiled only its argument check, and named so, a later run of the command found its path listed and
  // never wrote the cache again (every verify compiled the walk anew: ~65 KB of the cache, measured).
  if (argv[0] === 'receipt' && argv[1] === 'verify') return taken('receipt verify', runReceiptVerify(argv.slice(2)));
  if (argv[0] !== verifyCommand.name[0] || verifyCommand.name.length !== 1) return false;
  // Verification worker threads run their own small script, carried here as text (as the whole CLI does).
  setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
  // Its threads start now, so that their start overlaps this one's instead of following it.
  prestartChunkWorkers(journalSizeHint(argv.slice(1)));
  return taken('verify', runWholeCommandLine(verifyCommand, argv.slice(1)));
}

/** Whether the entry took the command line, the path named for the code cache when it did (../code-path.ts). */
function taken(codePath: string, took: boolean): boolean {
  if (took) noteCodePath(codePath);
  return took;
}

/**
 * The size of the journal a verify command line names, as far as a glance tells: a path to a file or to a journal
 * directory, or an agent id under --root or the current directory; 0 when it does not tell. Only a hint for when
 * the walk's threads start (the command resolves its target itself, and a wrong guess costs time, never a result).
 */
function journalSizeHint(rest: string[]): number {
  try {
    const args = parseArgs(rest, verifyCommand.options, 'verify');
    const target = args.positionals[0];
    if (target === undefined) return 0;
    const root = args.values.get('root') ?? '.';
    const isPath = target.includes('/') || target.includes(path.sep) || target.endsWith('.jsonl');
    const at = isPath ? target : path.join(journalDir(root, target), JOURNAL_FILE);
    const st = statSync(at);
    return st.isDirectory() ? statSync(path.join(at, JOURNAL_FILE)).size : st.size;
  } catch {
    return 0;
  }
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
  let receipt: string | undefined;
  try {
    const args = parseArgs(rest, receiptVerify.options, receiptVerify.name.join(' '));
    if (args.values.has('certificate-identity') || args.values.has('certificate-oidc-issuer')) return false;
    receipt = args.positionals[0];
  } catch {
    return false;
  }
  // A plain receipt's journal is walked in parallel slices where it lies in the file (src/receipt/archive-scan.ts).
  setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
  prestartChunkWorkers(receipt === undefined ? 0 : plainReceiptSize(receipt));
  return runWholeCommandLine(receiptVerify, rest);
}

/**
 * The size of a receipt file that is not gzip (whose journal may be walked in slices), as far as a glance tells;
 * 0 otherwise. Only a hint for when the walk's threads start: opened without blocking (a FIFO is not waited on).
 */
function plainReceiptSize(file: string): number {
  let fd: number | undefined;
  try {
    const opened = openReceiptFile(file, Number.MAX_SAFE_INTEGER);
    fd = opened.fd;
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) < 2 || isGzip(head) ? 0 : opened.size;
  } catch {
    return 0;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
