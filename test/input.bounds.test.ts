import { peakRss, type PeakRun } from './helpers/peak-rss';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { opencodeProviders } from '../src/agents/opencode/config';
import { loadAuditKey } from '../src/audit/key';
import { MAX_LINE_BYTES } from '../src/canonical/limits';
import { InputError } from '../src/errors';
import {
  DEFAULT_MAX_READ_BYTES,
  readPieces,
  readRegularFile,
  readUnder,
  regularFileExists,
} from '../src/util/nofollow';
import { cli } from './helpers/cli';
import { identifiedProject } from './helpers/record';
import { cliPath } from './helpers/paths';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * Nothing stepchain reads whole is held without a bound: a file on the command line, its `-` form on standard input,
 * and a file a project holds. Over the bound it is refused in one line naming it (exit 2 from the CLI), nothing of
 * it is used, and memory stays bounded; a file of any size never ends in an internal error.
 */
const tmp = tempDir('stepchain-input-bounds-');
const GIB3 = 3 * 1024 * 1024 * 1024;
const MIB = 1024 * 1024;
/** A sparse 3 GB file: the size readSync was once asked for in one call (past 2^31 - 1: an internal error). */
const big = path.join(tmp, 'big.bin');
writeFileSync(big, '');
truncateSync(big, GIB3);

/** A shell command run in `cwd` under Python, which reports the peak RSS (MB) of the processes it waited for. */
function run(script: string, cwd: string): PeakRun {
  return peakRss(['sh', '-c', script], {
    cwd,
    env: { ...process.env, STEPCHAIN_AUDIT: 'off', NODE: process.execPath, CLI: cliPath, BIG: big },
  });
}

/**
 * The projects the tests start from, each made once by the CLI and copied for every test (a test may change its
 * copy): a git init and commit and one or two CLI processes a test saved. The copy's checkpoints name the first
 * project's files, so they are not taken for its own (the one-row journals are verified whole).
 */
const templates = new Map<string, string>();
function copyOf(name: string, make: (root: string) => void): string {
  let template = templates.get(name);
  if (template === undefined) {
    template = identifiedProject(path.join(tmp, `template-${name}`));
    make(template);
    templates.set(name, template);
  }
  const root = freshDir(tmp, 'repo');
  cpSync(template, root, { recursive: true, verbatimSymlinks: true });
  return root;
}

const appendFirst = (root: string): void => {
  const r = cli(['append', 'a1', '--prompt', 'first', '--no-snapshot'], { cwd: root });
  expect(r.code).toBe(0);
};

/** A project with one step appended to a1 (so "nothing appended" is a journal left as it was). */
function project(withRun = false): { root: string; journal: string; before: Buffer } {
  const root = withRun
    ? copyOf('run', (r) => {
        appendFirst(r);
        expect(cli(['run', 'record', 'r0', '--event', 'note'], { cwd: r }).code).toBe(0);
      })
    : copyOf('plain', appendFirst);
  const journal = path.join(root, '.sdd', 'runtime', 'journal', 'a1', '000000.jsonl');
  return { root, journal, before: readFileSync(journal) };
}

/**
 * The run journal of a `project(true)` (`.sdd/runs/r0/journal.jsonl`, one event), checked to be there: "no run
 * journal written" is then its bytes and the runs beside it unchanged, where a wrong path could not pass (one under
 * `.sdd/runtime/`, where run journals never are, always did).
 */
function runJournal(root: string): { file: string; before: Buffer; unchanged: () => void } {
  const runs = path.join(root, '.sdd', 'runs');
  const file = path.join(runs, 'r0', 'journal.jsonl');
  expect(existsSync(file)).toBe(true);
  const before = readFileSync(file);
  return {
    file,
    before,
    unchanged: () => {
      expect(readdirSync(runs)).toEqual(['r0']);
      expect(readFileSync(file).equals(before)).toBe(true);
    },
  };
}

/** Each CLI input read whole: its option line (`$IN` is where the file or `-` goes), its word, its bound. */
const INPUTS: { name: string; argv: string; what: string; bound: number; rss: number }[] = [
  { name: 'append --input', argv: 'append a1 --no-snapshot --input $IN', what: 'input', bound: 128 * MIB, rss: 400 },
  {
    name: 'append --prompt-file',
    argv: 'append a1 --no-snapshot --prompt-file $IN',
    what: 'prompt file',
    bound: 64 * MIB,
    rss: 300,
  },
  { name: 'append --blob', argv: 'append a1 --no-snapshot --blob $IN', what: 'blob', bound: 128 * MIB, rss: 400 },
  {
    name: 'check --expected-heads',
    argv: 'check --expected-heads $IN',
    what: 'expected heads',
    bound: 16 * MIB,
    rss: 200,
  },
];

