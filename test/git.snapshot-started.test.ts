import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { journalDir } from '../src/journal';
import { recordStep } from '../src/record';
import { programOnPath } from '../src/git/started-line';
import { git, writeFiles } from './helpers/git';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';
import { freshRepo } from './helpers/project';

// The snapshot's add started beside the append (src/git/exec.ts gitStart, src/git/started-line.ts), attacked from
// outside: what the shell that waits for git is given, the git it runs, a recording process killed while git runs,
// and a long process's started shells.

const tmp = tempDir('stepchain-started-');
let n = 0;

/** Variables a shell would act on (bash as /bin/sh: SHELLOPTS, an exported `command` function), and a marker. */
const HOSTILE_SHELL_ENV = {
  SHELLOPTS: 'errexit',
  'BASH_FUNC_command%%': '() { return 0; }',
  'BASH_FUNC_git%%': '() { return 0; }',
  ENV: '/nonexistent/env-file',
  IFS: '/',
  STEPCHAIN_TEST_MARKER: 'two\nlines',
};

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  STEPCHAIN_AUDIT: 'off',
  ...extra,
});

const snapDirs = (root: string): string[] =>
  readdirSync(path.join(root, '.git')).filter((name) => name.startsWith('stepchain-snap-'));

/** The tree an independent `git add -A --ignore-errors` makes of the work tree (an index of its own, .sdd/ out). */
function addedTree(root: string): string {
  const index = path.join(tmp, `independent-index-${n++}`);
  copyFileSync(path.join(root, '.git', 'index'), index);
  const e = { ...process.env, GIT_INDEX_FILE: index };
  try {
    execFileSync('git', ['add', '-A', '--ignore-errors', '--', '.', ':(exclude,glob)**/.sdd/**'], {
      cwd: root,
      env: e,
      stdio: 'ignore',
    });
  } catch {
    /* a nested repository with no commit: git says so, and adds the rest */
  }
  return execFileSync('git', ['write-tree'], { cwd: root, env: e, encoding: 'utf8' }).trim();
}

/** /proc/<pid>/environ as name -> value. */
function environOf(pid: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) out.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return out;
}

/** The processes whose parent is `ppid` and whose command line holds `text`. */
function children(ppid: number | undefined, text: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== undefined && parent !== ppid) continue;
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)) out.push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return out;
}

