import * as core from '@actions/core';
import * as github from '@actions/github';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  checkReportFromJson,
  checkReportJson,
  checkWorkspace,
  COMMENT_MARKER,
  COMMENT_MAX_CHARS,
  emptyFindings,
  exportAllReceipts,
  forkTree,
  globSet,
  mdCode,
  mdText,
  mergeShardReports,
  renderCheckMarkdown,
  scanFiles,
  SUMMARY_MAX_BYTES,
  writeHtmlReports,
  type CheckFault,
  type CheckReport,
  type DirCache,
  type ExportedReceipt,
  type ForkTreeNode,
  type ItemKind,
  type ShardPart,
} from '../check';
import { ensureCommit, forkPoint, headCommit, parentsOf } from '../git';
import { asStepchainError, InputError, StepchainError } from '../errors';
import { readUnder } from '../util/nofollow';
import { PRODUCER } from '../version';
import { resolveAnchors } from './anchors';
import { checkReceiptBundles, endpointInputs, resolveKeylessAnchors, signExported } from './keyless';
import { eventBase, type EventBase } from './event';
import { uploadFiles, upsertComment } from './github';
import { readInputs, type ActionInputs } from './inputs';
import { info, oneLineMessage } from './log';

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
const MAX_ANNOTATIONS = 10;
/** GitHub's cap on one step output is 1 MB; keep clear of it. */
const MAX_OUTPUT_BYTES = 1_000_000;

function where(f: CheckFault): string {
  return f.line === null ? f.path : `${f.path}:${f.line}`;
}

/** Annotations for the first faults (errors within `errorSlots`, warnings within 10); every fault in the log. */
function annotate(faults: CheckFault[], errorSlots: number): void {
  let errors = 0;
  let warnings = 0;
  for (const f of faults) {
    const props: core.AnnotationProperties = { file: f.path, title: `stepchain: ${f.kind}` };
    if (f.line !== null) props.startLine = f.line;
    if (f.severity === 'error' && errors < errorSlots) {
      core.error(oneLineMessage(f.message), props);
      errors++;
    } else if (f.severity === 'warning' && warnings < MAX_ANNOTATIONS) {
      core.warning(oneLineMessage(f.message), props);
      warnings++;
    }
    info(`${f.severity === 'error' ? 'FAULT' : 'WARNING'} ${where(f)}: ${f.message}`);
  }
  const hidden = faults.filter((f) => f.severity === 'error').length - errors;
  if (hidden > 0) info(`(${hidden} more faults are in the log above, the job summary and the JSON report)`);
}

/** A fresh directory per run under RUNNER_TEMP: two stepchain steps in one job never share files. */
function reportDir(): string {
  const parent = process.env['RUNNER_TEMP'] || tmpdir();
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(path.join(parent, 'stepchain-'));
}

function writeJson(file: string, doc: unknown): void {
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
}

async function writeSummary(markdown: string): Promise<void> {
  if (!process.env['GITHUB_STEP_SUMMARY']) return;
  await core.summary.addRaw(markdown, true).write();
}

/** An output within GitHub's per-output limit; over it, empty and a warning naming the file that has it all. */
function setBoundedOutput(name: string, value: string, file: string): void {
  if (Buffer.byteLength(value, 'utf8') <= MAX_OUTPUT_BYTES) {
    core.setOutput(name, value);
    return;
  }
  core.setOutput(name, '');
  core.warning(
    oneLineMessage(
      `output ${name}: ${Buffer.byteLength(value, 'utf8')} bytes is over GitHub's 1 MB output limit; ` +
        `it is left empty: read ${file} (output ${name}-file) instead`,
    ),
  );
}

/** `N faults in M files; first: path:line: message` */
function failureLine(faults: CheckFault[], what: string, extra: string[] = []): string {
  const errors = faults.filter((f) => f.severity === 'error');
  const files = new Set(errors.map((f) => f.path)).size;
  const first = errors[0];
  if (errors.length === 0) return `stepchain: ${what}: ${extra.join('; ')}`;
  return (
    `stepchain: ${what}: ${errors.length} fault${errors.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}` +
    (first ? `; first: ${where(first)}: ${first.message}` : '') +
    (extra.length > 0 ? `; ${extra.join('; ')}` : '')
  );
}

function defaultArtifactName(inputs: ActionInputs): string {
  if (inputs.artifactName !== '') return inputs.artifactName;
  if (inputs.mode === 'export') return 'stepchain-receipts';
  if (inputs.mode === 'gather') return 'stepchain-report';
  return inputs.shard.count > 1 ? `stepchain-report-${inputs.shard.index}` : 'stepchain-report';
}

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

