import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Real git repositories for tests: one way to run git, make a repository and commit, used by every test file.
 * Commits carry a fixed identity given on the command line, so no repository config or user config is needed
 * (and none is written: tests of a repository's own config see only what they put there).
 */

/** The fixed identity, and no automatic maintenance (see `git`). */
const GIT_FLAGS = [
  '-c',
  'user.name=test',
  '-c',
  'user.email=test@stepchain.invalid',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'maintenance.auto=false',
];

/**
 * Runs git in `cwd` with a fixed identity; returns trimmed stdout; throws with git's stderr when it fails. Without
 * automatic maintenance (as src/git/pins.ts runs git): a commit would otherwise start `git maintenance run --auto`,
 * one more process per commit that finds nothing to do in a test's repository (a test that wants a gc runs one).
 */
export function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('git', [...GIT_FLAGS, ...args], {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/**
 * Git commands, each as `git()` runs it, one after another from one shell, stopping at the first that fails
 * (which throws, with git's stderr); their stdout together, untrimmed. From a jest worker of a few hundred MB,
 * starting a process costs ~10 ms of CPU in the worker alone (more than most git commands of a test run): a test
 * that runs git many times saves that for every command chained.
 */
export function gitChain(cwd: string, commands: string[][], env: NodeJS.ProcessEnv = process.env): string {
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`;
  const script = commands.map((args) => ['git', ...GIT_FLAGS, ...args].map(quote).join(' ')).join(' && ');
  return execFileSync('sh', ['-c', script], { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A new repository at `dir` with `files` committed on `main` (and `.sdd/` ignored unless told otherwise). */
export function initRepo(
  dir: string,
  files: Record<string, string> = {},
  options: { ignoreSdd?: boolean; commit?: boolean } = {},
): string {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  const all = options.ignoreSdd === false ? files : { '.gitignore': '.sdd/\n', ...files };
  writeFiles(dir, all);
  // commitAll without its rev-parse: the new HEAD is not what this returns (a git process per repository saved).
  if (options.commit !== false) {
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '--allow-empty', '-m', 'initial']);
  }
  return dir;
}

/**
 * A new repository at `dir` on `main` with nothing written, nothing committed and nothing ignored: the journals a
 * test appends under `.sdd/` are committed with the rest, as a project that keeps its journals in git does.
 */
export function emptyRepo(dir: string): string {
  return initRepo(dir, {}, { ignoreSdd: false, commit: false });
}

/** Commits everything in the working tree (an empty commit when nothing changed); returns the new HEAD. */
export function commitAll(dir: string, message: string): string {
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '--allow-empty', '-m', message]);
  return git(dir, ['rev-parse', 'HEAD']);
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [f, c] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), c);
  }
}

/** Every file under `dir` (relative, sorted), or [] when it does not exist. */
export function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      out.push(path.relative(dir, p));
      if (statSync(p).isDirectory() && e !== '.git') walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** What a fork may create: worktrees, branches, refs, files under `.sdd` (for "nothing left behind"). */
export function repoState(root: string): Record<string, unknown> {
  return {
    worktrees: git(root, ['worktree', 'list', '--porcelain']),
    refs: git(root, ['for-each-ref', '--format=%(refname) %(objectname)']),
    sdd: listTree(path.join(root, '.sdd')),
    adminDirs: listTree(path.join(root, '.git', 'worktrees')),
    status: git(root, ['status', '--porcelain']),
  };
}
