import * as core from '@actions/core';
import * as github from '@actions/github';
import path from 'node:path';
import {
  checkReportFromJson,
  checkReportJson,
  checkWorkspace,
  COMMENT_MARKER,
  COMMENT_MAX_CHARS,
  emptyFindings,
  forkTree,
  globSet,
  mergeShardReports,
  renderCheckMarkdown,
  scanFiles,
  SUMMARY_MAX_BYTES,
  writeHtmlReports,
  type CheckReport,
  type DirCache,
  type ForkTreeNode,
  type ItemKind,
  type ShardPart,
} from '../check';
import { ensureCommit, forkPoint, headCommit, parentsOf } from '../git';
import { asStepchainError, InputError, StepchainError } from '../errors';
import { readUnder } from '../util/nofollow';
import { PRODUCER } from '../version';
import { resolveAnchors } from './anchors';
import { checkReceiptBundles, resolveKeylessAnchors } from './keyless';
import { eventBase, type EventBase } from './event';
import { uploadFiles, upsertComment } from './github';
import { readInputs, type ActionInputs } from './inputs';
import { exportMode } from './export';
import { info, oneLineMessage } from './log';
import {
  annotate,
  defaultArtifactName,
  failureLine,
  MAX_ANNOTATIONS,
  oneLine,
  reportDir,
  setBoundedOutput,
  writeJson,
  writeSummary,
} from './outputs';

/**
 * The Action: `node dist/index.js` as a runner starts it (inputs in INPUT_*, the
 * event in GITHUB_EVENT_PATH, outputs and summary through the GITHUB_* files).
 * The step fails with one line, printed first; then at most 10 faults become
 * error annotations (GitHub shows no more per step) and 10 warnings; every
 * fault is one log line, and the summary and the JSON report have them all (the
 * summary within GitHub's 1 MiB, the comment within 65,536 characters). Every
 * line printed with data in it is neutralised (src/action/log.ts). Nothing ends
 * in a stack trace.
 */

/** On pull_request_target the default checkout is the base branch: the PR's files are then not checked. */
async function pullRequestTargetNote(workspace: string, event: EventBase): Promise<string | undefined> {
  if (event.name !== 'pull_request_target' || event.head === undefined) return undefined;
  const head = await headCommit(workspace);
  if (head === event.head) return undefined;
  if (head !== undefined && (await parentsOf(workspace, head)).includes(event.head)) return undefined;
  return (
    `pull_request_target: the checkout (${head?.slice(0, 12) ?? 'no commit'}) is not the pull request's head ` +
    `(${event.head.slice(0, 12)}): the PR's files were NOT checked. Check out ` +
    '`github.event.pull_request.head.sha` in this job (and run none of its code) to check them'
  );
}

/** The summary, the comment and the outputs that verify and gather mode share. */
async function publish(
  inputs: ActionInputs,
  event: EventBase,
  report: CheckReport,
  forks: ForkTreeNode[],
  notes: string[],
  dir: string,
  doc: Record<string, unknown>,
): Promise<{ reportFile: string; headsFile: string }> {
  const reportFile = path.join(dir, 'report.json');
  const headsFile = path.join(dir, 'heads.json');
  writeJson(reportFile, doc);
  writeJson(headsFile, report.heads);
  core.setOutput('verified', report.verified);
  core.setOutput('failed', report.failed);
  setBoundedOutput('heads', JSON.stringify(report.heads), headsFile);
  core.setOutput('heads-file', headsFile);
  core.setOutput('report', reportFile);
  await writeSummary(renderCheckMarkdown(report, { forks, notes, maxBytes: SUMMARY_MAX_BYTES }));

  if (inputs.comment) {
    if (event.pr === undefined) info('comment: not a pull request, no comment posted.');
    else if (inputs.githubToken === '') core.warning('comment: no github-token given, no comment posted.');
    else {
      const body = renderCheckMarkdown(report, {
        forks,
        notes,
        maxChars: COMMENT_MAX_CHARS - COMMENT_MARKER.length - 1,
      });
      try {
        const c = await upsertComment(inputs.githubToken, event.pr, body);
        info(
          `${c.created ? 'Posted' : 'Updated'} the report comment on #${event.pr} (comment ${c.id}, as ${c.viewer}).`,
        );
      } catch (e) {
        // A read-only token (a PR from a fork) must not turn a verified PR red.
        core.warning(oneLineMessage(`comment: could not post the report on #${event.pr}: ${oneLine(e)}`));
      }
    }
  }
  return { reportFile, headsFile };
}

function reportDoc(
  mode: string,
  event: EventBase,
  report: CheckReport,
  forks: ForkTreeNode[],
  notes: string[],
  empty: string[],
): Record<string, unknown> {
  return {
    producer: PRODUCER,
    mode,
    event: event.name || null,
    ...checkReportJson(report),
    nothing_matched: empty,
    notes,
    forks: forks.map((f) => ({ id: f.id, parent: f.parent, from_step: f.fromStep, label: f.label })),
  };
}

