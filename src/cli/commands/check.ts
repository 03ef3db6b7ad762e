import path from 'node:path';
import {
  checkedItemLine,
  checkReportJson,
  checkWorkspace,
  emptyFindings,
  forkTree,
  parseExpectedHeads,
  pullRequestBase,
  renderCheckMarkdown,
  type CheckOptions,
  type PullRequestBase,
} from '../../check';
import { parseProvenancePolicy, provenanceLines } from '../../check/provenance';
import { headCommit, resolveCommit } from '../../git';
import { readPublicKeyFile } from '../../receipt';
import { InputError } from '../../errors';
import { KEYLESS_CHECK_OPTIONS, keylessPolicyArgs } from './keyless-check';
import { sanitize } from '../../util/terminal';
import { expectPositionals } from '../args';
import type { ParsedArgs } from '../args';
import type { Command } from '../command';
import type { CommandIO } from '../io';
import { readSmallFile } from '../../receipt/keyless/files';
import { INPUT_BOUNDS, JSON_OPTION, KEY_HINT, PUBLIC_KEY_OPTION, readInputFile, ROOT_OPTION, rootOf } from '../common';
import { plural } from '../../util/words';

/** How the fork-point rule compared history, for the summary line and the Markdown notes. */
function forkPointNote(baseRef: string, r: PullRequestBase): string | undefined {
  if (r.forkPoint === 'branched')
    return (
      `HEAD is not built on ${baseRef} (${r.base.slice(0, 12)}): history is compared with where it branched from it, ${r.commit.slice(0, 12)}` +
      (r.others.length === 0
        ? ''
        : `, and with its other merge bases ${r.others.map((c) => c.slice(0, 12)).join(', ')} (HEAD merged commits of ${baseRef} that are not ancestors of each other)`) +
      ', as the PR check does'
    );
  if (r.forkPoint === 'unknown')
    return `HEAD is not built on ${baseRef} (${r.base.slice(0, 12)}) and the history is too shallow to find where it branched: rows ${baseRef} appended since will show as truncated (git fetch --unshallow)`;
  return undefined;
}

/** The keyless anchors of the command line (the check reads the trusted roots, loading the Sigstore code then). */
function keylessAnchors(args: ParsedArgs, io: CommandIO): Pick<CheckOptions, 'keyless' | 'keylessHint'> {
  const keylessHint = '--certificate-identity and --certificate-oidc-issuer';
  const policy = keylessPolicyArgs(args, 'check');
  if (policy === undefined) return { keylessHint };
  const rootFile = args.values.get('trusted-root');
  if (rootFile === undefined) return { keyless: { policy }, keylessHint };
  const text = readSmallFile(path.resolve(io.cwd, rootFile), 'trusted root');
  return { keyless: { policy, trustedRoots: { text, source: rootFile } }, keylessHint };
}

