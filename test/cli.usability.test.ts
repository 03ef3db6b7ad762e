import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commands } from '../src/cli/commands';
import { runCaptured } from '../src/cli/in-process';
import { runCli } from '../src/cli/main';
import { closest, editDistance } from '../src/cli/suggest';
import { Journal, journalDir } from '../src/journal';
import { cli, expectNoStack, type CliResult } from './helpers/cli';
import { git, initRepo } from './helpers/git';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/** `stepchain <args>` at `width` columns, run in this process: its stdout. */
async function helpInProcess(args: string[], width: number): Promise<string> {
  const { code, stdout: out } = await runCaptured(runCli, args, { env: {}, cwd: process.cwd(), columns: width });
  expect([args, code]).toEqual([args, 0]);
  return out;
}

/**
 * The CLI as a user meets it, through the built dist/cli.js (run `npm run build`
 * first): the project found from a subdirectory of a real git repository, help,
 * typos, --json on errors, closed pipes, refused overwrites, and the "nothing
 * passes vacuously" rules. One append of the first walk from a subdirectory, the commands given a receipt's relative
 * path, --version, the closed pipes and the command lines that are not UTF-8 run the built CLI as processes
 * (`run`); every other command runs through runCli in this process (`inProcess`, the code the bundle runs): a process
 * each was most of this file's time.
 */

