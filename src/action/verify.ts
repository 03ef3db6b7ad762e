import * as core from '@actions/core';
import path from 'node:path';
import {
  checkedItemLine,
  checkWorkspace,
  emptyFindings,
  forkTree,
  pullRequestBase,
  writeHtmlReports,
  type CheckOptions,
  type CheckReport,
  type DirCache,
  type ItemKind,
  type PullRequestBase,
} from '../check';
import { headCommit, isAncestor, parentsOf } from '../git';
import { resolveAnchors, type Anchors } from './anchors';
import type { EventBase } from './event';
import { uploadFiles } from './github';
import type { ActionInputs } from './inputs';
import { resolveKeylessAnchors } from './keyless';
import { annotation, info, oneLineMessage } from './log';
import { annotate, defaultArtifactName, failureLine, MAX_ANNOTATIONS, reportDir } from './outputs';
import { publish, reportDoc } from './publish';

/**
 * The Action's verify mode: the event's base (event.ts) and trust anchors read
 * from it (anchors.ts, keyless.ts), the PR fork-point rule (the library's
 * `pullRequestBase`, as `stepchain check --base` applies it), the library's
 * `checkWorkspace` with the inputs and the keyless anchors as its options, then the
 * if-no-files-found rule, and what every mode publishes (publish.ts).
 */

/**
 * A pull request's check must look at the PR's files: the checkout is its head, or is built on it (the merge commit
 * actions/checkout makes for pull_request names the head as a parent; a local merge or rebase onto the base has it
 * as an ancestor). On pull_request_target the default checkout is the base branch, and a pull_request job may check
 * out any ref: the check would then say what the base holds, and say it green. That is a failure, named (a check
 * that found nothing does not say OK). A workspace that is no git checkout (receipts of an artifact) has no head to
 * compare: said, as a warning.
 */
async function prHeadProblem(
  workspace: string,
  event: EventBase,
): Promise<{ failure: boolean; message: string } | undefined> {
  if (!isPullRequest(event) || event.head === undefined) return undefined;
  const head = await headCommit(workspace);
  if (head === event.head) return undefined;
  if (head !== undefined && (await parentsOf(workspace, head)).includes(event.head)) return undefined;
  if (head !== undefined && (await isAncestor(workspace, event.head, head))) return undefined;
  const fix =
    event.name === 'pull_request_target'
      ? 'Check out `github.event.pull_request.head.sha` in this job (and run none of its code) to check them'
      : "Keep actions/checkout's default ref (the merge commit) or check out `github.event.pull_request.head.sha`";
  return {
    failure: head !== undefined,
    message:
      `${event.name}: the checkout (${head?.slice(0, 12) ?? 'no commit'}) is not the pull request's head ` +
      `(${event.head.slice(0, 12)}) nor built on it: the PR's files were NOT checked. ${fix}`,
  };
}

/** What the fork-point rule found, worded for the log and the summary (nothing when the checkout is on the base). */
function forkPointNote(event: string, r: PullRequestBase): string | undefined {
  if (r.forkPoint === 'unknown')
    return (
      `${event}: the checkout is not built on the PR's base ${r.base.slice(0, 12)} and its history is too ` +
      'shallow to find where the PR branched: rows the base branch appended since will show as truncated ' +
      '(check out with fetch-depth: 0)'
    );
  if (r.forkPoint === 'branched')
    return (
      `${event}: the checkout is the PR's own head, not built on its base ${r.base.slice(0, 12)}: the ` +
      `journals are compared with where the PR branched from it, ${r.commit.slice(0, 12)}` +
      (r.others.length === 0
        ? ''
        : `, and with its other merge bases ${r.others.map((c) => c.slice(0, 12)).join(', ')} (the PR merged base commits that are not ancestors of each other)`)
    );
  return undefined;
}

const isPullRequest = (event: EventBase): boolean =>
  event.name === 'pull_request' || event.name === 'pull_request_target';

/** The checkWorkspace options the inputs and anchors make (`base`: the commit history is compared with). */
function checkOptions(
  inputs: ActionInputs,
  workspace: string,
  anchors: Anchors,
  base: string | undefined,
  dirCache: DirCache,
): CheckOptions {
  return {
    root: workspace,
    dirCache,
    journals: inputs.journals.patterns ?? [],
    runs: inputs.runs.patterns ?? [],
    receipts: inputs.receipts.patterns ?? [],
    verifyJournals: inputs.journals.patterns !== null,
    verifyRuns: inputs.runs.patterns !== null,
    verifyReceipts: inputs.receipts.patterns !== null,
    ...(base === undefined ? {} : { base }),
    ...(anchors.expectedHeads === undefined
      ? {}
      : { expectedHeads: anchors.expectedHeads.heads, expectedHeadsPath: anchors.expectedHeads.path }),
    publicKeys: anchors.publicKeys,
    keySources: anchors.keySources,
    keyHint: 'public-keys',
    failOnFlaggedMutations: inputs.failOnFlaggedMutations,
    provenance: inputs.provenance,
    shard: inputs.shard,
    // The checkout is a commit's (the PR's merge commit, a push's head): what is judged is what it commits, never
    // what a .gitattributes conversion or a submodule shows in its place.
    committed: true,
  };
}

/** Notes the event brings (no base, a pull_request_target checkout that is not the PR's), logged as they are added. */
/** The event's notes for the log and the summary, and the PR head rule's failure when the PR's files were not checked. */
async function eventNotes(
  workspace: string,
  event: EventBase,
  inputs: ActionInputs,
): Promise<{ notes: string[]; unchecked?: string }> {
  const notes: string[] = [];
  if (event.note !== undefined) {
    info(event.note);
    notes.push(event.note);
  }
  const head = await prHeadProblem(workspace, event);
  if (head !== undefined) {
    if (!head.failure) annotation('warning', head.message);
    notes.push(head.message);
  }
  if (!inputs.appendOnly) notes.push('append-only was switched off (append-only: false)');
  return head?.failure === true ? { notes, unchecked: head.message } : { notes };
}

