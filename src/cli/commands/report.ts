import { existsSync } from 'node:fs';
import path from 'node:path';
import { isSafeId } from '../../util/ids';
import type { CommandIO } from '../io';
import { looksLikeReceipt, readPublicKeyFile } from '../../receipt';
import { journalDir, projectRootOf } from '../../journal';
import {
  describeReportFault,
  loadReportSource,
  refuseReportOverwrite,
  reportForkTree,
  writeReport,
  type ReportForkNode,
} from '../../report';
import type { Command } from '../command';
import { expectPositionals } from '../args';
import { intArg, JSON_OPTION, KEY_HINT, PUBLIC_KEY_OPTION, ROOT_OPTION, rootOf } from '../common';
import { KEYLESS_CHECK_OPTIONS, keylessArgs, keylessPolicyArgs, reportKeyless } from './keyless-check';
import { InputError } from '../../errors';
import { terminalProgress } from '../../util/progress';
import { plural } from '../../util/words';

/** A path-like target is taken relative to the command's cwd; an agent id is left for resolveJournal. */
function targetOf(target: string, io: CommandIO, root: string): string {
  const abs = path.resolve(io.cwd, target);
  if (target.includes('/') || target.includes(path.sep) || /\.(jsonl|tar|tgz|gz)$/i.test(target)) return abs;
  if (isSafeId(target) && existsSync(journalDir(root, target))) return target;
  return existsSync(abs) ? abs : target;
}

/** Faults of a report's blobs (refused, or not the bytes their name says), not of its chain. */
const BLOB_FAULTS = new Set(['blob_refused', 'blob_digest_mismatch', 'blob_digests_mismatch']);

const NOT_A_RECEIPT = 'report: --certificate-identity and --certificate-oidc-issuer check a receipt, not a journal';

