import * as core from '@actions/core';
import * as github from '@actions/github';
import { DefaultArtifactClient } from '@actions/artifact';
import { COMMENT_MARKER } from '../check';

/** The GitHub side of the Action: the event, the PR comment and the artifact upload. */

export interface PullRequestRef {
  number: number;
  base: string;
  head: string | null;
}

/** The pull request of a `pull_request`/`pull_request_target` event, from the event payload. */
export function pullRequestOfEvent(): PullRequestRef | undefined {
  const pr = github.context.payload.pull_request as
    { number?: unknown; base?: { sha?: unknown }; head?: { sha?: unknown } } | undefined;
  if (pr === undefined || typeof pr.base?.sha !== 'string') return undefined;
  return {
    number: typeof pr.number === 'number' ? pr.number : github.context.issue.number,
    base: pr.base.sha,
    head: typeof pr.head?.sha === 'string' ? pr.head.sha : null,
  };
}

/**
 * Posts the report as one PR comment, or updates the one posted before (found by
 * its hidden marker, so re-runs never stack comments). Returns the comment's id and
 * whether it was created.
 */
export async function upsertComment(
  token: string,
  issueNumber: number,
  body: string,
): Promise<{ id: number; created: boolean }> {
  const octokit = github.getOctokit(token);
  const { owner, repo } = github.context.repo;
  // GitHub refuses comment bodies over 65,536 characters; the job summary and the report have it all.
  const limit = 60_000;
  const text =
    body.length > limit ? `${body.slice(0, limit)}\n\n… (truncated: see the job summary and the JSON report)` : body;
  const marked = `${COMMENT_MARKER}\n${text}`;
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100,
  });
  const mine = comments.find((c) => typeof c.body === 'string' && c.body.includes(COMMENT_MARKER));
  if (mine !== undefined) {
    await octokit.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body: marked });
    return { id: mine.id, created: false };
  }
  const r = await octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body: marked });
  return { id: r.data.id, created: true };
}

/** Uploads files (under `root`) as one workflow artifact; returns its id. */
export async function uploadFiles(name: string, files: string[], root: string): Promise<number> {
  const client = new DefaultArtifactClient();
  const r = await client.uploadArtifact(name, files, root);
  if (r.id === undefined) throw new Error(`artifact ${name}: the service returned no id`);
  core.info(`Uploaded artifact ${name} (id ${r.id}, ${r.size ?? 0} bytes)`);
  return r.id;
}