async function verifyMode(inputs: ActionInputs, workspace: string, event: EventBase): Promise<void> {
  const notes: string[] = [];
  if (event.note !== undefined) {
    info(event.note);
    notes.push(event.note);
  }
  const prt = await pullRequestTargetNote(workspace, event);
  if (prt !== undefined) {
    core.warning(oneLineMessage(prt));
    notes.push(prt);
  }
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
  if (!inputs.appendOnly) notes.push('append-only was switched off (append-only: false)');
  let fetchedForFork = false;
  // Receipts have a history too, once committed (outside a git checkout the check compares none).
  const histories =
    inputs.journals.patterns !== null ||
    inputs.runs.patterns !== null ||
    (inputs.receipts.patterns !== null && (await headCommit(workspace)) !== undefined);
  if (base !== undefined && histories && (event.name === 'pull_request' || event.name === 'pull_request_target')) {
    // A checkout of the PR's own head lacks what the base branch appended since it branched: compare with the fork point.
    fetchedForFork = await ensureCommit(workspace, base);
    const from = await forkPoint(workspace, base);
    const note =
      from === undefined
        ? `${event.name}: the checkout is not built on the PR's base ${base.slice(0, 12)} and its history is too ` +
          'shallow to find where the PR branched: rows the base branch appended since will show as truncated ' +
          '(check out with fetch-depth: 0)'
        : from !== base
          ? `${event.name}: the checkout is the PR's own head, not built on its base ${base.slice(0, 12)}: the ` +
            `journals are compared with where the PR branched from it, ${from.slice(0, 12)}`
          : undefined;
    if (note !== undefined) {
      info(note);
      notes.push(note);
    }
    if (from !== undefined) base = from;
  }

  const kinds: [ItemKind, ActionInputs['journals']][] = [
    ['journal', inputs.journals],
    ['run', inputs.runs],
    ['receipt', inputs.receipts],
  ];
  const dirCache: DirCache = new Map();
  const report = await checkWorkspace({
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
    failOnFlaggedMutations: inputs.failOnFlaggedMutations,
    provenance: inputs.provenance,
    shard: inputs.shard,
  });
  // A receipt's Sigstore bundle is checked under the keyless anchors, or fails it (never green unchecked).
  await checkReceiptBundles(report, workspace, keylessAnchors);
  // The anchors may have fetched the base already (then the check found it there).
  if (anchors.fetchedBase || fetchedForFork) report.fetchedBase = true;
  if (report.fetchedBase) info(`Fetched the base commit ${event.base} (shallow checkout).`);
  if (report.fetchedBlobs > 0)
    info(`Fetched ${report.fetchedBlobs} blobs of the base commit in one batch (partial clone).`);
  if (report.shard !== null)
    info(`Shard ${report.shard.index + 1} of ${report.shard.count} (shard-index ${report.shard.index}).`);

  // A pattern the user set that matched nothing, or nothing at all: if-no-files-found decides.
  const given: Partial<Record<ItemKind, string[]>> = {};
  for (const [kind, p] of kinds) if (p.explicit && p.patterns !== null) given[kind] = p.patterns;
  const empty = inputs.ifNoFilesFound === 'ignore' ? [] : emptyFindings(report, given);
  for (const e of empty) {
    if (inputs.ifNoFilesFound === 'warn') core.warning(oneLineMessage(`${e} (if-no-files-found: warn)`));
    notes.push(`${e} (if-no-files-found: ${inputs.ifNoFilesFound})`);
  }
  const emptyFails = inputs.ifNoFilesFound === 'error' && empty.length > 0;
  const ok = report.ok && !emptyFails;

  // The one-line reason first: GitHub shows at most 10 error annotations per step.
  if (!ok) core.setFailed(oneLineMessage(failureLine(report.faults, 'verification failed', emptyFails ? empty : [])));
  for (const i of report.items) {
    info(
      `${i.ok ? 'OK  ' : 'FAIL'} ${i.kind} ${i.path}: ${i.steps} step${i.steps === 1 ? '' : 's'}${i.head ? `, head ${i.head}` : ''} (${i.status}${i.appendOnly && i.appendOnly !== 'renamed' ? `, ${i.appendOnly}` : ''})`,
    );
  }
  annotate(report.faults, ok ? MAX_ANNOTATIONS : MAX_ANNOTATIONS - 1);

  const forks = await forkTree(workspace, undefined, process.env, dirCache);
  const dir = reportDir();
  const shown = { ...report, ok };
  const { reportFile, headsFile } = await publish(
    inputs,
    event,
    shown,
    forks,
    notes,
    dir,
    reportDoc('verify', event, shown, forks, notes, empty),
  );
  if (inputs.uploadArtifact) {
    // With the JSON report, an offline HTML report per journal and receipt for reviewers.
    const html = writeHtmlReports(report.items, {
      root: workspace,
      outDir: path.join(dir, 'html'),
      publicKeys: anchors.publicKeys,
    });
    for (const w of html.warnings) core.warning(oneLineMessage(w));
    const id = await uploadFiles(defaultArtifactName(inputs), [reportFile, headsFile, ...html.files], dir);
    core.setOutput('artifact-id', id);
  }
  if (ok) info(`stepchain: ${report.verified} verified, 0 failed.`);
}

