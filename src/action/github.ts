import * as core from '@actions/core';
import * as github from '@actions/github';
import { COMMENT_MARKER } from '../check';
import { artifactModule } from './carried';
import { safeLine } from './log';

/**
 * The GitHub side of the Action: the PR comment and the artifact upload.
 *
 * The comment is found again by its hidden marker AND its author: only a comment
 * written by the token's own identity (`viewer` in GraphQL: `github-actions[bot]`
 * for the workflow token) is ever updated, so a human comment that quotes the
 * marker is left alone and a new comment is posted instead.
 */
type Octokit = ReturnType<typeof github.getOctokit>;

/** The login of the token's identity; REST comment authors of a bot carry the `[bot]` suffix. */
async function viewerLogin(octokit: Octokit): Promise<string> {
  const r = await octokit.graphql<{ viewer: { login: string } }>('query { viewer { login } }');
  const login = r.viewer?.login;
  if (typeof login !== 'string' || login === '') throw new Error('the API did not say who the token belongs to');
  return login;
}

function sameAuthor(viewer: string, user: { login?: string; type?: string } | null | undefined): boolean {
  if (!user || typeof user.login !== 'string') return false;
  if (user.login === viewer) return true;
  // GraphQL may name an app's bot without the suffix REST gives it.
  return user.type === 'Bot' && user.login === `${viewer}[bot]`;
}

/**
 * Posts the report as one PR comment, or updates the one this identity posted
 * before (found by its hidden marker). Returns the comment's id and whether it
 * was created. The body must already be within GitHub's limit.
 */
export async function upsertComment(
  token: string,
  issueNumber: number,
  body: string,
): Promise<{ id: number; created: boolean; viewer: string }> {
  const octokit = github.getOctokit(token);
  const { owner, repo } = github.context.repo;
  const viewer = await viewerLogin(octokit);
  const marked = `${COMMENT_MARKER}\n${body}`;
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100,
  });
  const mine = comments.find(
    (c) => typeof c.body === 'string' && c.body.startsWith(COMMENT_MARKER) && sameAuthor(viewer, c.user),
  );
  if (mine !== undefined) {
    await octokit.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body: marked });
    return { id: mine.id, created: false, viewer };
  }
  const r = await octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body: marked });
  return { id: r.data.id, created: true, viewer };
}

/** Uploads files (under `root`) as one workflow artifact; returns its id. */
export async function uploadFiles(name: string, files: string[], root: string): Promise<number> {
  // Compiled when an upload happens: the artifact client (Azure storage, protobuf) is the largest part of the
  // bundle, and most runs never upload (src/action/carried.ts).
  const { DefaultArtifactClient } = await artifactModule();
  const client = new DefaultArtifactClient();
  const r = await client.uploadArtifact(name, files, root);
  if (r.id === undefined) throw new Error(`artifact ${name}: the service returned no id`);
  core.info(safeLine(`Uploaded artifact ${name} (id ${r.id}, ${r.size ?? 0} bytes)`));
  return r.id;
}