const tmp = tempDir('stepchain-usability-');
let n = 0;
const fresh = (name: string): string => {
  const d = path.join(tmp, `${name}${n++}`);
  mkdirSync(d, { recursive: true });
  return d;
};
const run = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): CliResult => {
  const r = cli(args, { cwd, env });
  expectNoStack(r);
  return r;
};
const json = (r: CliResult): Record<string, unknown> => JSON.parse(r.stdout) as Record<string, unknown>;
/** `run` through runCli in this process, with the environment a process of `cli` would have. */
const inProcess = async (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> => {
  const r = await runCaptured(runCli, args, { cwd, env: { ...process.env, STEPCHAIN_AUDIT: 'off', ...env } });
  expectNoStack(r);
  return r;
};

describe('the project is found like git', () => {
  test('from proj/sub/deeper every command works on proj: one journal, one set of refs, nothing in sub/deeper', async () => {
    const proj = initRepo(fresh('proj'), { 'src/a.py': 'v0\n' });
    const deeper = path.join(proj, 'sub', 'deeper');
    mkdirSync(deeper, { recursive: true });
    expect((await inProcess(['append', 'coder', '--prompt', 'at the top'], proj)).code).toBe(0);
    writeFileSync(path.join(proj, 'src', 'a.py'), 'v1\n');
    // The walk up from a real process's own working directory (the bin's process.cwd() is sub/deeper); the other
    // commands of the walk run in this process, where only the cwd given to runCli says where they are.
    const a = run(['append', 'coder', '--prompt', 'from below', '--json'], deeper);
    expect(a.code).toBe(0);
    expect((JSON.parse(a.stdout) as { seq: number }).seq).toBe(1);
    expect(existsSync(path.join(proj, 'sub', '.sdd'))).toBe(false);
    expect(existsSync(path.join(deeper, '.sdd'))).toBe(false);
    expect((await inProcess(['verify', 'coder'], deeper)).stdout).toMatch(
      /^OK .*proj\d+\/\.sdd\/runtime\/journal\/coder\/000000\.jsonl: 2 steps/,
    );
    expect((await inProcess(['replay', 'coder'], deeper)).stdout).toContain('from below');
    expect((await inProcess(['show', 'coder', '0'], deeper)).code).toBe(0);
    expect(
      (
        await inProcess(['audit', 'verify'], deeper, {
          STEPCHAIN_AUDIT: 'on',
          STEPCHAIN_AUDIT_KEY_PATH: path.join(tmp, `k${n}`),
        })
      ).code,
    ).toBe(1);
    const refs = git(proj, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/']).split('\n');
    expect(refs).toHaveLength(2);
    // A fork from the subdirectory restores the files of step 0 of the top journal.
    const f = await inProcess(['fork', 'coder', '--from-step', '0', '--json'], deeper);
    expect(f.code).toBe(0);
    const wt = json(f).fork_worktree as string;
    expect(wt).toBe(path.join(proj, '.sdd', 'worktrees', json(f).fork_session_id as string));
    expect(readFileSync(path.join(wt, 'src', 'a.py'), 'utf8')).toBe('v0\n');
    expect((await inProcess(['forks'], deeper)).stdout).toContain(json(f).fork_session_id as string);
  });

  test('the nearest .sdd/ wins below the git top; outside git the current directory; --root overrides', async () => {
    const proj = initRepo(fresh('mono'), { 'x.txt': 'x\n' });
    const pkg = path.join(proj, 'packages', 'app');
    mkdirSync(path.join(pkg, '.sdd'), { recursive: true });
    mkdirSync(path.join(pkg, 'src'), { recursive: true });
    expect((await inProcess(['append', 'coder', '--prompt', 'p'], path.join(pkg, 'src'))).code).toBe(0);
    expect(existsSync(path.join(pkg, '.sdd', 'runtime', 'journal', 'coder', '000000.jsonl'))).toBe(true);
    expect(existsSync(path.join(proj, '.sdd'))).toBe(false);
    const plain = fresh('plain');
    expect((await inProcess(['append', 'solo', '--prompt', 'p'], plain)).code).toBe(0);
    expect(existsSync(path.join(plain, '.sdd', 'runtime', 'journal', 'solo'))).toBe(true);
    const elsewhere = fresh('elsewhere');
    expect((await inProcess(['append', 'solo', '--prompt', 'p2', '--root', plain], elsewhere)).code).toBe(0);
    expect((await inProcess(['verify', 'solo', '--root', plain], elsewhere)).stdout).toMatch(/2 steps/);
  });

  test('--root inside another project is refused where it would create .sdd/ (exit 2, naming the project)', async () => {
    const proj = initRepo(fresh('nest'), { 'x.txt': 'x\n' });
    expect((await inProcess(['append', 'coder', '--prompt', 'p'], proj)).code).toBe(0);
    mkdirSync(path.join(proj, 'sub'));
    for (const args of [
      ['append', 'coder', '--root', 'sub', '--prompt', 'p'],
      ['run', 'record', 'r1', '--root', 'sub', '--event', 'x'],
    ]) {
      const r = await inProcess(args, proj);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`is inside the project ${proj}`);
    }
    expect(existsSync(path.join(proj, 'sub', '.sdd'))).toBe(false);
  });

  test('a missing --root is a usage error; a fork is found by its id from its parent project, and never restarted there', async () => {
    const proj = initRepo(fresh('forkid'), { 'a.txt': 'v0\n' });
    for (const args of [
      ['check', '--root', 'nosuchdir'],
      ['verify', 'coder', '--root', 'nosuchdir'],
      ['append', 'coder', '--root', 'nosuchdir', '--prompt', 'p'],
      ['check', '--root', 'a.txt'],
    ]) {
      const r = await inProcess([...args, '--json'], proj);
      expect([args, r.code]).toEqual([args, 2]);
      expect((json(r).error as { message: string }).message).toMatch(
        /^--root (nosuchdir: no such|a\.txt: not a) directory$/,
      );
    }
    expect(existsSync(path.join(proj, 'nosuchdir'))).toBe(false);
    expect((await inProcess(['append', 'coder', '--prompt', 'one'], proj)).code).toBe(0);
    expect((await inProcess(['append', 'coder', '--prompt', 'two'], proj)).code).toBe(0);
    const id = json(await inProcess(['fork', 'coder', '--from-step', '0', '--json'], proj)).fork_session_id as string;
    const wt = path.join(proj, '.sdd', 'worktrees', id);
    // Read by its id from the parent (as `diff agent-1 fork-...` in the help shows).
    const d = await inProcess(['diff', 'coder', id], proj);
    expect([d.code, d.stdout]).toEqual([1, expect.stringContaining('length_mismatch')]);
    expect((await inProcess(['verify', id], proj)).stdout).toContain(path.join(wt, '.sdd', 'runtime', 'journal', id));
    // An append by the fork's id from the parent would start a second, empty journal of that id: refused.
    const a = await inProcess(['append', id, '--prompt', 'wrong place'], proj);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(
      `is a fork of this project, whose journal is ${path.join(wt, '.sdd', 'runtime', 'journal', id, '000000.jsonl')}: record its steps there (--root ${wt}`,
    );
    expect(existsSync(path.join(proj, '.sdd', 'runtime', 'journal', id))).toBe(false);
    expect((await inProcess(['append', id, '--prompt', 'right place', '--root', wt], proj)).code).toBe(0);
  });

  test('outside git, append says once (on the first step) that no snapshot is taken', async () => {
    const plain = fresh('nogit');
    const first = await inProcess(['append', 'a', '--prompt', 'p'], plain);
    expect(first.stderr).toMatch(/note: .* is not in a git work tree: steps are recorded without worktree snapshots/);
    expect((await inProcess(['append', 'a', '--prompt', 'q'], plain)).stderr).toBe('');
  });
});

describe('a receipt where a journal is asked for', () => {
  test('named by path, it is refused as an archive naming `receipt verify` (exit 2), never read as failing rows', async () => {
    const proj = fresh('receipt-as-journal');
    for (let i = 0; i < 3; i++) await inProcess(['append', 'a', '--prompt', `p${i}`], proj);
    expect((await inProcess(['export', 'a', '-o', 'a.tar'], proj)).code).toBe(0);
    expect((await inProcess(['export', 'a', '-o', 'a.tgz'], proj)).code).toBe(0);
    // It said `FAIL ./a.tar: 7 faults in 4 rows`, exit 1: a receipt that holds reported as a broken chain. The tar
    // by its relative path, in processes: a path a command line names is resolved from the process's working
    // directory, which runCli in this process does not have (its cwd is the test's). The gzip by its absolute path
    // in this process: which archives are refused is the commands' logic (four processes fewer, ~0.3 s of CPU).
    const each: [string, string, (args: string[]) => Promise<CliResult>][] = [
      ['./a.tar', '.', async (args) => run(args, proj)],
      [path.join(proj, 'a.tgz'), proj, (args) => inProcess(args, proj)],
    ];
    for (const [f, at, by] of each) {
      for (const args of [
        ['verify', f],
        ['export', f, '-o', path.join(at, 'b.tar')],
        ['publish', f, '-o', path.join(at, 'c.tar'), '--opt-in'],
      ]) {
        const r = await by(args);
        expect([r.code, r.stdout]).toEqual([2, '']);
        expect(r.stderr).toBe(
          `stepchain: ${f}: is a tar or gzip archive (a receipt?), not a journal: \`stepchain receipt verify ${f}\` verifies a receipt; replay, show, diff and report read one\n`,
        );
      }
      expect((await by(['receipt', 'verify', f])).code).toBe(0);
    }
    // By name alone it is an agent id (looked for under the project: in this process); the message says how to name
    // the file.
    expect((await inProcess(['verify', 'a.tar'], proj)).stderr).toMatch(
      /no journal for agent "a\.tar" .*to name a file or directory write \.\/a\.tar/,
    );
    // A journal's own file replaced by an archive is still a journal that does not verify (exit 1), not an input error.
    const file = path.join(proj, '.sdd', 'runtime', 'journal', 'a', '000000.jsonl');
    writeFileSync(file, readFileSync(path.join(proj, 'a.tar')));
    const broken = await inProcess(['verify', 'a'], proj);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^FAIL /);
  });
});