/**
 * The commit this job checks: its checkout's HEAD, or GITHUB_SHA without a
 * checkout. A shard's report counts only when it was made from the same commit.
 */
async function gatherCommit(workspace: string): Promise<string> {
  const head = await headCommit(workspace);
  if (head !== undefined) return head;
  const sha = process.env['GITHUB_SHA'] ?? '';
  if (/^[0-9a-f]{40,64}$/.test(sha)) return sha;
  throw new InputError('gather: no checkout and no GITHUB_SHA: cannot tell which commit the shards must have checked');
}

/** Gather mode: the shards' report.json files (downloaded artifacts) as one check. */
async function gatherMode(inputs: ActionInputs, workspace: string, event: EventBase): Promise<void> {
  const scan = scanFiles(workspace, globSet(inputs.reports));
  for (const l of scan.links)
    if (l.severity === 'error') throw new InputError(`input reports: ${l.path} is a symbolic link (never followed)`);
  if (scan.files.length === 0)
    throw new InputError(
      `input reports: ${inputs.reports.join(', ')} matched no file (download the shards' artifacts first)`,
    );
  const commit = await gatherCommit(workspace);
  const parts: ShardPart[] = [];
  for (const rel of scan.files) {
    const r = readUnder(workspace, rel, 512 * 1024 * 1024);
    if (r.kind !== 'file') throw new InputError(`input reports: ${rel}: not a readable regular file`);
    let doc: unknown;
    try {
      doc = JSON.parse(r.bytes.toString('utf8'));
    } catch (e) {
      throw new InputError(`input reports: ${rel}: not JSON: ${(e as Error).message}`);
    }
    if (typeof doc === 'object' && doc !== null && (doc as Record<string, unknown>)['mode'] !== 'verify')
      throw new InputError(`input reports: ${rel}: not a verify-mode report`);
    const empty = (doc as Record<string, unknown>)['nothing_matched'];
    parts.push({
      source: rel,
      report: checkReportFromJson(doc, `input reports: ${rel}`, workspace),
      reasons: Array.isArray(empty) ? empty.filter((x): x is string => typeof x === 'string') : [],
    });
  }
  const report = mergeShardReports(parts, workspace, commit);
  info(
    `Gathered ${parts.length} shard reports of commit ${commit}: ${report.verified} verified, ${report.failed} failed.`,
  );
  if (!report.ok) core.setFailed(oneLineMessage(failureLine(report.faults, 'verification failed')));
  annotate(report.faults, report.ok ? MAX_ANNOTATIONS : MAX_ANNOTATIONS - 1);
  const notes = [`gathered from ${parts.length} shard report${parts.length === 1 ? '' : 's'}`];
  const dir = reportDir();
  const forks = await forkTree(workspace);
  const { reportFile, headsFile } = await publish(
    inputs,
    event,
    report,
    forks,
    notes,
    dir,
    reportDoc('verify', event, report, forks, notes, []),
  );
  if (inputs.uploadArtifact) {
    const id = await uploadFiles(defaultArtifactName(inputs), [reportFile, headsFile], dir);
    core.setOutput('artifact-id', id);
  }
}

export async function run(): Promise<void> {
  try {
    const workspace = path.resolve(process.env['GITHUB_WORKSPACE'] || process.cwd());
    const inputs = readInputs();
    const event = eventBase(github.context.eventName, github.context.payload);
    if (inputs.mode === 'export') await exportMode(inputs, workspace);
    else if (inputs.mode === 'gather') await gatherMode(inputs, workspace, event);
    else await verifyMode(inputs, workspace, event);
  } catch (thrown) {
    // An OS error (ENOSPC, EACCES, ...) gets the CLI's one line naming the path and the cause.
    const e = asStepchainError(thrown) ?? thrown;
    if (e instanceof StepchainError) core.setFailed(oneLineMessage(`stepchain: ${e.message}`));
    else {
      // Unexpected: one line for the check, the trace only in the debug log (ACTIONS_STEP_DEBUG).
      if (e instanceof Error && e.stack) core.debug(e.stack);
      core.setFailed(oneLineMessage(`stepchain: ${oneLine(e)}`));
    }
  }
}
