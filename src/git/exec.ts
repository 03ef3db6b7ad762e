import { spawnSync } from 'node:child_process';
import { simpleGit, type SimpleGit } from 'simple-git';

/**
 * Running git. Plumbing (snapshots, ref reads) goes through `gitSync`, a plain
 * synchronous `git` process, so `recordStep` stays synchronous; porcelain
 * (worktrees, branches, status) goes through simple-git (`gitAt`).
 */

/** A git command that failed: one line naming the command and git's own message. */
export class GitCommandError extends Error {
  override name = 'GitCommandError';
  constructor(
    readonly args: string[],
    readonly status: number | null,
    readonly stderr: string,
  ) {
    super(
      `git ${args
        .filter((a) => !a.includes('\n'))
        .slice(0, 3)
        .join(' ')}: ${firstLine(stderr) || `exit ${status}`}`,
    );
  }
}

export function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0 && !l.startsWith('hint:')) ?? ''
  );
}

/**
 * Variables that would point git at another repository, index or object store.
 * stepchain always names its repository by directory; one of these inherited
 * from a hook (`GIT_INDEX_FILE` during `git commit`, say) would misdirect it.
 */
const REDIRECTING = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_PREFIX',
  'GIT_NAMESPACE',
  'GIT_IMPLICIT_WORK_TREE',
]);

/** The environment for a plain git process: the caller's, minus redirecting variables, plus `extra`. */
export function gitEnv(env: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!REDIRECTING.has(k.toUpperCase())) out[k] = v;
  // Never prompt (credentials, editors): stepchain runs unattended.
  out.GIT_TERMINAL_PROMPT = '0';
  return { ...out, ...extra };
}

export interface GitSyncOptions {
  env?: NodeJS.ProcessEnv | undefined;
  /** Extra variables (e.g. GIT_INDEX_FILE for a temporary index). */
  extra?: Record<string, string>;
  input?: string;
}

/** Runs `git <args>` in `cwd`; returns stdout (untrimmed). Throws GitCommandError on a non-zero exit. */
export function gitSync(cwd: string, args: string[], options: GitSyncOptions = {}): string {
  const r = spawnSync('git', args, {
    cwd,
    env: gitEnv(options.env, options.extra),
    encoding: 'utf8',
    input: options.input ?? '',
    maxBuffer: 1 << 28,
    windowsHide: true,
  });
  if (r.error) throw new GitCommandError(args, null, r.error.message);
  if (r.status !== 0) throw new GitCommandError(args, r.status, r.stderr);
  return r.stdout;
}

/** Like gitSync but returns undefined instead of throwing (for queries whose failure means "no"). */
export function gitTry(cwd: string, args: string[], options: GitSyncOptions = {}): string | undefined {
  try {
    return gitSync(cwd, args, options);
  } catch (e) {
    if (e instanceof GitCommandError) return undefined;
    throw e;
  }
}

/** Variables simple-git refuses to pass on (they can make git run a program); none is needed here. */
const SIMPLE_GIT_GUARDED = new Set(['EDITOR', 'VISUAL', 'PAGER', 'PREFIX', 'SSH_ASKPASS']);

/**
 * A simple-git instance for `dir`. simple-git refuses GIT_* variables (and a few
 * others such as EDITOR) it was not told to allow, so it gets the caller's
 * environment without them: the porcelain it runs (worktree, branch, status)
 * needs neither an identity nor an editor.
 */
export function gitAt(dir: string, env: NodeJS.ProcessEnv = process.env): SimpleGit {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    const key = k.toUpperCase();
    if (v !== undefined && !key.startsWith('GIT_') && !SIMPLE_GIT_GUARDED.has(key)) clean[k] = v;
  }
  clean.GIT_TERMINAL_PROMPT = '0';
  return simpleGit({ baseDir: dir, allowEnvironment: ['GIT_TERMINAL_PROMPT'] }).env(clean);
}

/** Runs a simple-git task, turning its failure into GitCommandError (one line). */
export async function porcelain<T>(args: string[], task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (e) {
    if (e instanceof Error && !(e instanceof GitCommandError)) throw new GitCommandError(args, null, e.message);
    throw e;
  }
}
