import { gitCommandLine, NAMED_SECTIONS_PATTERN, type GitCommandLine } from './pins';
import { readScratch, scratchFile, settleOnce } from '../util/scratch-file';
import path from 'node:path';
import { forkWorktreeEnv } from './worktree-link';
import { LOOSE_CONFIG_PATTERN } from './loose';
import { readConfigInProcess, type ConfigPlaces } from './config-read';
import { spawnQuiet, type QuietChild } from './quiet-process';

/** node:child_process (net and dgram under it) is loaded by the first git process, not with the CLI: a bundle evaluates every static import at its start, and many commands start no git. */
const childProcess = (): typeof import('node:child_process') => process.getBuiltinModule('node:child_process');

/**
 * Running git: every git process stepchain starts goes through this module: its
 * one environment policy (`gitEnv`), the configuration pinned on every command
 * line so git runs no program a repository, a worktree or an inherited variable
 * configures (./pins.ts), and, inside a worktree stepchain created, the check
 * that its `.git` still points at the repository that created it
 * (./worktree-link.ts). `gitSync` runs a synchronous process (so `recordStep`
 * stays synchronous), `gitRun` an asynchronous one (bytes), `gitText` the same
 * as text. Nothing else in src/ starts git (test/git.runner.test.ts checks it).
 */

/** A git command that failed: one line naming the command and git's own message. */
export class GitCommandError extends Error {
  override name = 'GitCommandError';
  constructor(
    readonly args: string[],
    readonly status: number | null,
    readonly stderr: string,
  ) {
    super(`git ${commandLabel(args)}: ${firstLine(stderr) || `exit ${status}`}`);
  }
}

/**
 * A git command line as a message names it: its first three arguments after the leading `-c name=value` pairs the
 * call pins (`git -c core.ignoreCase=false -c: ...` named no command), without an argument that spans lines.
 */