/** What a bound reads as in a TooLongError: `128 MiB`, `536,870,888 bytes`. */
const boundText = (n: number): string => (n % MIB === 0 ? `${n / MIB} MiB` : `${n.toLocaleString('en-US')} bytes`);

describe.each(INPUTS)('$name', ({ argv, what, bound, rss }) => {
  test('a sparse 3 GB file is refused in one line naming it, exit 2, nothing appended, memory bounded', () => {
    const p = project(true);
    const runs = runJournal(p.root);
    const r = run(`"$NODE" "$CLI" ${argv.replace('$IN', '"$BIG"')}`, p.root);
    expect(r.err).toBe(`stepchain: ${big}: cannot read ${what}: holds ${GIB3} bytes, more than the ${bound} allowed\n`);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(readFileSync(p.journal).equals(p.before)).toBe(true);
    runs.unchanged();
    // Nothing of it read: Node itself.
    expect(r.mb).toBeLessThan(150);
  });

  test('`-` fed without end (`yes |`) is refused at the same bound, exit 2, nothing appended, memory bounded', () => {
    const p = project(true);
    const runs = runJournal(p.root);
    const r = run(`yes | "$NODE" "$CLI" ${argv.replace('$IN', '-')}`, p.root);
    expect(r.err).toBe(`stepchain: -: cannot read ${what}: more than ${boundText(bound)}: not read further\n`);
    expect(r.code).toBe(2);
    expect(readFileSync(p.journal).equals(p.before)).toBe(true);
    runs.unchanged();
    // The bound held (once, and for a moment once more), and Node itself: never the stream, which has no end.
    expect(r.mb).toBeLessThan(rss);
  });
});

describe('run ingest --claude-stream: read a line at a time, no bound on the whole, one on a line', () => {
  test('a sparse 3 GB file (one line) is refused at that line past the bound, exit 2, nothing written, memory the bound', () => {
    const p = project();
    const r = run(`"$NODE" "$CLI" run ingest r1 --agent a1 --claude-stream "$BIG"`, p.root);
    expect(r.err).toBe(
      `stepchain: ${big}:1: not a stream-json event: line of more than ${boundText(MAX_LINE_BYTES)}: not read further\n`,
    );
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(existsSync(path.join(p.root, '.sdd', 'runs'))).toBe(false);
    // The line up to the bound (once), and Node itself: never the file.
    expect(r.mb).toBeLessThan(900);
  });

  test('`-` fed without end (`yes |`) is refused at its first line, exit 2, nothing written, nothing held', () => {
    const p = project();
    const r = run(`yes | "$NODE" "$CLI" run ingest r1 --agent a1 --claude-stream -`, p.root);
    expect(r.err).toBe('stepchain: <stdin>:1: not a stream-json event: expecting value at column 1\n');
    expect(r.code).toBe(2);
    expect(existsSync(path.join(p.root, '.sdd', 'runs'))).toBe(false);
    expect(r.mb).toBeLessThan(150);
  });
});

test('a file under the bound is still read whole, as a file and through `-` (1 MiB + 1 each)', () => {
  const p = project();
  const fromFile = Buffer.alloc(MIB + 1, 'file ');
  const fromStdin = Buffer.alloc(MIB + 1, 'stdin ');
  const file = path.join(tmp, 'blob.bin');
  writeFileSync(file, fromFile);
  const a = cli(['append', 'a1', '--no-snapshot', '--json', '--blob', file, '--input', '-'], {
    cwd: p.root,
    input: fromStdin,
  });
  expect(a.stderr).toBe('');
  expect(a.code).toBe(0);
  const row = JSON.parse(a.stdout) as { blob_refs: string[]; input_hash: string };
  const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
  expect(row.blob_refs).toContain(sha(fromFile));
  expect(row.input_hash).toBe(sha(fromStdin));
});

