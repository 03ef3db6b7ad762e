/**
 * Issue 20 §6: no path under `.sdd/` is followed through a link, and no reader
 * blocks or runs unbounded. Every case that could block (a FIFO, a device, a
 * hook's transcript) runs the real CLI with a timeout, so a hang fails the test
 * (exit -1) instead of stalling the suite: each is answered at once with one
 * line naming the path, and nothing is written through a link (the directory a
 * link points at keeps its mode and its contents). Where nothing can block (a
 * link to a regular file, a directory, a changed blob, a writer meeting a
 * linked directory after the first, which runs as a real process), the CLI's
 * code runs in this process (`cliInProcess`), and nothing of it may reach the
 * process's own stdout or stderr (what a user would see is all in the result).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { expectNoStack, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { initRepo } from './helpers/git';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

jest.setTimeout(180_000);

const dir = tempDir('stepchain-nofollow-');
const ENV = {
  STEPCHAIN_AUDIT: 'off',
  STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(dir, 'checkpoint.key'),
};
let n = 0;

/** The CLI as a real process, killed after 20 s: a reader that blocks fails the test with code -1. */
function run(args: string[], cwd: string, input?: string, env: NodeJS.ProcessEnv = ENV): CliResult {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd,
    input: input ?? '',
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 20_000,
    killSignal: 'SIGKILL',
    maxBuffer: 1 << 26,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `run` in this process (`cliInProcess`, which fails when anything reaches the process's own streams): where nothing
 * can block (no FIFO, no device).
 */
async function runIn(args: string[], cwd: string, input?: string, env: NodeJS.ProcessEnv = ENV): Promise<CliResult> {
  return cliInProcess(args, { cwd, input: input ?? '', env });
}

/** A real process (`run`) where `p` could block a reader, in this process (`runIn`) where it cannot. */
function runAt(
  canBlock: boolean,
  args: string[],
  cwd: string,
  input?: string,
  env: NodeJS.ProcessEnv = ENV,
): Promise<CliResult> {
  return canBlock ? Promise.resolve(run(args, cwd, input, env)) : runIn(args, cwd, input, env);
}

function mkfifo(p: string): void {
  const r = spawnSync('mkfifo', [p]);
  if (r.status !== 0) throw new Error(`mkfifo ${p}: ${r.stderr.toString()}`);
}

/** A project with one step of agent a1 whose input is a blob; returns the root and the blob's path. */
function project(): { root: string; blob: string } {
  // Made once (git init and commit, a CLI append) and copied into each test: the CLI's start is most of it.
  template ??= recordProject(path.join(dir, 'template'));
  const root = path.join(dir, `p${n++}`);
  cpSync(template, root, { recursive: true, verbatimSymlinks: true });
  const digest = readVerifiedJournal(journalFile(root, 'a1')).entries[0]!.row.input_hash!;
  return { root, blob: path.join(root, '.sdd', 'runtime', 'cas', digest.slice(0, 2), digest) };
}
let template: string | undefined;

function recordProject(root: string): string {
  initRepo(root, { 'README.md': 'x\n' });
  const r = run(['append', 'a1', '--prompt', 'p', '--input', '-', '--no-snapshot'], root, 'the input');
  expect(r.code).toBe(0);
  return root;
}

/** A directory of the user's, and how it looks (mode and listing), to check it is left untouched. */
function userDir(): { dir: string; look: () => string } {
  const d = path.join(dir, `user-${n++}`);
  mkdirSync(d, { mode: 0o755 });
  writeFileSync(path.join(d, 'keep.txt'), 'mine\n');
  return {
    dir: d,
    look: () => `${(statSync(d).mode & 0o777).toString(8)} ${readdirSync(d).sort().join(',')}`,
  };
}

/** One line on stderr, naming `p`, no stack. */
function refusedNaming(r: CliResult, p: string, code = 2): void {
  expectNoStack(r);
  expect(r.code).toBe(code);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(p);
}

/** Replaces `p` (a directory under .sdd) by a link to a user's directory; returns how to check that directory. */
function linkInPlace(p: string): () => void {
  const u = userDir();
  const before = u.look();
  rmSync(p, { recursive: true, force: true });
  symlinkSync(u.dir, p);
  return () => expect(u.look()).toBe(before);
}

describe('no directory under .sdd/ is followed through a link by a writer', () => {
  const cases: [string, (root: string, blob: string) => string][] = [
    ['the journal directory', (root) => path.join(root, '.sdd', 'runtime', 'journal', 'a1')],
    ['the journals directory', (root) => path.join(root, '.sdd', 'runtime', 'journal')],
    ['the runtime directory', (root) => path.join(root, '.sdd', 'runtime')],
    ['the CAS', (root) => path.join(root, '.sdd', 'runtime', 'cas')],
    ['a CAS fan-out directory', (_root, blob) => path.dirname(blob)],
  ];
  test.each(cases)('append with %s a link: refused, naming it, the target untouched', async (what, where) => {
    const { root, blob } = project();
    const link = where(root, blob);
    const untouched = linkInPlace(link);
    const args = ['append', 'a1', '--prompt', 'q', '--input', '-', '--no-snapshot'];
    // The first case as a real process, the others in this process.
    const r = what === cases[0]![0] ? run(args, root, 'the input') : await runIn(args, root, 'the input');
    refusedNaming(r, link);
    expect(r.stderr).toContain('symbolic link');
    untouched();
  });

  test('.sdd itself a link: refused', async () => {
    const { root } = project();
    const link = path.join(root, '.sdd');
    const untouched = linkInPlace(link);
    refusedNaming(await runIn(['append', 'a1', '--prompt', 'q', '--no-snapshot'], root), link);
    untouched();
  });

  test('a run journal directory and the runs directory', async () => {
    const { root } = project();
    expect((await runIn(['run', 'record', 'r1', '--event', 'e'], root)).code).toBe(0);
    for (const link of [path.join(root, '.sdd', 'runs', 'r1'), path.join(root, '.sdd', 'runs')]) {
      const untouched = linkInPlace(link);
      refusedNaming(await runIn(['run', 'record', 'r1', '--event', 'e'], root), link);
      untouched();
    }
  });

  test('the audit directory', async () => {
    const { root } = project();
    const env = { ...ENV, STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: path.join(dir, `audit-${n++}.key`) };
    expect((await runIn(['append', 'a1', '--prompt', 'q', '--no-snapshot'], root, undefined, env)).code).toBe(0);
    const link = path.join(root, '.sdd', 'audit');
    const untouched = linkInPlace(link);
    const r = await runIn(['append', 'a1', '--prompt', 'q2', '--no-snapshot'], root, undefined, env);
    expectNoStack(r);
    expect(r.stderr).toContain(link);
    untouched();
  });

  test('the worktrees directory: fork refuses it, naming it, and git creates nothing there', async () => {
    const { root } = project();
    const link = path.join(root, '.sdd', 'worktrees');
    mkdirSync(link);
    const untouched = linkInPlace(link);
    const r = await runIn(['fork', 'a1', '--from-step', '0'], root);
    expectNoStack(r);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(link);
    untouched();
  });

  test('fork rm of a fork whose worktree was replaced by a link: refused, naming it, the target untouched', async () => {
    const { root } = project();
    const f = await runIn(['fork', 'a1', '--from-step', '0', '--json'], root);
    expect(f.code).toBe(0);
    const worktree = (JSON.parse(f.stdout) as { fork_worktree: string }).fork_worktree;
    const id = path.basename(worktree);
    const untouched = linkInPlace(worktree);
    const r = await runIn(['fork', 'rm', id, '--force'], root);
    expectNoStack(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(worktree);
    untouched();
  });

  test('the Claude runtime directory: the state is not saved there, the hook says so, the target untouched', () => {
    const { root } = project();
    const link = path.join(root, '.sdd', 'runtime', 'claude');
    mkdirSync(link);
    const untouched = linkInPlace(link);
    const sid = '11111111-2222-4333-8444-555555555555';
    const payload = JSON.stringify({
      session_id: sid,
      transcript_path: path.join(dir, 'none', `${sid}.jsonl`),
      cwd: root,
      hook_event_name: 'UserPromptSubmit',
      prompt_id: 'p1',
      prompt: 'secret prompt',
    });
    const r = run(['hook', 'claude'], root, payload);
    expectNoStack(r);
    expect(r.stderr).toContain(link);
    untouched();
  });
});

describe('no reader blocks, follows a link, or reads more than a regular file holds', () => {
  // Each kind, and whether a reader that opened it could block or never finish (then only a real process, with its
  // timeout, turns a hang into a failure).
  const kinds: [string, (p: string) => void, boolean][] = [
    ['a FIFO', (p) => mkfifo(p), true],
    ['a link to a file outside', (p) => symlinkSync(path.join(dir, 'outside.txt'), p), false],
    ['a link to /dev/zero', (p) => symlinkSync('/dev/zero', p), true],
    ['a directory', (p) => mkdirSync(p), false],
  ];
  beforeAll(() => writeFileSync(path.join(dir, 'outside.txt'), 'the input'));

  describe.each(kinds)('a CAS blob that is %s', (_what, plant, canBlock) => {
    let root: string;
    let blob: string;
    beforeAll(() => {
      ({ root, blob } = project());
      rmSync(blob);
      plant(blob);
    });
    test.each([
      ['show', ['show', 'a1', '0']],
      ['show --json', ['show', 'a1', '0', '--json']],
      ['export', ['export', 'a1', '-o', 'r.tar']],
    ])('%s: refused at once, naming the blob', async (_cmd, args) => {
      const r = await runAt(canBlock, args, root);
      refusedNaming(r, blob);
    });
    test('report: answered at once, the blob left out (never followed, never read)', async () => {
      const r = await runAt(canBlock, ['report', 'a1', '-o', 'r.html'], root);
      expectNoStack(r);
      // Refused as what it is (exit 1, naming it), never passed off as a blob missing from the store.
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('blob_refused');
      expect(r.stderr).toContain(path.relative(root, blob));
      // The chain verified: the summary says the blob failed, not the chain.
      expect(r.stdout).toMatch(/chain intact, but 1 blob fault/);
      expect(readFileSync(path.join(root, 'r.html'), 'utf8')).not.toContain(
        Buffer.from('the input').toString('base64'),
      );
    });
  });

  describe.each(kinds)('a journal file that is %s', (_what, plant, canBlock) => {
    test('verify, show, export: exit 2 at once, naming it', async () => {
      const { root } = project();
      const file = journalFile(root, 'a1');
      rmSync(file);
      plant(file);
      for (const args of [
        ['verify', 'a1'],
        ['verify', file],
        ['show', 'a1', '0'],
        ['export', 'a1', '-o', 'r.tar'],
      ])
        refusedNaming(await runAt(canBlock, args, root), file);
      refusedNaming(await runAt(canBlock, ['append', 'a1', '--prompt', 'q', '--no-snapshot'], root), file);
    });
  });

  test('a lock file that is a FIFO or a link: append answers at once, naming it', async () => {
    for (const [plant, canBlock] of [
      [(p: string) => mkfifo(p), true],
      [(p: string) => symlinkSync(path.join(dir, 'outside.txt'), p), false],
    ] as const) {
      const { root } = project();
      const lock = `${journalFile(root, 'a1')}.lock`;
      plant(lock);
      refusedNaming(await runAt(canBlock, ['append', 'a1', '--prompt', 'q', '--no-snapshot'], root), lock);
    }
    expect(readFileSync(path.join(dir, 'outside.txt'), 'utf8')).toBe('the input');
  });

  test('a checkpoint that is a FIFO: ignored and replaced, never waited on', () => {
    const { root } = project();
    const ckpt = `${journalFile(root, 'a1')}.checkpoint`;
    rmSync(ckpt, { force: true });
    mkfifo(ckpt);
    const r = run(['append', 'a1', '--prompt', 'q', '--no-snapshot'], root);
    expect(r.code).toBe(0);
    expect(run(['verify', 'a1'], root).code).toBe(0);
  });

  test('command-line files: a FIFO, a device or a directory is refused at once (naming it); - is stdin', async () => {
    const { root } = project();
    const fifo = path.join(dir, `fifo-${n++}`);
    mkfifo(fifo);
    for (const opt of ['--input', '--prompt-file', '--blob'])
      for (const p of [fifo, '/dev/zero', dir]) {
        const prompt = opt === '--prompt-file' ? [] : ['--prompt', 'q'];
        const r = await runAt(p !== dir, ['append', 'a1', ...prompt, opt, p, '--no-snapshot'], root);
        refusedNaming(r, p);
        expect(r.stderr).toContain('not a regular file');
      }
    const stdin = await runIn(['append', 'a1', '--prompt', 'q', '--input', '-', '--no-snapshot'], root, 'stdin bytes');
    expect(stdin.code).toBe(0);
    // A link the operator made to their own file is theirs to give.
    const link = path.join(dir, `link-${n++}`);
    symlinkSync(path.join(dir, 'outside.txt'), link);
    expect((await runIn(['append', 'a1', '--prompt', 'q', '--input', link, '--no-snapshot'], root)).code).toBe(0);
    // Both steps were recorded.
    const rows = readVerifiedJournal(journalFile(root, 'a1'))
      .entries.slice(1)
      .map((e) => e.row.input_hash);
    expect(rows).toHaveLength(2);
  });

  test.each(kinds)('hook claude with a transcript that is %s: the step is recorded, the problem said', (_w, plant) => {
    const { root } = project();
    const sid = '11111111-2222-4333-8444-555555555555';
    // Where Claude Code keeps a session's transcript (the hook reads no other: see src/claude/transcript.ts).
    const config = path.join(dir, `claude-config-${n}`);
    const tdir = path.join(config, 'projects', `transcripts-${n++}`);
    mkdirSync(tdir, { recursive: true });
    const transcript = path.join(tdir, `${sid}.jsonl`);
    plant(transcript);
    const payload = JSON.stringify({
      session_id: sid,
      transcript_path: transcript,
      cwd: root,
      hook_event_name: 'PostToolUse',
      prompt_id: 'p1',
      tool_name: 'Bash',
      tool_input: { command: 'echo hi' },
      tool_response: { stdout: 'hi', stderr: '' },
      tool_use_id: 'toolu_1',
    });
    const r = run(['hook', 'claude', '--no-snapshot'], root, payload, { ...ENV, CLAUDE_CONFIG_DIR: config });
    expectNoStack(r);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(transcript);
    const j = readVerifiedJournal(journalFile(root, `claude-${sid}`));
    expect(j.entries).toHaveLength(1);
    expect(j.entries[0]!.row.model).toBeNull();
  });
});

describe('a blob whose bytes changed since it was stored', () => {
  test('show reads no more than the file holds and says its bytes do not hash to its name', async () => {
    const { root, blob } = project();
    writeFileSync(blob, 'x'.repeat(1 << 20));
    const r = await runIn(['show', 'a1', '0'], root);
    expectNoStack(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`MISSING: ${blob} holds ${1 << 20} bytes that do not hash to its name`);
    expect(r.stdout).not.toContain('x'.repeat(100));
  });
});
