import * as core from '@actions/core';
import path from 'node:path';
import {
  checkReportJson,
  COMMENT_MARKER,
  COMMENT_MAX_CHARS,
  renderCheckMarkdown,
  SUMMARY_MAX_BYTES,
  type CheckReport,
  type ForkTreeNode,
} from '../check';
import { PRODUCER } from '../version';
import type { EventBase } from './event';
import { upsertComment } from './github';
import type { ActionInputs } from './inputs';
import { info, oneLineMessage } from './log';
import { oneLine, setBoundedOutput, writeJson, writeSummary } from './outputs';

/** What verify and gather mode publish alike: the JSON report, the heads, the outputs, the summary, the comment. */

/** The JSON report of a check (report.json): the library's report, and what the Action adds about the run. */
export function reportDoc(
  event: EventBase,
  report: CheckReport,
  forks: ForkTreeNode[],
  notes: string[],
  empty: string[],
): Record<string, unknown> {
  return {
    producer: PRODUCER,
    mode: 'verify',
    event: event.name || null,
    ...checkReportJson(report),
    nothing_matched: empty,
    notes,
    forks: forks.map((f) => ({ id: f.id, parent: f.parent, from_step: f.fromStep, label: f.label })),
  };
}

/** The report comment on the pull request; a token that may not post one only warns. */
async function comment(inputs: ActionInputs, event: EventBase, body: () => string): Promise<void> {
  if (event.pr === undefined) return info('comment: not a pull request, no comment posted.');
  if (inputs.githubToken === '') return core.warning('comment: no github-token given, no comment posted.');
  try {
    const c = await upsertComment(inputs.githubToken, event.pr, body());
    info(`${c.created ? 'Posted' : 'Updated'} the report comment on #${event.pr} (comment ${c.id}, as ${c.viewer}).`);
  } catch (e) {
    // A read-only token (a PR from a fork) must not turn a verified PR red.
    core.warning(oneLineMessage(`comment: could not post the report on #${event.pr}: ${oneLine(e)}`));
  }
}

/** Writes report.json and heads.json to `dir`, sets the outputs, writes the summary and (if asked) the comment. */
export async function publish(
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
  if (inputs.comment)
    await comment(inputs, event, () =>
      renderCheckMarkdown(report, { forks, notes, maxChars: COMMENT_MAX_CHARS - COMMENT_MARKER.length - 1 }),
    );
  return { reportFile, headsFile };
}