test('a 700 MB state file in .sdd/ (a hook reads it whole) is refused naming it, not held', () => {
  const p = project();
  const dir = path.join(p.root, '.sdd', 'runtime', 'claude');
  mkdirSync(dir, { recursive: true });
  const state = path.join(dir, 's1.json');
  writeFileSync(state, '');
  truncateSync(state, 700 * MIB);
  const payload = JSON.stringify({
    session_id: 's1',
    cwd: p.root,
    hook_event_name: 'PostToolUse',
    transcript_path: path.join(tmp, 'none', 's1.jsonl'),
    tool_name: 'Bash',
    tool_input: { command: 'x' },
    tool_response: { stdout: 'x' },
    tool_use_id: 't1',
  });
  writeFileSync(path.join(tmp, 'payload.json'), payload);
  const r = run(`"$NODE" "$CLI" hook claude --no-snapshot < ${JSON.stringify(path.join(tmp, 'payload.json'))}`, p.root);
  // The state is a cache: ignored with a warning naming it, and the step recorded without it.
  expect(r.err).toBe(
    `stepchain: hook claude: warning: ${state}: cannot read: it holds ${700 * MIB} bytes, more than the ${MIB} allowed; ignored\n`,
  );
  expect(r.code).toBe(0);
  expect(r.mb).toBeLessThan(150);
});

describe('readRegularFile', () => {
  test('a file over the default bound (MAX_LINE_BYTES) is one InputError naming it, its size and the bound', () => {
    expect(DEFAULT_MAX_READ_BYTES).toBe(MAX_LINE_BYTES);
    expect(() => readRegularFile(big)).toThrow(
      new InputError(`${big}: cannot read: it holds ${GIB3} bytes, more than the ${MAX_LINE_BYTES} allowed`),
    );
    // readUnder's default bound is the same (a caller that names none).
    expect(readUnder(tmp, 'big.bin')).toEqual({ kind: 'too_large', size: GIB3 });
  });

  test('readPieces returns exactly the bytes, whatever the piece size (property)', () => {
    const file = path.join(tmp, 'pieces');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 700 }), (size, piece) => {
        const bytes = Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + size) % 256));
        writeFileSync(file, bytes);
        const fd = openSync(file, 'r');
        try {
          expect(readPieces(fd, size, piece).equals(bytes)).toBe(true);
          // A file that shrank since its size was taken: what is there, no more.
          expect(readPieces(fd, size + piece, piece).equals(bytes)).toBe(true);
        } finally {
          closeSync(fd);
        }
      }),
      { numRuns: 80 },
    );
  });
});

describe('regularFileExists', () => {
  test('a regular file of any size is there (nothing read); missing is not; a link or a FIFO is refused by name', () => {
    expect(regularFileExists(big)).toBe(true);
    expect(regularFileExists(path.join(tmp, 'missing'))).toBe(false);
    expect(regularFileExists(path.join(tmp, 'missing', 'below'))).toBe(false);
    const link = path.join(tmp, 'link');
    symlinkSync(big, link);
    expect(() => regularFileExists(link)).toThrow(
      new InputError(`${link}: cannot read: it is a symbolic link; refusing to follow it`),
    );
    const fifo = path.join(tmp, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => regularFileExists(fifo)).toThrow(/: cannot read: it is a FIFO, not a regular file$/);
  });
});

describe('files read whole outside .sdd/', () => {
  test("OpenCode's project configuration: a FIFO is refused (never waited on), a huge file refused unread", () => {
    const root = identifiedProject(freshDir(tmp, 'oc'));
    const home = freshDir(tmp, 'home');
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    const fifo = path.join(root, 'opencode.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => opencodeProviders(root, env)).toThrow(
      new InputError(`${fifo}: cannot read: it is a FIFO, not a regular file`),
    );
    rmSync(fifo);
    const huge = path.join(root, 'opencode.jsonc');
    writeFileSync(huge, '');
    truncateSync(huge, 700 * MIB);
    expect(() => opencodeProviders(root, env)).toThrow(
      new InputError(`${huge}: cannot read: it holds ${700 * MIB} bytes, more than the ${64 * MIB} allowed`),
    );
  });

  test('an audit key larger than any key is refused naming it, not read', () => {
    const dir = freshDir(tmp, 'keys');
    chmodSync(dir, 0o700);
    const key = path.join(dir, 'audit.key');
    writeFileSync(key, 'a'.repeat(100_000), { mode: 0o600 });
    expect(() => loadAuditKey(key)).toThrow(
      new InputError(`${key}: audit key holds 100000 bytes, more than the 65536 allowed`),
    );
  });
});

test("a 3 GB git index costs the step its snapshot, with a warning naming it (not Node's nameless 2 GiB error)", () => {
  const p = project();
  const index = path.join(p.root, '.git', 'index');
  truncateSync(index, GIB3);
  const r = run('"$NODE" "$CLI" append a1 --prompt x', p.root);
  expect(r.err).toBe(
    `stepchain: warning: step 1 recorded, but its worktree snapshot failed: ${index}: cannot read: it holds ${GIB3} bytes, more than the ${MAX_LINE_BYTES} allowed\n`,
  );
  expect(r.code).toBe(0);
  expect(r.mb).toBeLessThan(150);
});