/** The Action's verify mode, locally: `stepchain check --base origin/main` before pushing. */
export const checkCommand: Command = {
  name: ['check'],
  usage:
    '[--root DIR] [--base REF | --exact-base REF] [--journals GLOB]... [--runs GLOB]... [--receipts GLOB]... [--public-key FILE]... [--certificate-identity ID --certificate-oidc-issuer ISS [--trusted-root FILE] [--owner ORG]] [--expected-heads FILE] [--warn-flagged] [--provenance off|warn|error] [--committed] [--allow-empty] [--markdown] [--json]',
  summary:
    "Check a repository's journals, run journals and receipts as the GitHub Action does: the work tree's files (before committing), or with --committed what HEAD commits (in CI, a checked-out PR: as the Action). With --base, history must only be appended to since REF. A check that matches nothing fails unless --allow-empty. Exit 0 holds, 1 not.",
  description:
    'Finds the journals, run journals and receipts by the globs (defaults as the Action), verifies each, and with --base ' +
    'checks that every journal at REF was only appended to. As the PR check does, when HEAD is not built on REF, ' +
    'history is compared with where HEAD branched from it (their merge base); --exact-base compares with REF itself ' +
    '(after a force-push or a history rewrite: whatever REF held must still be there). A signed receipt fails ' +
    'unless a --public-key checks it; a keyless signature beside a receipt (RECEIPT.sigstore.json) fails it unless ' +
    'it verifies under --certificate-identity and --certificate-oidc-issuer (keyless_not_checked otherwise). ' +
    'Without --committed the files are read as the work tree shows them (uncommitted appends included: the check ' +
    'before committing); with --committed every file read must be the blob HEAD holds at its path and lie in no ' +
    'submodule (not_committed otherwise), as the Action judges a pull request: a checkout can differ from its commit ' +
    '(a .gitattributes conversion, a submodule) and the commit is the record. --base does not imply --committed.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    base: {
      kind: 'value',
      value: 'REF',
      description: 'A commit (branch, tag, hash) whose journals must only have been appended to since.',
    },
    'exact-base': {
      kind: 'value',
      value: 'REF',
      description:
        'As --base, compared with REF exactly, even when HEAD is not built on it (no fork-point rule): every row REF held must still be there, e.g. the branch before a force-push.',
    },
    journals: {
      kind: 'list',
      value: 'GLOB',
      description: 'Where per-step journals are (default .sdd/runtime/journal/*/000000.jsonl; `none`: not checked).',
    },
    runs: {
      kind: 'list',
      value: 'GLOB',
      description: 'Where run journals are (default .sdd/runs/*/journal.jsonl; `none`: not checked).',
    },
    receipts: {
      kind: 'list',
      value: 'GLOB',
      description: 'Where receipts are (default **/*.receipt.tar and .tar.gz, .tgz; `none`: not checked).',
    },
    'public-key': PUBLIC_KEY_OPTION,
    'certificate-identity': KEYLESS_CHECK_OPTIONS['certificate-identity']!,
    'certificate-oidc-issuer': KEYLESS_CHECK_OPTIONS['certificate-oidc-issuer']!,
    'trusted-root': KEYLESS_CHECK_OPTIONS['trusted-root']!,
    owner: KEYLESS_CHECK_OPTIONS['owner']!,
    'expected-heads': {
      kind: 'value',
      value: 'FILE',
      stdin: true,
      description:
        'A JSON object {"agent_id": "head"}: each named agent\'s journal must end at that head; at most 16 MiB ' +
        '(`-` reads stdin).',
    },
    'warn-flagged': { kind: 'flag', description: 'Report flagged mutations as warnings instead of failing.' },
    provenance: {
      kind: 'value',
      value: 'off|warn|error',
      description:
        'With --base (or --exact-base): attribute every file changed since REF to the verified step that produced it; an unrecorded file is a warning (warn, the default), fails the check (error), or is not looked for (off).',
    },
    'allow-empty': {
      kind: 'flag',
      description: 'Accept a check that matches nothing (no journal, run journal or receipt; a glob matching no file).',
    },
    committed: {
      kind: 'flag',
      description:
        'Judge what HEAD commits, as the Action does: every file read must be the blob HEAD holds at its path, byte for byte, and lie in no submodule (not_committed otherwise); a file HEAD does not hold is read as it is. For CI and a checked-out pull request; without it the work tree is judged (before committing).',
    },
    markdown: { kind: 'flag', description: "Print the Action's job summary (Markdown) instead of lines." },
  },
  examples: [
    { run: 'stepchain check --base origin/main', what: 'what the PR check will say, before pushing' },
    {
      run: 'stepchain check --exact-base pr-before-push',
      what: 'after a force-push: nothing the branch held before it was rewritten',
    },
    {
      run: 'stepchain check --committed --base origin/main',
      what: 'in CI, or on a checked-out pull request: what its commit holds, as the Action judges it',
    },
    { run: 'stepchain check --public-key keys/receipts.pub --json', what: 'signed receipts, as JSON' },
    {
      run: 'stepchain check --base main --provenance error',
      what: 'fail when a changed file was produced by no verified recorded step',
    },
  ],
  exitCodes: {
    0: 'everything found holds',
    1: 'a fault (each printed), or nothing matched (without --allow-empty)',
    2: 'usage or input error (a bad --base ref, --base and --exact-base both given, --committed with no HEAD commit)',
  },
  async run(args, io) {
    expectPositionals(args, [], 'check');
    const root = rootOf(args, io);
    const exactRef = args.values.get('exact-base');
    if (exactRef !== undefined && args.values.has('base'))
      throw new InputError('--base and --exact-base: give one (the fork-point rule, or the commit exactly)');
    const baseRef = exactRef ?? args.values.get('base');
    // --base does not imply --committed: REF picks the history compared with, --committed which bytes are judged
    // against it (the work tree's uncommitted appends, before committing, are what a local check is for).
    const committed = args.flags.has('committed');
    if (committed && (await headCommit(root)) === undefined)
      throw new InputError(
        `--committed: ${root} has no HEAD commit to judge (not a git repository, or nothing committed)`,
      );
    const given = baseRef === undefined ? undefined : await resolveCommit(root, baseRef);
    const provenanceFlag = args.values.get('provenance');
    const provenance = provenanceFlag === undefined ? 'warn' : parseProvenancePolicy(provenanceFlag, '--provenance');
    const headsFile = args.values.get('expected-heads');
    const list = (name: string) => args.lists.get(name);
    // `none` switches a kind off, as the Action's input does.
    const off = (name: string): boolean => list(name)?.length === 1 && list(name)![0] === 'none';
    const globs = (name: string) => (off(name) ? undefined : list(name));
    const journals = globs('journals');
    const runs = globs('runs');
    const receipts = globs('receipts');
    const kinds = {
      ...(off('journals') ? { verifyJournals: false } : {}),
      ...(off('runs') ? { verifyRuns: false } : {}),
      ...(off('receipts') ? { verifyReceipts: false } : {}),
    };
    // The PR fork-point rule, as the Action applies it (check/base.ts); --exact-base compares with the commit itself.
    const pr =
      given === undefined || exactRef !== undefined ? undefined : await pullRequestBase({ root, ...kinds }, given);
    const base = exactRef === undefined ? pr?.commit : given;
    const forkNote = pr === undefined || baseRef === undefined ? undefined : forkPointNote(baseRef, pr);
    const report = await checkWorkspace({
      root,
      ...(base === undefined ? {} : { base }),
      ...(pr === undefined || exactRef !== undefined || pr.others.length === 0 ? {} : { alsoBases: pr.others }),
      ...(journals === undefined ? {} : { journals }),
      ...(runs === undefined ? {} : { runs }),
      ...(receipts === undefined ? {} : { receipts }),
      publicKeys: (list('public-key') ?? []).map((f) => readPublicKeyFile(path.resolve(io.cwd, f))),
      keyHint: KEY_HINT,
      ...keylessAnchors(args, io),
      ...(headsFile === undefined
        ? {}
        : {
            expectedHeads: parseExpectedHeads(
              readInputFile(headsFile, io, 'expected heads', INPUT_BOUNDS.heads),
              headsFile,
            ),
            expectedHeadsPath: path.relative(root, path.resolve(io.cwd, headsFile)).split(path.sep).join('/'),
          }),
      failOnFlaggedMutations: !args.flags.has('warn-flagged'),
      provenance,
      ...(committed ? { committed } : {}),
      ...kinds,
    });
    // A check that found nothing does not say OK (a mistyped glob, a wrong --root).
    const empty = args.flags.has('allow-empty')
      ? []
      : emptyFindings(report, {
          ...(journals === undefined ? {} : { journal: journals }),
          ...(runs === undefined ? {} : { run: runs }),
          ...(receipts === undefined ? {} : { receipt: receipts }),
        });
    const ok = report.ok && empty.length === 0;
    if (args.flags.has('json')) {
      io.json({ ...checkReportJson(report), ok, nothing_matched: empty });
    } else if (args.flags.has('markdown')) {
      io.out(
        renderCheckMarkdown(report, {
          forks: await forkTree(root, undefined, io.env),
          notes: [
            ...(forkNote === undefined ? [] : [forkNote]),
            ...empty.map((e) => `${e} (stepchain check --allow-empty accepts that)`),
          ],
        }),
      );
    } else {
      // One line per file, whatever its path or status holds (a rename's status names the new path).
      for (const i of report.items) io.out(sanitize(checkedItemLine(i)));
      for (const l of provenanceLines(report.provenance)) io.out(sanitize(l));
      const nothing = empty.length === 0 ? '' : `; ${plural(empty.length, 'pattern')} matched nothing`;
      io.out(
        sanitize(
          `${ok ? 'OK' : 'FAIL'}: ${report.verified} verified, ${report.failed} failed${given === undefined ? '' : `, append-only since ${baseRef} (${given.slice(0, 12)})`}${nothing}`,
        ),
      );
    }
    for (const f of report.faults)
      io.err(
        `${f.severity === 'error' ? '' : 'warning: '}${f.line === null ? f.path : `${f.path}:${f.line}`}: ${f.message}`,
      );
    if (forkNote !== undefined && !args.flags.has('json')) io.err(sanitize(`note: ${forkNote}`));
    for (const e of empty) io.err(`${e} (--allow-empty accepts that)`);
    return ok ? 0 : 1;
  },
};