/** Patterns the user set that matched nothing, or nothing at all: if-no-files-found decides (a note, a warning, a failure). */
function nothingFound(inputs: ActionInputs, report: CheckReport, notes: string[]): { empty: string[]; fails: boolean } {
  const given: Partial<Record<ItemKind, string[]>> = {};
  for (const [kind, p] of [
    ['journal', inputs.journals],
    ['run', inputs.runs],
    ['receipt', inputs.receipts],
  ] as const)
    if (p.explicit && p.patterns !== null) given[kind] = p.patterns;
  const empty = inputs.ifNoFilesFound === 'ignore' ? [] : emptyFindings(report, given);
  for (const e of empty) {
    if (inputs.ifNoFilesFound === 'warn') core.warning(oneLineMessage(`${e} (if-no-files-found: warn)`));
    notes.push(`${e} (if-no-files-found: ${inputs.ifNoFilesFound})`);
  }
  return { empty, fails: inputs.ifNoFilesFound === 'error' && empty.length > 0 };
}

/** Checks the workspace under the event's base and anchors; the report, with what was fetched logged. */
async function check(inputs: ActionInputs, workspace: string, event: EventBase, notes: string[], dirCache: DirCache) {
  const anchors = await resolveAnchors(workspace, inputs, event.base);
  for (const k of anchors.keySources) info(`Trusted key ${k.keyId} from ${k.source}`);
  if (anchors.expectedHeads !== undefined) info(`Pinned heads from ${anchors.expectedHeads.source}`);
  const keylessAnchors = await resolveKeylessAnchors(
    workspace,
    { identities: inputs.keylessIdentities, issuer: inputs.keylessIssuer, trustedRoot: inputs.trustedRoot },
    event.base,
    anchors,
  );
  if (keylessAnchors !== undefined)
    info(`Keyless signers: ${keylessAnchors.policy.identities.join(', ')} (from ${keylessAnchors.source})`);
  let base = inputs.appendOnly ? event.base : undefined;
  const options = checkOptions(inputs, workspace, anchors, base, dirCache);
  let fetchedForFork = false;
  let alsoBases: string[] = [];
  if (base !== undefined && isPullRequest(event)) {
    const pr = await pullRequestBase(options, base);
    const note = forkPointNote(event.name, pr);
    if (note !== undefined) {
      info(note);
      notes.push(note);
    }
    fetchedForFork = pr.fetched;
    base = pr.commit;
    alsoBases = pr.others;
  }
  // A receipt's Sigstore bundle is checked under the keyless anchors, or fails it (never green unchecked).
  const report = await checkWorkspace({
    ...options,
    ...(base === undefined ? {} : { base }),
    ...(alsoBases.length === 0 ? {} : { alsoBases }),
    ...(keylessAnchors === undefined
      ? {}
      : {
          keyless: {
            policy: keylessAnchors.policy,
            ...(keylessAnchors.trustedRoots === undefined ? {} : { trustedRoots: keylessAnchors.trustedRoots }),
          },
        }),
    keylessHint: 'keyless-identities',
  });
  // The anchors may have fetched the base already (then the check found it there).
  if (anchors.fetchedBase || fetchedForFork) report.fetchedBase = true;
  if (report.fetchedBase) info(`Fetched the base commit ${event.base} (shallow checkout).`);
  if (report.fetchedBlobs > 0)
    info(`Fetched ${report.fetchedBlobs} blobs of the base commit in one batch (partial clone).`);
  if (report.shard !== null)
    info(`Shard ${report.shard.index + 1} of ${report.shard.count} (shard-index ${report.shard.index}).`);
  return { report, anchors };
}

export async function verifyMode(inputs: ActionInputs, workspace: string, event: EventBase): Promise<void> {
  const { notes, unchecked } = await eventNotes(workspace, event, inputs);
  const dirCache: DirCache = new Map();
  const { report, anchors } = await check(inputs, workspace, event, notes, dirCache);
  const { empty, fails } = nothingFound(inputs, report, notes);
  const ok = report.ok && !fails && unchecked === undefined;

  // The one-line reason first: GitHub shows at most 10 error annotations per step.
  const why = [...(unchecked === undefined ? [] : [unchecked]), ...(fails ? empty : [])];
  if (!ok) core.setFailed(oneLineMessage(failureLine(report.faults, 'verification failed', why)));
  for (const i of report.items) info(checkedItemLine(i));
  annotate(report.faults, ok ? MAX_ANNOTATIONS : MAX_ANNOTATIONS - 1);

  const forks = await forkTree(workspace, undefined, process.env, dirCache);
  const dir = reportDir();
  const shown = { ...report, ok };
  const doc = reportDoc(event, shown, forks, notes, empty);
  const { reportFile, headsFile } = await publish(inputs, event, shown, forks, notes, dir, doc);
  if (inputs.uploadArtifact) {
    // With the JSON report, an offline HTML report per journal and receipt for reviewers.
    const html = writeHtmlReports(report.items, {
      root: workspace,
      outDir: path.join(dir, 'html'),
      publicKeys: anchors.publicKeys,
      faults: report.faults,
    });
    for (const w of html.warnings) core.warning(oneLineMessage(w));
    const id = await uploadFiles(defaultArtifactName(inputs), [reportFile, headsFile, ...html.files], dir);
    core.setOutput('artifact-id', id);
  }
  if (ok) info(`stepchain: ${report.verified} verified, 0 failed.`);
}