function commandLabel(args: readonly string[]): string {
  let k = 0;
  while (args[k] === '-c' && k + 1 < args.length) k += 2;
  return args
    .slice(k)
    .filter((a) => !a.includes('\n'))
    .slice(0, 3)
    .join(' ');
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
 * The one environment policy for every git process stepchain starts (plumbing,
 * porcelain and the check's reads of a base commit). The caller's environment is
 * kept except git's own variables: every `GIT_*` is dropped unless it is on the
 * list below. A dropped variable could point git at another repository, index or
 * object store (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY,
 * GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_COMMON_DIR), inject configuration
 * (GIT_CONFIG, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, GIT_CONFIG_COUNT/KEY_n/VALUE_n,
 * GIT_CONFIG_PARAMETERS: `url.*.insteadOf`, `core.fsmonitor`...), change what a
 * repository is found or what it holds (GIT_CEILING_DIRECTORIES,
 * GIT_DISCOVERY_ACROSS_FILESYSTEM, GIT_NAMESPACE, GIT_REPLACE_REF_BASE,
 * GIT_GRAFT_FILE, GIT_SHALLOW_FILE, GIT_QUARANTINE_PATH), change how pathspecs
 * match (GIT_*_PATHSPECS) or which programs git runs (GIT_EXEC_PATH, GIT_EDITOR,
 * GIT_PAGER, GIT_EXTERNAL_DIFF, GIT_TEMPLATE_DIR, GIT_SSH, GIT_SSH_COMMAND,
 * GIT_ASKPASS, GIT_PROXY_COMMAND). A hook's GIT_INDEX_FILE or a CI job's GIT_DIR
 * must never make stepchain read another repository and pass a rewritten
 * history. What a caller needs (a temporary index for a snapshot) it passes
 * deliberately as `extra`.
 */
const KEPT = new Set([
  // Transport settings (not programs): fetching a PR's base commit must work as the runner set it up.
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'GIT_SSL_CERT',
  'GIT_SSL_KEY',
  'GIT_SSL_NO_VERIFY',
  'GIT_SSL_VERSION',
  'GIT_SSL_CIPHER_LIST',
  'GIT_HTTP_PROXY_AUTHMETHOD',
  'GIT_HTTP_USER_AGENT',
  'GIT_HTTP_LOW_SPEED_LIMIT',
  'GIT_HTTP_LOW_SPEED_TIME',
  'GIT_PROXY_SSL_CERT',
  'GIT_PROXY_SSL_KEY',
  'GIT_PROXY_SSL_CAINFO',
  // The identity of the commits stepchain makes (snapshots, forks).
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  // Only ever removes configuration (the system file); it cannot add any.
  'GIT_CONFIG_NOSYSTEM',
  // Diagnostics on stderr.
  'GIT_TRACE',
  'GIT_TRACE2',
  'GIT_TRACE2_EVENT',
  'GIT_TRACE2_PERF',
  'GIT_TRACE_PACKET',
  'GIT_TRACE_PERFORMANCE',
  'GIT_TRACE_SETUP',
  'GIT_CURL_VERBOSE',
]);

/** The transports git may use (./pins.ts allows the same): no remote helper, no `ext::` command. */
export const ALLOWED_PROTOCOLS = 'file:http:https:ssh';

/** Whether the policy keeps an inherited variable. */
export function keepsGitVariable(name: string): boolean {
  const key = name.toUpperCase();
  return !key.startsWith('GIT_') || KEPT.has(key);
}

/**
 * The environment for a git process: the caller's under the policy above, plus
 * what stepchain sets deliberately: no prompts (it runs unattended) and no
 * replace refs (`refs/replace/*` would make git show other bytes than the
 * commit holds), then `extra`.
 */
export function gitEnv(env: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && keepsGitVariable(k)) out[k] = v;
  out.GIT_TERMINAL_PROMPT = '0';
  out.GIT_NO_REPLACE_OBJECTS = '1';
  // A repository's `protocol.<name>.allow` outranks the pinned `protocol.allow=never` (a more specific key), so
  // `protocol.ext.allow=always` with an `ext::` remote ran its command on a partial clone's lazy fetch. This
  // variable overrides every protocol setting of every configuration file.
  out.GIT_ALLOW_PROTOCOL = ALLOWED_PROTOCOLS;
  return { ...out, ...extra };
}

export interface GitSyncOptions {
  env?: NodeJS.ProcessEnv | undefined;
  /** Extra variables (e.g. GIT_INDEX_FILE for a temporary index). */
  extra?: Record<string, string>;
  input?: string | Buffer;
  /**
   * Reads the configuration naming filter drivers and remotes (the default reads it for each command that can run
   * one); `namedConfigOnce` lets the commands of one operation share one read.
   */
  readNamed?: () => string;
  /** How long the process may take before it is stopped (default: gitTimeoutMs of the environment). */
  timeoutMs?: number;
  /** Given what a command that succeeded said on stderr (its warnings), for the caller to pass on. */
  onStderr?: (text: string) => void;
}

/** The longest delay setTimeout keeps (a signed 32-bit count of milliseconds). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The longest a git process may run before it is stopped (SIGKILL) and its command fails, naming the wait: git waits
 * forever to open a FIFO where it reads a file (a `.gitignore`, `.gitattributes`, `.git/HEAD`, `.git/config`,
 * `info/exclude`...), and nothing stepchain starts may hang. Generous by default (5 minutes: a fetch of a large base
 * commit, a first `git add` of a huge work tree); STEPCHAIN_GIT_TIMEOUT_MS sets it. A snapshot, which an agent waits
 * for on every tool call, has its own shorter one (./snapshot.ts).
 */
export function gitTimeoutMs(
  env: NodeJS.ProcessEnv | undefined,
  variable = 'STEPCHAIN_GIT_TIMEOUT_MS',
  fallback = 300_000,
): number {
  const v = Number((env ?? process.env)[variable]);
  // At most a timer's longest (2^31 - 1 ms, ~24.8 days): past it Node warns on stderr (TimeoutOverflowWarning) and
  // fires after 1 ms, which killed every git process gitRun and gitRunQuiet started (every snapshot failed).
  return Number.isInteger(v) && v > 0 ? Math.min(v, MAX_TIMER_MS) : fallback;
}

/** The failure of a git process stopped for taking longer than `ms`. */
function timedOut(args: string[], ms: number): GitCommandError {
  return new GitCommandError(
    args,
    null,
    `no answer in ${ms / 1000} s: stopped (a FIFO or a hung file system where git reads the repository?)`,
  );
}

/**
 * The process to start for `git <args>` in `cwd`: the pinned command line, and
 * the environment (with the repository pinned inside a fork worktree).
 */
function prepare(
  cwd: string,
  args: string[],
  options: GitSyncOptions,
): { line: GitCommandLine; env: NodeJS.ProcessEnv } {
  const repoPin = forkWorktreeEnv(cwd, (root) => {
    const out = gitTry(root, ['rev-parse', '--git-common-dir'], { env: options.env });
    return out === undefined ? undefined : path.resolve(root, out.replace(/\n$/, ''));
  });
  const env = gitEnv(options.env, { ...options.extra, ...repoPin });
  stopKeepingOnWrite(args);
  const line = gitCommandLine(args, options.readNamed ?? (() => namedConfig(cwd, options)));
  return { line, env };
}

/**
 * The named-configuration reads of a process that asked for them to be kept (`rememberNamedConfig`), by directory
 * and pattern: undefined, every command that can run a named program reads it again (a process of its own).
 */
let namedMemo: Map<string, string> | undefined;

/**
 * Keeps each named-configuration read (the process environment's, per directory) for the rest of the process: for
 * a one-shot process whose git commands read a repository without writing its configuration (the Action: a pull
 * request's check started the same read about seven times). The configuration read once gives the same answer
 * unless the process writes it, so the first command that can (anything not known to only read: an init, a
 * worktree, a fetch that makes a clone partial) ends the keeping for good, before it starts (an asynchronous one
 * may still be running when the next command reads).
 */
export function rememberNamedConfig(): () => void {
  namedMemo ??= new Map();
  // The end of the keeping, for a caller that runs the Action's run() in a longer process (its tests).
  return () => {
    namedMemo = undefined;
  };
}

/** Git commands that never write a repository's configuration (nor do `config` with a read option, `worktree list`). */
const READS_ONLY = new Set([
  'rev-parse',
  'symbolic-ref',
  'show-ref',
  'for-each-ref',
  'ls-files',
  'cat-file',
  'ls-tree',
  'rev-list',
  'merge-base',
  'diff-tree',
]);
const CONFIG_READS = new Set(['--get', '--get-all', '--get-regexp', '--list', '-l']);

/** Stops keeping named-configuration reads before a command that may write configuration. */
function stopKeepingOnWrite(args: readonly string[]): void {
  if (namedMemo === undefined) return;
  let i = 0;
  while (args[i] === '-c') i += 2;
  const command = args[i] ?? '';
  const reads =
    READS_ONLY.has(command) ||
    (command === 'config' && args.slice(i + 1).some((a) => CONFIG_READS.has(a))) ||
    (command === 'worktree' && args[i + 1] === 'list');
  if (!reads) namedMemo = undefined;
}

/** The configuration naming filter drivers and remotes, read just before a command that can run them. */
function namedConfig(cwd: string, options: GitSyncOptions, pattern = NAMED_SECTIONS_PATTERN): string {
  // Kept only for the process's own environment: another one can name other configuration files.
  const own = options.env === undefined || options.env === process.env;
  const key = namedMemo !== undefined && own ? `${cwd}\0${pattern}` : undefined;
  const kept = key === undefined ? undefined : namedMemo?.get(key);
  if (kept !== undefined) return kept;
  let out: string;
  try {
    out = gitSync(cwd, ['config', '--null', '--get-regexp', pattern], { env: options.env });
  } catch (e) {
    if (!(e instanceof GitCommandError && e.status === 1)) throw e;
    out = ''; // no such key
  }
  if (key !== undefined) namedMemo?.set(key, out);
  return out;
}

/**
 * The configuration naming filter drivers and remotes, read at most once (on first use), for the git commands of
 * one operation that run back to back in `cwd` (a snapshot's add, flag updates and write-tree): one process
 * instead of one per command. A configuration changed between two of those commands is the same race as one
 * changed between a read and its command. The same read brings the few keys that decide whether the snapshot's
 * commit and ref can be written without git (./loose.ts): no process of its own. With `places` (where the
 * repository's configuration is, asked only when the read is), it is read in-process where that is known to give
 * git's answer (./config-read.ts): no process at all.
 */
export function namedConfigOnce(
  cwd: string,
  env?: NodeJS.ProcessEnv,
  places?: () => ConfigPlaces | undefined,
): () => string {
  let read: string | undefined;
  const pattern = `${NAMED_SECTIONS_PATTERN}|${LOOSE_CONFIG_PATTERN}`;
  return () => (read ??= inProcess(places?.(), env, pattern) ?? namedConfig(cwd, { env }, pattern));
}

/**
 * The same read without git, when the caller knows where the repository's configuration is and it can be read as
 * git reads it (./config-read.ts says when); undefined: git is asked.
 */
function inProcess(
  places: ConfigPlaces | undefined,
  env: NodeJS.ProcessEnv | undefined,
  pattern: string,
): string | undefined {
  return places === undefined ? undefined : readConfigInProcess(places, env ?? process.env, pattern);
}

/** Runs `git <args>` in `cwd`; returns stdout (untrimmed). Throws GitCommandError on a non-zero exit. */
export function gitSync(cwd: string, args: string[], options: GitSyncOptions = {}): string {
  return gitSyncBytes(cwd, args, options).toString('utf8');
}

/**
 * `gitSync` with stdout as bytes: for a listing of paths to give back to git (a path is any bytes but NUL; one that
 * is not UTF-8, read as text, comes back as U+FFFD, names nothing, and git refuses it or takes another file for it).
 */
export function gitSyncBytes(cwd: string, args: string[], options: GitSyncOptions = {}): Buffer {
  const { line, env } = prepare(cwd, args, options);
  const timeout = options.timeoutMs ?? gitTimeoutMs(options.env);
  const r = childProcess().spawnSync('git', line.argv, {
    cwd,
    env,
    input: options.input ?? '',
    maxBuffer: 1 << 28,
    windowsHide: true,
    timeout,
    killSignal: 'SIGKILL',
  });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') throw timedOut(args, timeout);
  if (r.error) throw new GitCommandError(args, null, r.error.message);
  const stderr = r.stderr.toString('utf8');
  if (r.status !== 0) throw new GitCommandError(args, r.status, stderr);
  if (stderr !== '') options.onStderr?.(stderr);
  return r.stdout;
}

/** The most of a git process's stderr an asynchronous run keeps. */
const MAX_STDERR_BYTES = 1 << 20;

export interface GitRunOptions extends GitSyncOptions {
  /** Bytes for stdin (instead of `input`). */
  stdin?: Buffer;
}

/**
 * Runs `git <args>` asynchronously, under the same policy; resolves to stdout as
 * bytes (for blob contents and large listings). Rejects with GitCommandError.
 */
export async function gitRun(cwd: string, args: string[], options: GitRunOptions = {}): Promise<Buffer> {
  const out: Buffer[] = [];
  await gitStream(cwd, args, (c) => out.push(c), options);
  return Buffer.concat(out);
}

/**
 * `gitRun` for an output that grows with its input (a `cat-file --batch` of many objects): stdout is handed to
 * `onChunk` as it comes, never gathered, and while `onChunk` runs git waits on the full pipe, so memory follows the
 * chunk, not the output. An `onChunk` that throws stops git (SIGKILL) and the promise rejects with its error.
 */
export function gitStream(
  cwd: string,
  args: string[],
  onChunk: (chunk: Buffer) => void,
  options: GitRunOptions = {},
): Promise<void> {
  let prepared: { line: GitCommandLine; env: NodeJS.ProcessEnv };
  try {
    prepared = prepare(cwd, args, options);
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
  const { line, env } = prepared;
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn('git', line.argv, {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const timeout = options.timeoutMs ?? gitTimeoutMs(options.env);
    let stopped = false;
    let failed: { error: unknown } | undefined;
    const timer = setTimeout(() => {
      stopped = true;
      child.kill('SIGKILL');
    }, timeout);
    child.stdout.on('data', (c: Buffer) => {
      if (failed !== undefined) return;
      try {
        onChunk(c);
      } catch (e) {
        failed = { error: e };
        child.kill('SIGKILL');
      }
    });
    // Kept to 1 MiB: a failure's message, and what a successful command warned of (`onStderr`), such as the
    // directories a snapshot's add could not open.
    const errParts: Buffer[] = [];
    let errBytes = 0;
    child.stderr.on('data', (c: Buffer) => {
      if (errBytes >= MAX_STDERR_BYTES) return;
      errParts.push(c);
      errBytes += c.length;
    });
    child.stdin.on('error', () => {
      /* git exited before reading all input: its exit status says why */
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new GitCommandError(args, null, e.message));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const err = Buffer.concat(errParts).subarray(0, MAX_STDERR_BYTES).toString('utf8');
      if (failed !== undefined) reject(failed.error instanceof Error ? failed.error : new Error(String(failed.error)));
      else if (stopped) reject(timedOut(args, timeout));
      else if (code === 0) {
        try {
          if (err !== '') options.onStderr?.(err);
          resolve();
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      } else reject(new GitCommandError(args, code, err));
    });
    child.stdin.end(options.stdin ?? options.input ?? '');
  });
}

/**
 * `gitRun` for a command whose stdout is not wanted (a snapshot's add): no pipe at all. stdin is /dev/null, stdout
 * discarded, stderr a scratch file in `scratchDir` (../util/scratch-file.ts). Node makes a socket for each piped
 * stream, with a module's worth of setup the first time: ~2 ms of the hook's thread, measured, on every tool call.
 */
export function gitRunQuiet(
  cwd: string,
  args: string[],
  scratchDir: string,
  options: GitSyncOptions = {},
): Promise<void> {
  let prepared: { line: GitCommandLine; env: NodeJS.ProcessEnv };
  let errFd: number;
  try {
    prepared = prepare(cwd, args, options);
    errFd = scratchFile(scratchDir);
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
  const { line, env } = prepared;
  return new Promise<void>((resolve, reject) => {
    // Settled once, the scratch file closed once.
    const done = settleOnce(errFd, reject);
    const timeout = options.timeoutMs ?? gitTimeoutMs(options.env);
    let stopped = false;
    let child: QuietChild;
    try {
      child = spawnQuiet('git', line.argv, { cwd, env, stderrFd: errFd }, (end) => {
        clearTimeout(timer);
        if ('error' in end) {
          done(() => reject(new GitCommandError(args, null, end.error.message)));
          return;
        }
        done(() => {
          // Past the first MiB, git's errors only (a refusal after a MiB of warnings is read, as gitSync reads it all).
          const err = readScratch(errFd, MAX_STDERR_BYTES, (l) => !/^(warning|hint): /.test(l));
          if (stopped) reject(timedOut(args, timeout));
          else if (end.code !== 0) reject(new GitCommandError(args, end.code, err));
          else {
            if (err !== '') options.onStderr?.(err);
            resolve();
          }
        });
      });
    } catch (e) {
      done(() => reject(e instanceof Error ? e : new Error(String(e))));
      return;
    }
    // onEnd is never called before spawnQuiet returns: the timer is set by then.
    const timer = setTimeout(() => {
      stopped = true;
      child.kill();
    }, timeout);
  });
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

/** `gitRun` as text (porcelain: worktrees, branches, status). */
export async function gitText(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return (await gitRun(cwd, args, { env })).toString('utf8');
}