describe('help', () => {
  const proj = fresh('help');
  test('each group has its own help; a group alone is a usage error, with --help it is not', async () => {
    for (const group of ['receipt', 'run', 'audit']) {
      const r = await inProcess([group], proj);
      expect(r.code).toBe(2);
      expect(r.stdout).toContain(`usage: stepchain ${group} <command>`);
      for (const c of commands.filter((x) => x.name[0] === group)) expect(r.stdout).toContain(c.name.join(' '));
      const h = await inProcess([group, '--help'], proj);
      expect(h.code).toBe(0);
      expect(h.stdout).toBe(r.stdout);
    }
  });

  test('a command help has every option described, an example and the exit codes; help <command> is the same', async () => {
    const h = await inProcess(['receipt', 'verify', '--help'], proj);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^usage: stepchain receipt verify RECEIPT/);
    for (const o of ['--expected-head HEX', '--public-key FILE', '--require-blobs', '--json', '-h, --help'])
      expect(h.stdout).toContain(o);
    expect(h.stdout).toContain('Examples:');
    expect(h.stdout).toMatch(/Exit codes:\n {2}0 {2}.+\n {2}1 {2}.+\n {2}2 {2}/);
    expect((await inProcess(['help', 'receipt', 'verify'], proj)).stdout).toBe(h.stdout);
    const v = await inProcess(['help', 'verify'], proj);
    expect(v.stdout).toMatch(/^usage: stepchain verify /);
    expect(v.stdout).not.toContain('stepchain append');
    expect((await inProcess(['fork', '--help'], proj)).stdout).toContain('fork rm');
  });

  test('wrapped at the terminal width (COLUMNS), words never cut; --version listed and working', async () => {
    for (const width of [60, 100]) {
      for (const args of [['help'], ['append', '--help'], ['check', '--help'], ['run']]) {
        const r = await inProcess(args, proj, { COLUMNS: String(width) });
        for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(width);
      }
    }
    // Examples wrap only between shell words, with ` \` continuations: pasted, each runs as registered. Every
    // command's help, at 60 columns.
    for (const c of commands) {
      const h = await helpInProcess([...c.name, '--help'], 60);
      const block = h.slice(h.indexOf('Examples:\n') + 10, h.indexOf('\n\nExit codes:'));
      const pasted = block
        .replace(/ \\\n +/g, ' ')
        .split('\n')
        .filter((l) => !l.trimStart().startsWith('#'))
        .map((l) => l.trim());
      expect([c.name, pasted]).toEqual([c.name, (c.examples ?? []).map((e) => e.run)]);
      for (const line of block.split('\n'))
        if (line.length > 60) expect(line.trim().replace(/ \\$/, '')).not.toMatch(/ /); // one word, never cut
    }
    const main = await inProcess(['help'], proj);
    expect(main.stdout).toContain('--version');
    // The bin itself prints its version.
    expect(run(['--version'], proj).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('did you mean: commands, group members and options, by edit distance', async () => {
    const r = await inProcess(['verfy', 'x'], proj);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('stepchain: unknown command "verfy"; did you mean "verify"? (see `stepchain help`)\n');
    expect((await inProcess(['run', 'frobnicate'], proj)).stderr).toContain('unknown command "run frobnicate"');
    expect((await inProcess(['run', 'verfy', 'x'], proj)).stderr).toContain('did you mean "run verify"?');
    expect((await inProcess(['receipt', 'verfiy'], proj)).stderr).toContain('did you mean "receipt verify"?');
    expect((await inProcess(['append', 'a', '--promt', 'x'], proj)).stderr).toContain(
      'append: unknown option --promt; did you mean --prompt?',
    );
    expect((await inProcess(['replay', 'a', '--jsn'], proj)).stderr).toContain('did you mean --json?');
    expect((await inProcess(['zzzzzz'], proj)).stderr).not.toContain('did you mean');
    // An option before any command is an option, not a command.
    expect((await inProcess(['-x'], proj)).stderr).toBe('stepchain: unknown option -x (see `stepchain help`)\n');
    expect((await inProcess(['--verison'], proj)).stderr).toContain(
      'unknown option --verison; did you mean --version?',
    );
    const early = await inProcess(['--root', proj, 'verify', 'a', '--json'], proj);
    expect(early.code).toBe(2);
    expect((json(early).error as { message: string }).message).toContain(
      'unknown option --root: options go after the command',
    );
    expect(editDistance('verfy', 'verify')).toBe(1);
    expect(editDistance('recieve', 'receive')).toBe(1); // a swap costs one
    expect(closest('--promt', ['--prompt', '--root', '--json'])).toEqual(['--prompt']);
  });

  test('every registered command has a description for each option, an example and its exit codes', () => {
    for (const c of commands) {
      const name = c.name.join(' ');
      expect([name, c.description ?? '']).not.toEqual([name, '']);
      expect([name, c.examples?.length ?? 0]).not.toEqual([name, 0]);
      expect([name, Object.keys(c.exitCodes ?? {})]).toEqual([name, expect.arrayContaining(['0'])]);
      for (const [o, spec] of Object.entries(c.options))
        expect([name, o, spec.description ?? '']).not.toEqual([name, o, '']);
      for (const e of c.examples ?? [])
        expect(e.run.startsWith(`stepchain ${name}`) || e.run.includes(`| stepchain ${name}`)).toBe(true);
    }
  });
});

describe('--json always', () => {
  const proj = fresh('json');
  test('any error with --json is one JSON document {ok: false, error} on stdout, the line on stderr', async () => {
    for (const [args, exit, type] of [
      [['verify', 'nobody', '--json'], 2, 'input_error'],
      [['verfy', '--json'], 2, 'input_error'],
      [['append', 'a', '--promt', 'x', '--json'], 2, 'input_error'],
      [['receipt', 'verify', 'missing.tar', '--json'], 2, 'input_error'],
      [['run', 'verify', 'nope', '--json'], 2, 'input_error'],
    ] as [string[], number, string][]) {
      const r = await inProcess(args, proj);
      expect([args, r.code]).toEqual([args, exit]);
      const doc = json(r) as { ok: boolean; error: { type: string; message: string; exit_code: number } };
      expect(doc).toMatchObject({ ok: false, error: { type, exit_code: exit } });
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(doc.error.message);
    }
  });

  test('snake_case keys and full hashes in every JSON document', async () => {
    const p = initRepo(fresh('keys'), { 'a.txt': 'a\n' });
    expect((await inProcess(['append', 'ag', '--prompt', 'one'], p)).code).toBe(0);
    expect((await inProcess(['append', 'ag', '--prompt', 'two'], p)).code).toBe(0);
    await inProcess(['keygen', '-o', 'k.pem', '--public', 'k.pub'], p);
    await inProcess(['export', 'ag', '-o', 'r.tar', '--sign-key', 'k.pem'], p);
    const tampered = path.join(p, 'tampered.jsonl');
    writeFileSync(
      tampered,
      readFileSync(path.join(journalDir(p, 'ag'), '000000.jsonl'), 'utf8').replace('"two"', '"TWO"'),
    );
    await inProcess(['run', 'record', 'r1', '--event', 'x'], p);
    const docs: [string[], string][] = [];
    for (const args of [
      ['verify', 'ag'],
      ['verify', tampered],
      ['replay', 'ag'],
      ['replay', tampered],
      ['show', 'ag', '1'],
      ['diff', 'ag', tampered],
      ['receipt', 'verify', 'r.tar'],
      ['receipt', 'verify', 'r.tar', '--public-key', 'k.pub'],
      ['fork', 'ag', '--from-step', '0'],
      ['forks'],
      ['run', 'verify', 'r1'],
      ['run', 'diff', 'r1', 'r1'],
      ['audit', 'query'],
      ['publish', 'ag', '-o', 'pub.tar', '--opt-in'],
      ['report', 'ag', '-o', 'rep.html'],
    ]) {
      const r = await inProcess([...args, '--json'], p);
      docs.push([args, r.stdout]);
    }
    const bad: string[] = [];
    const walk = (v: unknown, where: string): void => {
      if (Array.isArray(v)) v.forEach((x) => walk(x, where));
      else if (v !== null && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (/[A-Z]/.test(k)) bad.push(`${where}: ${k}`);
          walk(x, where);
        }
    };
    for (const [args, out] of docs) {
      walk(JSON.parse(out), args.join(' '));
      expect([args, out]).not.toEqual([args, expect.stringMatching(/[0-9a-f]{8}…/)]);
    }
    expect(bad).toEqual([]);
  });
});

/**
 * The journal both `| head` tests read (built once: each built its own, of 10,000 steps): 3,000 steps, whose replay
 * table is 354 KB and whose --json document 1.26 MB (measured), 5.4 and 19 times what a pipe holds (64 KiB). The
 * writer is still writing when the reader goes if there is more than a pipe and one read of head's (8 KiB) to write.
 */
let pipeRoot: string | undefined;
function pipeJournal(): string {
  if (pipeRoot === undefined) {
    pipeRoot = fresh('pipe');
    const j = Journal.open(journalDir(pipeRoot, 'big'), { durability: 'none' });
    j.appendMany(Array.from({ length: 3000 }, (_, i) => ({ prompt: `step ${i} ${'x'.repeat(60)}` })));
  }
  return pipeRoot;
}

describe('pipes closed early', () => {
  // Each entry of the bin (the whole CLI, the verify entry, the hook entry) makes its output streams only when it
  // writes: a reader gone before the first write still ends the process quietly, as git does.
  test.each([
    ['the whole CLI', ['replay', 'big'], 'stdout'],
    ['the verify entry', ['verify', 'big'], 'stdout'],
    ['the hook entry', ['hook', 'claude'], 'stderr'],
  ] as const)('%s: %j, its %s closed before the first write: status 141, no trace', async (_what, args, closed) => {
    const root = path.join(tmp, `closed-${args[0]}`);
    mkdirSync(root, { recursive: true });
    const j = Journal.open(journalDir(root, 'big'));
    j.appendMany(Array.from({ length: 100 }, (_, i) => ({ prompt: `step ${i}` })));
    const child = spawn(process.execPath, [cliPath, ...args, ...(args[0] === 'hook' ? [] : ['--root', root])], {
      cwd: root,
      env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // The reader goes before anything is written (the hook's payload is not one: it says so on stderr).
    (closed === 'stdout' ? child.stdout : child.stderr).destroy();
    let other = '';
    (closed === 'stdout' ? child.stderr : child.stdout).on('data', (d: Buffer) => (other += d.toString()));
    child.stdin.end('not a payload');
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    expect(status).toBe(141);
    expect(other).toBe('');
  });

  test('replay big | head -3 prints three lines and exits quietly as git does (status 141, no EPIPE trace)', () => {
    const root = pipeJournal();
    const r = spawnSync(
      'bash',
      [
        '-c',
        `set -o pipefail; "${process.execPath}" "${cliPath}" replay big --root "${root}" | head -3; echo "status $?"`,
      ],
      { encoding: 'utf8', env: { ...process.env, STEPCHAIN_AUDIT: 'off' } },
    );
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^big: 3000 steps/);
    expect(lines[3]).toBe('status 141');
    expect(r.stderr).toBe('');
  });

  test('replay big --json | head -c 100: the document stops where the reader went (status 141, nothing on stderr)', () => {
    const root = pipeJournal();
    const r = spawnSync(
      'bash',
      [
        '-c',
        `set -o pipefail; "${process.execPath}" "${cliPath}" replay big --json --root "${root}" | head -c 100; s=$?; echo; echo "status $s"`,
      ],
      { encoding: 'utf8', env: { ...process.env, STEPCHAIN_AUDIT: 'off' } },
    );
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^\{"ok":true,"agent_id":"big"/);
    expect(lines[0]).toHaveLength(100);
    expect(lines[1]).toBe('status 141');
    expect(r.stderr).toBe('');
  });
});

describe('overwrites', () => {
  test('export and publish refuse a FIFO at the output path, --force or not (it is never replaced)', async () => {
    const p = fresh('over-fifo');
    await inProcess(['append', 'ag', '--prompt', 'p'], p);
    const fifo = path.join(p, 'out.tar');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const args of [
      ['export', 'ag', '-o', 'out.tar'],
      ['publish', 'ag', '-o', 'out.tar', '--opt-in'],
    ]) {
      const r = await inProcess(args, p);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        'stepchain: ' + args[0] + ': out.tar: is a FIFO, not a regular file; refusing to replace it\n',
      );
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    }
    expect((await inProcess(['export', 'ag', '-o', 'out.tar', '--force'], p)).code).toBe(2);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  test('export and publish refuse an existing file unless --force; keygen names a missing directory', async () => {
    const p = fresh('over');
    await inProcess(['append', 'ag', '--prompt', 'p'], p);
    writeFileSync(path.join(p, 'precious.txt'), 'keep me');
    for (const args of [
      ['export', 'ag', '-o', 'precious.txt'],
      ['publish', 'ag', '-o', 'precious.txt', '--opt-in'],
    ]) {
      const r = await inProcess(args, p);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('precious.txt exists; refusing to replace it (give --force to replace it)');
      expect(readFileSync(path.join(p, 'precious.txt'), 'utf8')).toBe('keep me');
    }
    expect((await inProcess(['export', 'ag', '-o', 'precious.txt', '--force'], p)).code).toBe(0);
    expect((await inProcess(['receipt', 'verify', 'precious.txt'], p)).code).toBe(0);
    const k = await inProcess(['keygen', '-o', 'missingdir/k.pem'], p);
    expect(k.code).toBe(2);
    expect(k.stderr).toBe(
      `stepchain: ${path.join(p, 'missingdir', 'k.pem')}: cannot create: the directory ${path.join(p, 'missingdir')} does not exist\n`,
    );
  });
});

describe('nothing passes vacuously', () => {
  test('audit verify on a missing, an empty or an emptied audit directory is a fault (exit 1)', async () => {
    const p = fresh('audit');
    const env = { STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: path.join(fresh('key'), 'audit.key') };
    const missing = await inProcess(['audit', 'verify', '--json'], p, env);
    expect(missing.code).toBe(1);
    expect(json(missing)).toMatchObject({ ok: false, entries: 0, errors: [{ kind: 'no_audit_log' }] });
    await inProcess(['append', 'ag', '--prompt', 'p'], p, env);
    expect((await inProcess(['audit', 'verify'], p, env)).code).toBe(0);
    const dir = path.join(p, '.sdd', 'audit');
    for (const f of require('node:fs').readdirSync(dir) as string[]) rmSync(path.join(dir, f));
    const emptied = await inProcess(['audit', 'verify'], p, env);
    expect(emptied.code).toBe(1);
    expect(emptied.stdout).toMatch(/^FAIL /);
    expect(emptied.stderr).toContain(`${dir}: empty_audit_log:`);
  });
});

describe('diff of a tampered copy', () => {
  test('shows what was edited, with each side verified or not, exit 1', async () => {
    const p = fresh('tamper');
    for (const t of ['read the code', 'run the tests', 'fix it']) await inProcess(['append', 'ag', '--prompt', t], p);
    const original = path.join(journalDir(p, 'ag'), '000000.jsonl');
    const copy = path.join(p, 'copy.jsonl');
    writeFileSync(copy, readFileSync(original, 'utf8').replace('run the tests', 'skip the tests'));
    const r = await inProcess(['diff', original, copy], p);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^left {2}.*000000\.jsonl: chain verified, 3 steps, head [0-9a-f]{64}$/m);
    expect(r.stdout).toMatch(/^right .*copy\.jsonl: chain does NOT verify \(1 fault\)/m);
    expect(r.stdout).toContain(`${copy}:2: step_hash_mismatch: field tamper`);
    expect(r.stdout).toContain('diverged at step 1: prompt differs (line 2)');
    expect(r.stdout).toContain('    - run the tests\n    + skip the tests');
    expect(r.stdout).toMatch(
      /right .*: step_hash [0-9a-f]{64} \(stored: does not match the fields, step_hash_mismatch\)/,
    );
    const j = json(await inProcess(['diff', original, copy, '--json'], p)) as Record<string, unknown>;
    expect(j).toMatchObject({
      ok: false,
      diverged: true,
      seq: 1,
      fields_changed: ['prompt'],
      left_status: { verified: true },
      right_status: { verified: false, errors: [{ line: 2, kind: 'step_hash_mismatch' }] },
    });
  });
});

describe('run diff', () => {
  test('the same mutation on both sides with only flagged differing says so; a broken chain is a JSON error', async () => {
    const p = fresh('rundiff');
    for (const [r, env] of [
      ['a', {}],
      ['b', { STEPCHAIN_DETERMINISTIC_SEED: '7' }],
    ] as [string, NodeJS.ProcessEnv][]) {
      await inProcess(['run', 'record', r, '--event', 'llm_response', '--data', '{"text":"hi"}'], p, env);
      await inProcess(
        ['run', 'mutation', r, '--agent', 'coder', '--kind', 'compact_boundary', '--step-index', '1'],
        p,
        env,
      );
    }
    const d = await inProcess(['run', 'diff', 'a', 'b'], p);
    expect(d.code).toBe(1);
    expect(d.stdout).toContain(
      'row 1: provider-side context mutation compact_boundary in both runs at step 1, but only flagged (false in run A, true in run B) differs',
    );
    expect(json(await inProcess(['run', 'diff', 'a', 'b', '--json'], p))).toMatchObject({
      reason_code: 'provider_state_mutation',
      mutation_kind: 'compact_boundary',
      fields_changed: ['flagged'],
    });
    const file = path.join(p, '.sdd', 'runs', 'b', 'journal.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"hi"', '"HI"'));
    const broken = await inProcess(['run', 'diff', 'a', 'b', '--json'], p);
    expect(broken.code).toBe(1);
    expect(json(broken)).toMatchObject({
      ok: false,
      error: {
        type: 'integrity_error',
        faults: expect.arrayContaining([expect.objectContaining({ line: 1, kind: 'payload_hash_mismatch' })]),
      },
    });
  });
});

describe('small things', () => {
  test('check --base nosuchref names the ref; audit query columns line up', async () => {
    const p = initRepo(fresh('small'), { 'a.txt': 'a\n' });
    const c = await inProcess(['check', '--base', 'nosuchref'], p);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--base nosuchref: no such commit');
    expect(c.stderr).not.toContain('""');
    const env = { STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: path.join(fresh('key'), 'audit.key') };
    await inProcess(['append', 'a', '--prompt', 'p'], p, env);
    await inProcess(['append', 'a-much-longer-agent-name', '--prompt', 'p'], p, env);
    const q = (await inProcess(['audit', 'query'], p, env)).stdout.trimEnd().split('\n');
    expect(q).toHaveLength(4); // header, two events, count
    const col = (line: string): number => line.indexOf('journal/');
    expect(col(q[1]!)).toBeGreaterThan(0);
    expect(col(q[1]!)).toBe(col(q[2]!));
    expect(q[0]!.indexOf('resource')).toBe(col(q[1]!));
  });
});

describe('a command line that is not UTF-8', () => {
  /**
   * The bin run with arguments given as bytes (Node's spawn can only pass UTF-8: bash writes them, `\xNN` in a
   * `$'...'` word), from `cwd`.
   */
  const runBytes = (words: string[], cwd: string): CliResult => {
    const r = spawnSync(
      'bash',
      ['-c', `exec "$0" "$1" ${words.map((w) => `$'${w}'`).join(' ')}`, process.execPath, cliPath],
      {
        cwd,
        env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
        encoding: 'utf8',
      },
    );
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };

  test('an argument Node.js would read as another text is refused, naming it by its bytes, whichever entry runs', () => {
    const p = initRepo(fresh('bytes'), { 'a.txt': 'a\n' });
    const cases: [string[], number, string][] = [
      [
        ['receipt', 'verify', 'x\\xfe.receipt.tar'],
        2,
        "argument 3 of the command line is not UTF-8 ('x\\xfe.receipt.tar')",
      ],
      [['verify', 'a\\xff\\xfeb'], 2, "argument 2 of the command line is not UTF-8 ('a\\xff\\xfeb')"],
      [['append', 'a', '--prompt', 'caf\\xe9'], 2, "argument 4 of the command line is not UTF-8 ('caf\\xe9')"],
      [['init', '--root', '\\xc3'], 2, "argument 3 of the command line is not UTF-8 ('\\xc3')"],
      // An agent's hook fails with 1, never 2 (Claude Code reads 2 as "block the tool call").
      [['hook', 'claude', '\\xff'], 1, "argument 3 of the command line is not UTF-8 ('\\xff')"],
    ];
    for (const [words, code, message] of cases) {
      const r = runBytes(words, p);
      expect([r.code, r.stderr]).toEqual([
        code,
        `stepchain: ${message}: stepchain reads its command line as UTF-8 text and would take it for another name or text (Node.js reads such bytes as U+FFFD); give it in UTF-8\n`,
      ]);
      expect(r.stdout).toBe('');
    }
    // Nothing was written where the text would have been another.
    expect(existsSync(journalDir(p, 'a'))).toBe(false);
    // --json: the one error document.
    const j = runBytes(['verify', '--json', '\\xff'], p);
    expect(j.code).toBe(2);
    expect(json(j)).toMatchObject({ ok: false, error: { type: 'input_error' } });
    // A long one is cut, with its length; quotes and backslashes are written as bytes too.
    const long = runBytes(['verify', `${'\\x27\\x5c'.repeat(100)}\\xff`], p);
    expect(long.stderr).toContain(`'${'\\x27\\x5c'.repeat(60)}' (201 bytes)`);
  });

  test('U+FFFD given as UTF-8 is a character like any other: the ordinary answer', () => {
    const p = initRepo(fresh('fffd'), { 'a.txt': 'a\n' });
    const r = runBytes(['receipt', 'verify', 'x\\xef\\xbf\\xbd.receipt.tar'], p);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`stepchain: ${path.join(p, 'x\uFFFD.receipt.tar')}: no such receipt file\n`);
    const a = runBytes(['append', 'a', '--prompt', '\\xef\\xbf\\xbd'], p);
    expect([a.code, a.stderr]).toEqual([0, '']);
  });
});
