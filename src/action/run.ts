import * as core from '@actions/core';
import * as github from '@actions/github';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  checkWorkspace,
  exportAllReceipts,
  forkTree,
  renderCheckMarkdown,
  writeHtmlReports,
  type CheckFault,
  type CheckReport,
  type ExportedReceipt,
} from '../check';
import { StepchainError } from '../errors';
import { PRODUCER } from '../version';
import { pullRequestOfEvent, uploadFiles, upsertComment } from './github';
import { readInputs, type ActionInputs } from './inputs';

/**
 * The Action: `node dist/index.js` as a runner starts it (inputs in INPUT_*, the
 * event in GITHUB_EVENT_PATH, outputs and summary through the GITHUB_* files).
 * Every fault is an annotation at its file and line plus one log line; the step
 * fails with one line. Nothing ends in a stack trace.
 */
function where(f: CheckFault): string {
  return f.line === null ? f.path : `${f.path}:${f.line}`;
}

function annotate(faults: CheckFault[]): void {
  for (const f of faults) {
    const props: core.AnnotationProperties = { file: f.path, title: `stepchain: ${f.kind}` };
    if (f.line !== null) props.startLine = f.line;
    if (f.severity === 'error') core.error(f.message, props);
    else core.warning(f.message, props);
    core.info(`${f.severity === 'error' ? 'FAULT' : 'WARNING'} ${where(f)}: ${f.message}`);
  }
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

/** `N faults in M files; first: path:line: message` */
function failureLine(faults: CheckFault[], what: string): string {
  const errors = faults.filter((f) => f.severity === 'error');
  const files = new Set(errors.map((f) => f.path)).size;
  const first = errors[0];
  return (
    `stepchain: ${what}: ${errors.length} fault${errors.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}` +
    (first ? `; first: ${where(first)}: ${first.message}` : '')
  );
}

function relativeReport(report: CheckReport): Record<string, unknown> {
  const { root: _root, ...rest } = report;
  return { producer: PRODUCER, mode: 'verify', event: github.context.eventName || null, ...rest };
}

async function verifyMode(inputs: ActionInputs, workspace: string): Promise<void> {
  const pr = pullRequestOfEvent();
  const base = inputs.appendOnly && pr !== undefined ? pr.base : undefined;
  if (inputs.appendOnly && pr === undefined)
    core.info('Not a pull request: the append-only check needs a base commit and is skipped.');
  const report = await checkWorkspace({
    root: workspace,
    journals: inputs.journals,
    runs: inputs.runs,
    receipts: inputs.receipts,
    ...(base === undefined ? {} : { base }),
    ...(inputs.expectedHeads === undefined
      ? {}
      : { expectedHeads: inputs.expectedHeads.heads, expectedHeadsPath: inputs.expectedHeads.path }),
    publicKeys: inputs.publicKeys,
    failOnFlaggedMutations: inputs.failOnFlaggedMutations,
  });
  if (report.fetchedBase) core.info(`Fetched the base commit ${base} (shallow checkout).`);
  for (const i of report.items) {
    core.info(
      `${i.ok ? 'OK  ' : 'FAIL'} ${i.kind} ${i.path}: ${i.steps} step${i.steps === 1 ? '' : 's'}${i.head ? `, head ${i.head}` : ''} (${i.status}${i.appendOnly ? `, ${i.appendOnly}` : ''})`,
    );
  }
  annotate(report.faults);

  const forks = await forkTree(workspace);
  const markdown = renderCheckMarkdown(report, { forks });
  const dir = reportDir();
  const reportFile = path.join(dir, 'report.json');
  writeJson(reportFile, { ...relativeReport(report), forks });

  core.setOutput('verified', report.verified);
  core.setOutput('failed', report.failed);
  core.setOutput('heads', JSON.stringify(report.heads));
  core.setOutput('report', reportFile);
  await writeSummary(markdown);

  if (inputs.comment) {
    if (pr === undefined) core.info('comment: not a pull request, no comment posted.');
    else if (inputs.githubToken === '') core.warning('comment: no github-token given, no comment posted.');
    else {
      try {
        const c = await upsertComment(inputs.githubToken, pr.number, markdown);
        core.info(`${c.created ? 'Posted' : 'Updated'} the report comment on #${pr.number} (comment ${c.id}).`);
      } catch (e) {
        // A read-only token (a PR from a fork) must not turn a verified PR red.
        core.warning(`comment: could not post the report on #${pr.number}: ${oneLine(e)}`);
      }
    }
  }
  if (inputs.uploadArtifact) {
    // With the JSON report, an offline HTML report per journal and receipt for reviewers.
    const html = writeHtmlReports(report.items, { root: workspace, outDir: path.join(dir, 'html') });
    for (const w of html.warnings) core.warning(w);
    const id = await uploadFiles(inputs.artifactName, [reportFile, ...html.files], dir);
    core.setOutput('artifact-id', id);
  }
  if (!report.ok) core.setFailed(failureLine(report.faults, 'verification failed'));
  else core.info(`stepchain: ${report.verified} verified, 0 failed.`);
}

async function exportMode(inputs: ActionInputs, workspace: string): Promise<void> {
  const dir = reportDir();
  const r = exportAllReceipts({
    root: workspace,
    outDir: dir,
    journals: inputs.journals,
    agents: inputs.agents,
    ...(inputs.signingKey === undefined ? {} : { signKey: inputs.signingKey }),
    redact: inputs.redact,
  });
  annotate(r.faults);
  const rel = (x: ExportedReceipt) => ({ ...x, file: path.basename(x.file) });
  for (const x of r.receipts) {
    core.info(
      `Exported ${x.agent_id}: ${x.steps} steps, head ${x.head_hash}${x.signed ? `, signed (${x.key_id})` : ', unsigned'}` +
        `${x.redacted ? `, published with ${x.redacted.join(', ')} redacted (original head ${x.original_head})` : ''}`,
    );
  }
  const reportFile = path.join(dir, 'report.json');
  writeJson(reportFile, {
    producer: PRODUCER,
    mode: 'export',
    ok: r.faults.length === 0,
    verified: r.receipts.length,
    failed: r.faults.length,
    receipts: r.receipts.map(rel),
    faults: r.faults,
  });
  core.setOutput('verified', r.receipts.length);
  core.setOutput('failed', r.faults.length);
  core.setOutput('heads', JSON.stringify(Object.fromEntries(r.receipts.map((x) => [x.agent_id, x.head_hash]))));
  core.setOutput('report', reportFile);
  core.setOutput('receipts', JSON.stringify(r.receipts.map((x) => x.file)));
  const lines = [
    `## stepchain: ${r.faults.length === 0 ? '✅' : '❌'} ${r.receipts.length} receipt${r.receipts.length === 1 ? '' : 's'} exported`,
    '',
    '| Agent | Steps | Head | Signed | Receipt |',
    '|---|---:|---|---|---|',
    ...r.receipts.map(
      (x) =>
        `| ${x.agent_id} | ${x.steps} | <code>${x.head_hash.slice(0, 12)}</code> | ${x.signed ? `yes (${x.key_id})` : 'no'} | <code>${path.basename(x.file)}</code>${x.redacted ? ` (redacted: ${x.redacted.join(', ')})` : ''} |`,
    ),
    '',
    ...r.faults.map((f) => `- ❌ <code>${where(f)}</code>: ${f.message}`),
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
    for (const w of html.warnings) core.warning(w);
    const id = await uploadFiles(
      inputs.artifactName,
      [...r.receipts.map((x) => x.file), reportFile, ...html.files],
      dir,
    );
    core.setOutput('artifact-id', id);
  }
  if (r.faults.length > 0) core.setFailed(failureLine(r.faults, 'export failed'));
}

function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0] ?? 'unknown error';
}

export async function run(): Promise<void> {
  try {
    const workspace = path.resolve(process.env['GITHUB_WORKSPACE'] || process.cwd());
    const inputs = readInputs(workspace);
    if (inputs.mode === 'export') await exportMode(inputs, workspace);
    else await verifyMode(inputs, workspace);
  } catch (e) {
    if (e instanceof StepchainError) core.setFailed(`stepchain: ${e.message}`);
    else {
      // Unexpected: one line for the check, the trace only in the debug log (ACTIONS_STEP_DEBUG).
      if (e instanceof Error && e.stack) core.debug(e.stack);
      core.setFailed(`stepchain: ${oneLine(e)}`);
    }
  }
}
