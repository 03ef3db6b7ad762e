import { GitCommandError, gitRunQuiet, gitSync, type GitSyncOptions } from './exec';

// What a snapshot cannot hold: a git repository inside the work tree (a submodule, or a nested repository such as
// `cargo new` makes) is recorded by its commit only, and one with no commit not at all. The step says so.

/** git's refusal of a nested repository with no commit (`git init` or `cargo new` in a subdirectory leaves one). */
const UNBORN_NESTED = /^error: '(.+)\/' does not have a commit checked out$/;
/** git's warning for a directory it cannot list (git 2.39: dir.c, `could not open directory`). */
const UNOPENED_DIR = /^warning: could not open directory '(.+)\/': /;

/** What the snapshot's add left out, by what git said: the step's warning names them. */
export interface LeftOut {
  /** Nested repositories with no commit yet. */
  unborn: string[];
  /** Directories git could not open (no permission). */
  unopened: string[];
}

/**
 * The snapshot's `git add -A` of `pathspec` (with `-c` pairs `config`) into its index. A nested
 * repository with no commit yet cannot be recorded (not even by its commit), and git refuses the whole add for it:
 * every step's snapshot failed until it had one. With --ignore-errors git adds the rest; that refusal alone is let
 * through, and the repositories it names are returned (the step's warning names them). Any other error fails the
 * snapshot as before.
 */
export function addWorkTree(
  top: string,
  config: readonly string[],
  pathspec: readonly string[],
  git: GitSyncOptions,
): LeftOut {
  const said = stderrReader();
  try {
    gitSync(top, addArgs(config, pathspec), { ...git, onStderr: said.onStderr });
    return { unborn: [], unopened: said.unopened };
  } catch (e) {
    return leftOutOfRefusal(e, said);
  }
}

/**
 * `addWorkTree` as a process of its own that runs while the caller goes on (the hook appends the step meanwhile):
 * the same command, the same reading of what git said (its stderr kept in a file in `scratchDir`, the snapshot's
 * private directory: no pipe to set up on the thread the agent waits for).
 */
export async function addWorkTreeAsync(
  top: string,
  config: readonly string[],
  pathspec: readonly string[],
  git: GitSyncOptions,
  scratchDir: string,
): Promise<LeftOut> {
  const said = stderrReader();
  try {
    await gitRunQuiet(top, addArgs(config, pathspec), scratchDir, { ...git, onStderr: said.onStderr });
    return { unborn: [], unopened: said.unopened };
  } catch (e) {
    return leftOutOfRefusal(e, said);
  }
}

const addArgs = (config: readonly string[], pathspec: readonly string[]): string[] => [
  ...config,
  'add',
  '-A',
  '--ignore-errors',
  '--',
  ...pathspec,
];

/**
 * The directories git said it could not open (no permission): only a warning to git, exit 0, and their files are
 * missing from the snapshot; the step says so as it does for a nested repository.
 */
function stderrReader(): { unopened: string[]; onStderr: (text: string) => void } {
  const unopened: string[] = [];
  const onStderr = (text: string): void => {
    for (const l of text.split('\n')) {
      const m = UNOPENED_DIR.exec(l);
      if (m !== null) unopened.push(m[1]!);
    }
  };
  return { unopened, onStderr };
}

/** An add git refused only for nested repositories with no commit: what it left out; any other failure is thrown. */
function leftOutOfRefusal(e: unknown, said: ReturnType<typeof stderrReader>): LeftOut {
  if (!(e instanceof GitCommandError)) throw e;
  const errors = e.stderr.split('\n').filter((l) => l !== '' && !/^(warning|hint): /.test(l));
  const unborn = errors.map((l) => UNBORN_NESTED.exec(l)?.[1]);
  if (errors.length === 0 || unborn.some((p) => p === undefined)) throw e;
  said.onStderr(e.stderr);
  return { unborn: unborn as string[], unopened: said.unopened };
}

/** The submodules and nested repositories the snapshot's index records by their commit (mode 160000). */
export function gitlinks(top: string, git: GitSyncOptions): string[] {
  const out: string[] = [];
  for (const rec of gitSync(top, ['ls-files', '-s', '-z'], git).split('\0')) {
    if (rec.startsWith('160000 ')) out.push(rec.slice(rec.indexOf('\t') + 1));
  }
  return out;
}