async function exportMode(inputs: ActionInputs, workspace: string): Promise<void> {
  if (inputs.signingKey === undefined && !inputs.keyless)
    core.warning('export: allow-unsigned is true: the receipts are not signed.');
  const dir = reportDir();
  const r = exportAllReceipts({
    root: workspace,
    outDir: dir,
    journals: inputs.journals.patterns ?? [],
    agents: inputs.agents,
    ...(inputs.signingKey === undefined ? {} : { signKey: inputs.signingKey }),
    redact: inputs.redact,
  });
  // Keyless: each receipt signed through Sigstore (and attested); one that cannot be is removed and a fault.
  const keyless = inputs.keyless
    ? await signExported(
        r.receipts,
        { attest: inputs.attest, githubToken: inputs.githubToken, endpoints: endpointInputs(inputs.sigstoreURLs) },
        r.faults,
      )
    : undefined;
  if (keyless !== undefined) r.receipts = keyless.kept;
  const bundleOf = new Map((keyless?.signed ?? []).map((k) => [k.receipt, k]));
  if (r.faults.length > 0) core.setFailed(oneLineMessage(failureLine(r.faults, 'export failed')));
  annotate(r.faults, r.faults.length > 0 ? MAX_ANNOTATIONS - 1 : MAX_ANNOTATIONS);
  const rel = (x: ExportedReceipt) => ({ ...x, file: path.basename(x.file) });
  for (const x of r.receipts) {
    info(
      `Exported ${x.agent_id}: ${x.steps} steps, head ${x.head_hash}${x.signed ? `, signed (${x.key_id})` : ', unsigned'}` +
        `${x.redacted ? `, published with ${x.redacted.join(', ')} redacted (original head ${x.original_head})` : ''}`,
    );
  }
  const reportFile = path.join(dir, 'report.json');
  const headsFile = path.join(dir, 'heads.json');
  const heads = Object.fromEntries(r.receipts.map((x) => [x.agent_id, x.head_hash]));
  writeJson(reportFile, {
    producer: PRODUCER,
    mode: 'export',
    ok: r.faults.length === 0,
    verified: r.receipts.length,
    failed: r.faults.length,
    receipts: r.receipts.map(rel),
    keyless: (keyless?.signed ?? []).map((k) => ({
      receipt: path.basename(k.receipt),
      bundle: path.basename(k.bundle),
      identity: k.identity,
      attestation_id: k.attestation_id,
    })),
    faults: r.faults,
  });
  writeJson(headsFile, heads);
  core.setOutput('verified', r.receipts.length);
  core.setOutput('failed', r.faults.length);
  setBoundedOutput('heads', JSON.stringify(heads), headsFile);
  core.setOutput('heads-file', headsFile);
  core.setOutput('report', reportFile);
  setBoundedOutput('receipts', JSON.stringify(r.receipts.map((x) => x.file)), reportFile);
  const lines = [
    `## stepchain: ${r.faults.length === 0 ? '✅' : '❌'} ${r.receipts.length} receipt${r.receipts.length === 1 ? '' : 's'} exported`,
    '',
    '| Agent | Steps | Head | Signed | Receipt |',
    '|---|---:|---|---|---|',
    ...r.receipts.map(
      (x) =>
        `| ${mdText(x.agent_id)} | ${x.steps} | ${mdCode(x.head_hash.slice(0, 12))} | ${signedCell(x, bundleOf.get(x.file))} | ${mdCode(path.basename(x.file))}${x.redacted ? ` (redacted: ${mdText(x.redacted.join(', '))})` : ''} |`,
    ),
    '',
    ...r.faults.slice(0, 500).map((f) => `- ❌ ${mdCode(where(f))}: ${mdText(f.message, 500)}`),
    '',
  ];
  await writeSummary(lines.join('\n'));
  if (inputs.uploadArtifact && r.receipts.length > 0) {
    const html = writeHtmlReports(
      r.receipts.map((x) => ({
        kind: 'receipt',
        path: x.file,
        id: x.agent_id,
        steps: x.steps,
        head: x.head_hash,
        ok: true,
        status: 'ok',
      })),
      { root: workspace, outDir: path.join(dir, 'html') },
    );
    for (const w of html.warnings) core.warning(oneLineMessage(w));
    const id = await uploadFiles(
      defaultArtifactName(inputs),
      [...r.receipts.map((x) => x.file), ...[...bundleOf.values()].map((k) => k.bundle), reportFile, ...html.files],
      dir,
    );
    core.setOutput('artifact-id', id);
  }
}

/** The summary's Signed cell: the Ed25519 key and/or the keyless signer. */
function signedCell(
  x: ExportedReceipt,
  k: { identity: string | null; attestation_id: string | null } | undefined,
): string {
  const parts: string[] = [];
  if (x.signed) parts.push(`yes (${mdText(x.key_id ?? '')})`);
  if (k !== undefined)
    parts.push(
      `keyless ${mdCode(k.identity ?? '?')}${k.attestation_id === null ? '' : `, attestation ${mdText(k.attestation_id)}`}`,
    );
  return parts.length === 0 ? 'no' : parts.join('; ');
}

function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0] ?? 'unknown error';
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
