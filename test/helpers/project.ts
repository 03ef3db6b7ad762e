import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { initRepo } from './git';
import { freshDir } from './tmp';

/**
 * Fresh projects for tests: a git repository of their own each call, under the test file's temporary directory.
 * (Repositories themselves: helpers/git.ts; an empty directory: `freshDir` in helpers/tmp.ts.)
 */

/** A new repository under `parent` each call, with `files` committed as `initRepo` commits them. */
export function freshRepo(
  parent: string,
  files: Record<string, string>,
  options: { ignoreSdd?: boolean; commit?: boolean } = {},
): string {
  return initRepo(freshDir(parent, 'repo'), files, options);
}

/**
 * A new project for an agent (`<dir>/project`, a repository with `files` committed) and the agent's own home
 * beside it (`<dir>/home`, empty), so the agent's user config is the test's and never the machine's.
 */
export function agentProject(
  parent: string,
  files: Record<string, string> = { 'README.md': '# p\n' },
): { root: string; home: string } {
  const dir = freshDir(parent, 'agent');
  const home = path.join(dir, 'home');
  mkdirSync(home);
  return { root: initRepo(path.join(dir, 'project'), files), home };
}