export const reportCommand: Command = {
  name: ['report'],
  usage:
    '<agent|dir|file|receipt> -o FILE.html [--root DIR] [--public-key FILE]... [--bundle FILE --certificate-identity ID --certificate-oidc-issuer ISS [--trusted-root FILE] [--owner ORG]] [--max-steps N [--from SEQ]] [--force] [--json]',
  summary:
    'Write a self-contained HTML report that re-verifies the chain in the browser. Written for a broken chain too (it shows the faults); exit 0 intact, 1 not.',
  description:
    'The page embeds the journal and re-verifies every step hash in the browser, offline. An existing file (an earlier ' +
    'report too) is replaced only with --force, as export and publish do. A signed receipt given no --public-key is reported with ' +
    '"signature NOT checked" and exits 1.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    output: { kind: 'value', short: 'o', value: 'FILE.html', description: 'The page to write (required).' },
    'public-key': PUBLIC_KEY_OPTION,
    force: { kind: 'flag', description: 'Replace the output file if it exists (an earlier report too).' },
    'max-steps': {
      kind: 'value',
      value: 'N',
      description:
        'Embed a window of N steps (default: the last N) instead of the whole journal; the generator still verifies all of it. For runs too large for a browser.',
    },
    from: { kind: 'value', value: 'SEQ', description: 'Start the --max-steps window at step SEQ.' },
    ...KEYLESS_CHECK_OPTIONS,
  },
  examples: [
    { run: 'stepchain report agent-1 -o report.html', what: 'a report of a journal' },
    { run: 'stepchain report agent-1 -o last.html --max-steps 1000', what: 'the last 1,000 steps of a long run' },
    {
      run: 'stepchain report run.receipt.tar -o report.html --public-key keys/receipts.pub',
      what: 'of a signed receipt',
    },
  ],
  // The window's start is `--from` here (the library's `fromStep`).
  fields: { fromStep: 'from' },
  exitCodes: {
    0: 'written; the chain verifies (and a signature, if any, was checked)',
    1: 'written, showing the faults (the chain does not verify, or a signature was not checked)',
    2: 'usage or input error (the output exists, without --force)',
  },
  async run(args, io) {
    const [target] = expectPositionals(args, ['agent|dir|file|receipt'], 'report');
    const out = args.values.get('output');
    if (out === undefined) throw new InputError('report: missing -o FILE.html');
    const outFile = path.resolve(io.cwd, out);
    // An existing file is refused before any journal is read (the check is made again when writing).
    refuseReportOverwrite(outFile, args.flags.has('force'));
    // The window options are checked before any journal is read.
    const maxSteps = args.values.get('max-steps');
    const from = args.values.get('from');
    if (from !== undefined && maxSteps === undefined) throw new InputError('report: --from needs --max-steps N');
    if (maxSteps !== undefined && intArg(maxSteps, '--max-steps') < 1)
      throw new InputError('--max-steps: expected at least 1 step');
    const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(path.resolve(io.cwd, f)));
    const root = rootOf(args, io);
    const targetPath = targetOf(target!, io, root);
    // A keyless signature's policy is read before any journal is (a half policy is a usage error). It is a receipt's:
    // given with a journal, that is the error, not the journal's missing "bundle beside the receipt".
    const targetFile = path.resolve(io.cwd, targetPath);
    if (keylessPolicyArgs(args, 'report') !== undefined && !looksLikeReceipt(targetFile))
      throw new InputError(NOT_A_RECEIPT);
    const keyless = keylessArgs(args, io, targetFile, 'report');
    const maxStepsN = maxSteps === undefined ? undefined : intArg(maxSteps, '--max-steps');
    const fromN = from === undefined ? undefined : intArg(from, '--from');
    // Verified once, streaming; only the window embedded is read (docs/journal.md, "Reading windows").
    const progress = terminalProgress('verifying', io.env);
    let source;
    try {
      source = loadReportSource(targetPath, root, {
        publicKeys,
        keyHint: `stepchain report ${KEY_HINT}`,
        ...(maxStepsN === undefined ? {} : { maxSteps: maxStepsN }),
        ...(fromN === undefined ? {} : { fromStep: fromN }),
        ...(progress === undefined ? {} : { onProgress: progress.update }),
      });
    } finally {
      progress?.done();
    }
    if (source.receipt !== undefined) {
      const signer = await reportKeyless(source.receipt, keyless, (f) => path.relative(io.cwd, f) || f);
      if (signer !== undefined) source.receipt.keyless = signer;
    } else if (keyless.check !== undefined) {
      throw new InputError(NOT_A_RECEIPT);
    }
    // The fork tree is an extra: a git problem leaves it out (with a note), never the report.
    let forks: ReportForkNode | null = null;
    if (source.kind === 'journal') {
      try {
        forks = await reportForkTree(projectRootOf(path.dirname(source.path)) ?? root, source.agentId, io.env);
      } catch (e) {
        io.err(`stepchain: report: fork tree left out: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    const r = writeReport(source, outFile, {
      root,
      force: args.flags.has('force'),
      forks,
      ...(maxStepsN === undefined ? {} : { maxSteps: maxStepsN }),
      ...(fromN === undefined ? {} : { fromStep: fromN }),
    });
    for (const w of r.warnings) io.err(`stepchain: report: warning: ${w}`);
    if (args.flags.has('json')) {
      io.json({
        ok: r.ok,
        file: r.file,
        source: r.source,
        lines_in: r.linesIn, // where the errors' lines are: a receipt's journal member, not the archive
        head_hash: r.head_hash,
        steps: r.steps,
        errors: r.errors,
        blobs: r.blobs,
        window: r.window,
        warnings: r.warnings,
      });
    } else {
      const blobs =
        r.blobs.embedded + r.blobs.skipped > 0
          ? `, ${r.blobs.embedded} blob(s) embedded, ${r.blobs.skipped} skipped`
          : '';
      const window =
        r.window === null
          ? ''
          : `, lines ${r.window.first_line}-${r.window.last_line} embedded (${r.window.steps} steps)`;
      // A signed receipt nobody checked is not a broken chain: say which it is (one meaning of "signed").
      const unchecked =
        r.errors.length > 0 && r.errors.every((f) => f.kind === 'no_trusted_key' || f.kind === 'keyless_not_checked');
      // Nor are blobs left out or damaged: the chain verified, the blobs are what failed.
      const blobsOnly = r.errors.length > 0 && r.errors.every((f) => BLOB_FAULTS.has(f.kind));
      io.out(
        r.ok
          ? `wrote ${r.file}: ${plural(r.steps, 'step')}, head ${r.head_hash}, chain intact${blobs}${window}`
          : unchecked
            ? `wrote ${r.file}: ${plural(r.steps, 'step')}, head ${r.head_hash}, chain intact, signature NOT checked (${r.errors.map((f) => (f.kind === 'no_trusted_key' ? 'signed, but no --public-key was given' : 'a keyless bundle beside it, but no --certificate-identity and --certificate-oidc-issuer were given')).join('; ')})${blobs}${window}`
            : blobsOnly
              ? `wrote ${r.file}: ${plural(r.steps, 'step')}, head ${r.head_hash}, chain intact, but ${plural(r.errors.length, 'blob fault')}${blobs}${window}`
              : `wrote ${r.file}: the report shows ${plural(r.errors.length, 'fault')} (the chain does NOT verify)${blobs}${window}`,
      );
    }
    if (!r.ok) for (const f of r.errors) io.err(describeReportFault(r, f));
    return r.ok ? 0 : 1;
  },
};