async function until<T>(what: string, get: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A repository whose add waits (a FIFO where git reads `d/.gitignore`), and `stepchain append` started in it: the
 * started shell and its git found while git waits. `release()` lets git read the FIFO (empty) and go on.
 */
async function appendWaiting(extra: NodeJS.ProcessEnv): Promise<{
  root: string;
  cli: ChildProcess;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  shell: number;
  gitPid: number;
  release: () => void;
}> {
  const root = freshRepo(tmp, { 'a.txt': 'a\n', 'd/b.txt': 'b\n' });
  execFileSync('mkfifo', [path.join(root, 'd', '.gitignore')]);
  const cli = spawn(process.execPath, [cliPath, 'append', 'ag', '--root', root, '--prompt', 'p', '--json'], {
    env: env({ STEPCHAIN_SNAPSHOT_TIMEOUT_MS: '60000', ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  cli.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  cli.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    cli.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  const marker = path.join(root, '.git', 'stepchain-snap-');
  const shell = await until('the started shell', () => children(cli.pid, marker)[0]);
  const gitPid = await until('its git', () => children(shell, 'add')[0]);
  const release = (): void => closeSync(openSync(path.join(root, 'd', '.gitignore'), 'w'));
  return { root, cli, exited, shell, gitPid, release };
}

describe('what the started shell is given (gitStart)', () => {
  test('the shell has an empty environment; its git the one gitSync gives it, the git on the PATH', async () => {
    const { root, exited, shell, gitPid, release } = await appendWaiting(HOSTILE_SHELL_ENV);
    expect([...environOf(shell).keys()]).toEqual([]);
    const gitEnv = environOf(gitPid);
    expect(gitEnv.get('STEPCHAIN_TEST_MARKER')).toBe('two\nlines');
    // What the user exported reaches git as it did through gitSync (git runs no shell for an add).
    expect(gitEnv.get('SHELLOPTS')).toBe('errexit');
    expect(gitEnv.get('BASH_FUNC_command%%')).toBe('() { return 0; }');
    expect(gitEnv.get('GIT_INDEX_FILE')).toMatch(/\/\.git\/stepchain-snap-[^/]+\/index$/);
    expect(gitEnv.get('GIT_TERMINAL_PROMPT')).toBe('0');
    expect(readFileSync(`/proc/${gitPid}/exe`)).toEqual(readFileSync(programOnPath('git', process.env.PATH, root)!));
    release();
    const r = await exited;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const refs = git(root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots']);
    expect(refs.split('\n')).toHaveLength(1);
    expect(git(root, ['ls-tree', '-r', '--name-only', refs]).split('\n')).toEqual(['.gitignore', 'a.txt', 'd/b.txt']);
    expect(snapDirs(root)).toEqual([]);
  });

  test('a shell environment that would stop or replace git changes nothing: the tree and the warning of git', () => {
    const root = freshRepo(tmp, { 'a.txt': 'a\n' });
    // git refuses the add for a nested repository with no commit (exit 128): errexit would end the shell there.
    mkdirSync(path.join(root, 'sub'));
    execFileSync('git', ['init', '-q'], { cwd: path.join(root, 'sub') });
    writeFiles(root, { 'sub/x.txt': 'x\n', 'b.txt': 'b\n' });
    const started = Date.now();
    const r = recordStep(journalDir(root, 'ag'), { prompt: 'p' }, { root, env: env(HOSTILE_SHELL_ENV) });
    expect(r.snapshot?.tree).toBe(addedTree(root));
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/holds none of the files of sub: a git repository of its own/);
    // Not the snapshot timeout (30 s) spent waiting for a status no shell wrote.
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  test('the user\u2019s PATH: a git it names first runs the started add too; none on it fails as gitSync did', () => {
    const root = freshRepo(tmp, { 'a.txt': 'a\n' });
    const bin = path.join(tmp, `bin${n++}`);
    mkdirSync(bin);
    const log = path.join(tmp, `git-calls${n++}`);
    const real = programOnPath('git', process.env.PATH, root)!;
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >>'${log}'\nexec '${real}' "$@"\n`);
    chmodSync(path.join(bin, 'git'), 0o755);
    const r = recordStep(
      journalDir(root, 'ag'),
      { prompt: 'p' },
      { root, env: env({ PATH: `${bin}:${process.env.PATH}` }) },
    );
    expect(r.warnings).toEqual([]);
    expect(r.snapshot?.tree).toBe(addedTree(root));
    expect(readFileSync(log, 'utf8')).toMatch(/ add -A --ignore-errors -- /);

    const empty = path.join(tmp, `nogit${n++}`);
    mkdirSync(empty);
    const none = recordStep(journalDir(root, 'ag'), { prompt: 'p' }, { root, env: env({ PATH: empty }) });
    expect(none.snapshot).toBeUndefined();
    expect(none.warnings).toEqual([expect.stringMatching(/snapshot failed: git .*ENOENT/)]);
    expect(snapDirs(root)).toEqual([]);
  });
});

describe('a recording process killed while its started add runs', () => {
  test('the user\u2019s index and locks are untouched; the add ends on its own, the next step removes its directory', async () => {
    const { root, cli, exited, gitPid, release } = await appendWaiting({});
    const index = readFileSync(path.join(root, '.git', 'index'));
    cli.kill('SIGKILL');
    await exited;
    // The journal's own lock is the journal's (a dead holder's lock is broken by the next writer, tested elsewhere).
    expect(existsSync(path.join(root, '.git', 'index.lock'))).toBe(false);
    expect(snapDirs(root)).toHaveLength(1);
    // The add still waits on the FIFO, in its own directory: let it go; it finishes and its shell writes its status.
    expect(existsSync(`/proc/${gitPid}`)).toBe(true);
    release();
    await until('the orphaned add to end', () =>
      children(undefined, snapDirs(root)[0] ?? '\0').length === 0 ? true : undefined,
    );
    unlinkSync(path.join(root, 'd', '.gitignore'));
    const r = recordStep(journalDir(root, 'ag'), { prompt: 'p' }, { root, env: env() });
    expect(r.warnings).toEqual([]);
    expect(snapDirs(root)).toEqual([]);
    expect(readFileSync(path.join(root, '.git', 'index'))).toEqual(index);
  });
});

describe('a long process (the proxy, `stepchain record`)', () => {
  test('its started shells are reaped between steps: none is left, and every step has its snapshot', async () => {
    const root = freshRepo(tmp, { 'a.txt': 'a\n' });
    const zombies = (): number =>
      readdirSync('/proc')
        .filter((d) => /^[0-9]+$/.test(d))
        .filter((pid) => {
          try {
            const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
            const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            return stat.includes(' (sh) ') && state === 'Z' && Number(ppid) === process.pid;
          } catch {
            return false;
          }
        }).length;
    // More steps than the unreaped limit (8), each after a turn of the event loop as a server's handler would be.
    for (let i = 0; i < 12; i++) {
      writeFiles(root, { [`f${i}.txt`]: `${i}\n` });
      const r = recordStep(journalDir(root, 'ag'), { prompt: 'p' }, { root, env: env() });
      expect(r.warnings).toEqual([]);
      expect(r.snapshot?.tree).toBe(addedTree(root));
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await until('every started shell reaped', () => (zombies() === 0 ? true : undefined));
  });
});
