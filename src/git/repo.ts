import { existsSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { GitCommandError, gitSync, gitTimeoutMs, gitTry } from './exec';
import { SNAPSHOT_TIMEOUT_MS } from './snapshot-begin';
import { readRepoInfo, type RepoInfo } from './repo-read';
import { enclosingForkWorktree } from './worktree-link';
import { isObjectId } from './object-id';

export type { RepoInfo } from './repo-read';
export { isRefComponent } from './ref-name';

/** The path-valued facts `repoInfo` asks `git rev-parse` for, in order. */
const PATH_QUERIES: string[][] = [
  ['--show-toplevel'],
  ['--absolute-git-dir'],
  ['--git-common-dir'],
  ['--git-path', 'index'],
];

/** One value a git command printed, without exactly the one newline git ends it with (a path may hold others). */
function oneValue(out: string): string {
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}

/**
 * Reads the repository facts for `dir` with as few processes as possible (this
 * runs on every append). Undefined when `dir` is not inside a git work tree.
 *
 * `git rev-parse` has no `-z`: its values come one per line, and a path may hold
 * a newline. One process asks for everything; when the lines are more than the
 * values asked for, some path held a newline, and each path is asked for again
 * on its own (one value per process, so nothing can be misread): the fast path
 * can never hand back another repository's paths.
 */
export function repoInfo(dir: string, env?: NodeJS.ProcessEnv): RepoInfo | undefined {
  if (!existsSync(dir)) return undefined;
  // The repository's files, when they say it plainly (./repo-read.ts); a fork's worktree is git's (./exec.ts pins it).
  return (enclosingForkWorktree(dir) === undefined ? readRepoInfo(dir) : undefined) ?? repoInfoFromGit(dir, env);
}

/** repoInfo as `git rev-parse` answers it (one process, more when a path holds a newline). */
export function repoInfoFromGit(dir: string, env?: NodeJS.ProcessEnv): RepoInfo | undefined {
  if (!existsSync(dir)) return undefined;
  const q = ['rev-parse', '--is-inside-work-tree', ...PATH_QUERIES.flat()];
  const headQ = ['HEAD^{commit}', '--symbolic-full-name', 'HEAD'];
  let out = discover(dir, [...q, ...headQ], env, true);
  let expected = 1 + PATH_QUERIES.length + 2;
  if (out === undefined) {
    out = discover(dir, q, env, false);
    expected = 1 + PATH_QUERIES.length;
  }
  if (out === undefined) return undefined;
  let lines = oneValue(out).split('\n');
  if (lines[0] !== 'true') return undefined;
  if (lines.length !== expected) {
    // A path held a newline: ask for each path alone, then for HEAD (whose values hold none).
    const paths: string[] = [];
    for (const pq of PATH_QUERIES) {
      const v = gitTry(dir, ['rev-parse', ...pq], { env });
      if (v === undefined) return undefined;
      paths.push(oneValue(v));
    }
    const head = expected > 1 + PATH_QUERIES.length ? gitTry(dir, ['rev-parse', ...headQ], { env }) : undefined;
    lines = ['true', ...paths, ...(head === undefined ? [] : oneValue(head).split('\n'))];
  }
  const top = lines[1]!;
  const gitDir = lines[2]!;
  const commonDir = path.resolve(dir, lines[3]!);
  const indexFile = path.resolve(dir, lines[4]!);
  const head = lines[5] !== undefined && isObjectId(lines[5]) ? lines[5] : undefined;
  const symbolic = lines[6];
  let branch: string | undefined;
  if (head !== undefined) {
    branch = symbolic?.startsWith('refs/heads/') ? symbolic.slice('refs/heads/'.length) : undefined;
  } else {
    // Unborn branch: HEAD still names it.
    const ref = gitTry(dir, ['symbolic-ref', '-q', 'HEAD'], { env })?.trim();
    branch = ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
  }
  return { top, gitDir, commonDir, indexFile, head, branch };
}

/** What git says when a directory is in no work tree (none found upwards, or a bare repository's). */
const NO_WORK_TREE = /not a git repository|must be run in a work tree/;

/**
 * `git rev-parse` for repository discovery: its output, or undefined when git says the directory is in no work tree
 * (or, `retry`, when it failed with an exit code: an unborn HEAD fails the query naming it). Anything else throws:
 * a git stopped for taking too long (an `include.path` naming a FIFO), a configuration git cannot read, a repository
 * it refuses. Taken for "no repository", those recorded steps with no snapshot and no word, a hook call waited out
 * two 5-minute timeouts, and the agent that wrote the configuration chose what was snapshotted.
 */
function discover(dir: string, args: string[], env: NodeJS.ProcessEnv | undefined, retry: boolean): string | undefined {
  try {
    // An agent waits on every step's discovery: it gets a snapshot's time (30 s), not the 5 minutes of a fetch.
    return gitSync(dir, args, {
      env,
      timeoutMs: gitTimeoutMs(env, 'STEPCHAIN_SNAPSHOT_TIMEOUT_MS', SNAPSHOT_TIMEOUT_MS),
    });
  } catch (e) {
    if (!(e instanceof GitCommandError) || e.status === null) throw e;
    if (retry || NO_WORK_TREE.test(e.stderr)) return undefined;
    throw e;
  }
}

/** repoInfo, or an InputError (exit 2) naming the directory. */
export function requireRepo(dir: string, env?: NodeJS.ProcessEnv): RepoInfo {
  const info = repoInfo(dir, env);
  if (info === undefined) throw new InputError(`${dir}: not inside a git work tree (fork needs a git repository)`);
  return info;
}

/** The commit a ref points to, or undefined. */
export function resolveRef(dir: string, ref: string, env?: NodeJS.ProcessEnv): string | undefined {
  return gitTry(dir, ['rev-parse', '-q', '--verify', `${ref}^{commit}`], { env })?.trim() || undefined;
}

/** Whether a branch exists. */
export function branchExists(dir: string, branch: string, env?: NodeJS.ProcessEnv): boolean {
  return gitTry(dir, ['show-ref', '--verify', '-q', `refs/heads/${branch}`], { env }) !== undefined;
}

/** Refs under a prefix with their commit and full message (one process). */
export function listRefs(
  dir: string,
  prefix: string,
  env?: NodeJS.ProcessEnv,
): { ref: string; commit: string; message: string }[] {
  const out = gitSync(dir, ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(contents)%00%00', prefix], {
    env,
  });
  const refs: { ref: string; commit: string; message: string }[] = [];
  for (const rec of out.split('\0\0')) {
    const r = rec.replace(/^\n/, '');
    if (r.trim() === '') continue;
    const [ref, commit, message] = r.split('\0');
    if (ref && commit) refs.push({ ref, commit, message: message ?? '' });
  }
  return refs;
}

/** Applies ref updates atomically (`git update-ref --stdin` in a transaction). */
export function updateRefs(dir: string, commands: string[], env?: NodeJS.ProcessEnv): void {
  if (commands.length === 0) return;
  gitSync(dir, ['update-ref', '--stdin'], { env, input: `start\n${commands.join('\n')}\nprepare\ncommit\n` });
}
