import * as core from '@actions/core';
import {
  checkReportFromJson,
  forkTree,
  globSet,
  mergeShardReports,
  NOT_UTF8_NAME,
  scanFiles,
  type ShardPart,
} from '../check';
import { InputError } from '../errors';
import { headCommit } from '../git';
import { readUnder } from '../util/nofollow';
import type { EventBase } from './event';
import { uploadFiles } from './github';
import type { ActionInputs } from './inputs';
import { info, oneLineMessage } from './log';
import { annotate, defaultArtifactName, failureLine, MAX_ANNOTATIONS, reportDir } from './outputs';
import { publish, reportDoc } from './publish';
import { pluralWord } from '../util/words';
import { isObjectId } from '../git/object-id';

/** The Action's gather mode: the shards' report.json files (downloaded artifacts) as one check. */

/**
 * The commit this job checks: its checkout's HEAD, or GITHUB_SHA without a
 * checkout. A shard's report counts only when it was made from the same commit.
 */
async function gatherCommit(workspace: string): Promise<string> {
  const head = await headCommit(workspace);
  if (head !== undefined) return head;
  const sha = process.env['GITHUB_SHA'] ?? '';
  if (isObjectId(sha)) return sha;
  throw new InputError('gather: no checkout and no GITHUB_SHA: cannot tell which commit the shards must have checked');
}

/** One shard's report, read without following a link, refused unless it is a verify-mode report. */
function readShard(workspace: string, rel: string): ShardPart {
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
  return {
    source: rel,
    report: checkReportFromJson(doc, `input reports: ${rel}`, workspace),
    reasons: Array.isArray(empty) ? empty.filter((x): x is string => typeof x === 'string') : [],
  };
}

export async function gatherMode(inputs: ActionInputs, workspace: string, event: EventBase): Promise<void> {
  const scan = scanFiles(workspace, globSet(inputs.reports));
  for (const l of scan.links)
    if (l.severity === 'error') throw new InputError(`input reports: ${l.path} is a symbolic link (never followed)`);
  // A shard report no path string opens would be left out of the verdict, unseen: refused as a link is.
  const unnamed = scan.unnamed[0];
  if (unnamed !== undefined) throw new InputError(`input reports: ${unnamed}: ${NOT_UTF8_NAME}, so it cannot be read`);
  if (scan.files.length === 0)
    throw new InputError(
      `input reports: ${inputs.reports.join(', ')} matched no file (download the shards' artifacts first)`,
    );
  const commit = await gatherCommit(workspace);
  const parts = scan.files.map((rel) => readShard(workspace, rel));
  const report = mergeShardReports(parts, workspace, commit);
  info(
    `Gathered ${parts.length} shard reports of commit ${commit}: ${report.verified} verified, ${report.failed} failed.`,
  );
  if (!report.ok) core.setFailed(oneLineMessage(failureLine(report.faults, 'verification failed')));
  annotate(report.faults, report.ok ? MAX_ANNOTATIONS : MAX_ANNOTATIONS - 1);
  const notes = [`gathered from ${parts.length} shard ${pluralWord(parts.length, 'report')}`];
  const dir = reportDir();
  const forks = await forkTree(workspace);
  const doc = reportDoc(event, report, forks, notes, []);
  const { reportFile, headsFile } = await publish(inputs, event, report, forks, notes, dir, doc);
  if (inputs.uploadArtifact) {
    const id = await uploadFiles(defaultArtifactName(inputs), [reportFile, headsFile], dir);
    core.setOutput('artifact-id', id);
  }
}
