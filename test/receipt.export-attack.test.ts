import { peakRss } from './helpers/peak-rss';
import { writeSyntheticJournalFast } from './helpers/journal-rows';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  linkSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { journalDir, journalFile } from '../src/journal';
import {
  commitExport,
  commitPublished,
  exportReceipt,
  publishReceipt,
  stageExport,
  stagePublished,
} from '../src/receipt';
import { recordStep } from '../src/record';
import { cliPath } from './helpers/paths';
import { cliChangedWhilePaused, cliPaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';

/**
 * `export` and `publish` from outside: outputs that reach the journal another way than its own path, what is left
 * beside an output when the export fails, is killed or races another, and a journal cut or replaced meanwhile.
 */
const root = tempDir('stepchain-export-attack-');
const ENV = { ...process.env, STEPCHAIN_AUDIT: 'off' };

function journalOf(id: string, n: number): string {
  for (let i = 0; i < n; i++)
    recordStep(
      journalDir(root, id),
      { prompt: `step ${i}`, model: 'm', blobs: [Buffer.from(`blob ${id} ${i}`)] },
      { root, env: ENV, snapshot: false },
    );
  return journalFile(root, id);
}

const cli = (args: string[], cwd = root) =>
  spawnSync(process.execPath, [cliPath, ...args], { cwd, env: ENV, encoding: 'utf8' });

/** The temporary files beside `file` (`<name>.<writer>.<random>.tmp`, util/fs tempPath). */
const beside = (file: string): string[] =>
  readdirSync(path.dirname(file)).filter((n) => n.startsWith(`${path.basename(file)}.`) && n.endsWith('.tmp'));

describe('an output that is the journal by another way: refused (exit 2), --force or not; the journal intact', () => {
  const file = journalOf('self', 2);
  const bytes = readFileSync(file);
  // A link to the journal's directory, and a hard link to the journal itself.
  symlinkSync(path.dirname(file), path.join(root, 'linked-dir'));
  linkSync(file, path.join(root, 'hard.jsonl'));
  const ways = ['linked-dir/000000.jsonl', 'hard.jsonl'];

  for (const command of ['export', 'publish'])
    for (const way of ways)
      test(`${command} -o ${way} --force`, () => {
        const extra = command === 'publish' ? ['--opt-in'] : [];
        const r = cli([command, file, '-o', way, '--force', ...extra]);
        expect({ status: r.status, stderr: r.stderr }).toEqual({
          status: 2,
          stderr: `stepchain: ${command}: the output would overwrite the journal\n`,
        });
        expect(readFileSync(file).equals(bytes)).toBe(true);
        expect(beside(file)).toEqual([]);
      });

  test('the library refuses the same outputs as given, `..` after the link too (the kernel resolves it there)', () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      // The CLI resolves `..` by name before it writes; a path handed to the library is resolved by the kernel.
      for (const way of [...ways, 'linked-dir/../self/000000.jsonl']) {
        expect(() => exportReceipt(file, way)).toThrow(`${way}: the receipt would overwrite the journal`);
        expect(() => publishReceipt(file, way, { optIn: true })).toThrow('the receipt would overwrite the journal');
      }
    } finally {
      process.chdir(cwd);
    }
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  test('a symbolic link to the journal as the output is the link, replaced with --force (the journal untouched)', () => {
    const link = path.join(root, 'soft.jsonl');
    symlinkSync(file, link);
    expect(cli(['export', file, '-o', 'soft.jsonl']).status).toBe(2);
    const r = cli(['export', file, '-o', 'soft.jsonl', '--force']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(cli(['receipt', 'verify', 'soft.jsonl']).status).toBe(0);
  });
});

describe('a streamed export that cannot finish leaves nothing under the name, and nothing beside it for long', () => {
  const file = journalOf('cut', 40);

  test('the file size limit reached mid-stream (EFBIG): exit 2, one line naming the output, no temporary file', () => {
    const out = path.join(root, 'cut.tar');
    // ulimit -f counts 512-byte blocks: the receipt (the journal and 40 blobs, over 40 KB) cannot fit in 16 KB.
    const r = spawnSync(
      'sh',
      ['-c', 'ulimit -f 32 && exec "$0" "$@"', process.execPath, cliPath, 'export', file, '-o', out],
      {
        env: ENV,
        encoding: 'utf8',
      },
    );
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 2,
      stderr: `stepchain: ${out}: cannot write: file too large (EFBIG)\n`,
    });
    expect(statSync(file).size).toBeGreaterThan(16 * 1024);
    expect(existsSync(out)).toBe(false);
    expect(beside(out)).toEqual([]);
  });

  test('killed (SIGKILL) mid-export: its temporary file is left, and the next export of that output removes it', async () => {
    const out = path.join(root, 'killed.tar');
    const p = await cliPaused(['export', file, '-o', out], 'export:copied', { env: ENV });
    expect(beside(out)).toHaveLength(1);
    await p.kill();
    expect(beside(out)).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
    const r = cli(['export', file, '-o', out]);
    expect(r.status).toBe(0);
    expect(beside(out)).toEqual([]);
    expect(cli(['receipt', 'verify', out]).status).toBe(0);
  });
});

describe('two exports of one output at once: without --force, the second to finish does not replace the first', () => {
  const file = journalOf('race', 3);
  const agentOf = (out: string): unknown =>
    JSON.parse(spawnSync('tar', ['-xOf', out, 'manifest.json'], { encoding: 'utf8' }).stdout).agent_id;

  /** Export A pauses with its receipt staged; export B writes the output meanwhile; A resumes. A's exit and stderr. */
  async function race(name: string, extra: string[]) {
    const out = path.join(root, name);
    const args = ['export', file, '-o', out, '--agent-id', 'first', ...extra];
    const second = (): void => expect(cli(['export', file, '-o', out, '--agent-id', 'second']).status).toBe(0);
    const { code, stderr } = await cliChangedWhilePaused(args, 'export:copied', `${out}.resume`, second, ENV);
    return { out, code, stderr };
  }

  test('without --force: exit 2 with the line an existing output gets; the other receipt stays, nothing beside', async () => {
    const r = await race('race.tar', []);
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr: [`stepchain: export: ${r.out} exists; refusing to replace it (give --force to replace it)`],
    });
    expect(agentOf(r.out)).toBe('second');
    expect(beside(r.out)).toEqual([]);
  });

  test('with --force: replaced, as asked', async () => {
    const r = await race('forced.tar', ['--force']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: [] });
    expect(agentOf(r.out)).toBe('first');
  });

  test("the library's replace: false (export and publish): an InputError naming the output, which is untouched", () => {
    for (const [name, stage, commit] of [
      ['lib-export.tar', () => stageExport(file, path.join(root, 'lib-export.tar'), { replace: false }), commitExport],
      [
        'lib-publish.tar',
        () => stagePublished(file, path.join(root, 'lib-publish.tar'), { optIn: true, replace: false }),
        (s: ReturnType<typeof stagePublished>) => commitPublished(s, { optIn: true }),
      ],
    ] as const) {
      const out = path.join(root, name);
      const staged = stage();
      writeFileSync(out, 'written meanwhile');
      expect(() => (commit as (s: typeof staged) => unknown)(staged)).toThrow(
        `${out}: exists (written while this receipt was made); refusing to replace it`,
      );
      expect(readFileSync(out, 'utf8')).toBe('written meanwhile');
      expect(beside(out)).toEqual([]);
    }
  });
});

describe('the journal cut, or another file put in its place, while it is exported (paused after its copy)', () => {
  /** Runs `export` of a fresh journal paused after its copy, does `change`, resumes it: exit code, stderr, output. */
  async function exportWhile(id: string, change: (file: string) => void) {
    const file = journalOf(id, 5);
    const out = path.join(root, `${id}.tar`);
    const resume = path.join(root, `${id}.resume`);
    const p = await cliPaused(['export', file, '-o', out], 'export:copied', {
      env: { ...ENV, STEPCHAIN_TEST_RESUME: resume },
    });
    change(file);
    writeFileSync(resume, '');
    const { code, stderr } = await p.exited();
    return { file, out, code, stderr: stderr.split('\n').filter((l) => l !== '' && !l.includes('paused at')) };
  }

  const other = journalOf('swap-source', 2);

  test('cut short: exit 1 naming the journal and where it now ends; nothing written, nothing beside', async () => {
    let size = 0;
    const r = await exportWhile('cut-short', (file) => {
      size = statSync(file).size;
      truncateSync(file, 100);
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toEqual([
      `stepchain: ${r.file}: the journal changed while it was exported (it now ends at byte 100, short of the ${size} it was walked with); nothing written`,
    ]);
    expect(existsSync(r.out)).toBe(false);
    expect(beside(r.out)).toEqual([]);
  });

  for (const [what, put] of [
    // A journal of 2 steps: the receipt still holds the 5 walked.
    ['another journal renamed over it', (f: string) => (copyFileSync(other, `${f}.new`), renameSync(`${f}.new`, f))],
    ['a FIFO', (f: string) => (unlinkSync(f), spawnSync('mkfifo', [f]))],
    ['a symbolic link', (f: string) => (unlinkSync(f), symlinkSync('/dev/zero', f))],
  ] as const)
    test(`${what} in its place: the receipt is the file that was walked (its descriptor), and verifies`, async () => {
      const r = await exportWhile(`put-${what.split(' ')[1]}`, put);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: [] });
      const v = cli(['receipt', 'verify', r.out, '--json']);
      expect(JSON.parse(v.stdout)).toMatchObject({ ok: true, steps: 5 });
    });
});

test('a journal of 106 MB that does not verify (a torn last line) is refused without being read whole', () => {
  const file = path.join(root, 'torn', '000000.jsonl');
  // Written out as text, every 10,000th row checked against the encoder (writeSyntheticJournalFast): computeStepHash
  // and encodeRow for each of the 45,000 rows were ~1.2 s of CPU.
  const filler = 'x'.repeat(2000);
  writeSyntheticJournalFast(file, 45_000, (seq) => ({
    model: 'm',
    prompt: `${seq} ${filler}`,
    tool_call: null,
    tool_result: null,
    ts: 1796000000 + seq,
  }));
  appendFileSync(file, '{"blob_refs":[],"inp'); // an append cut short (or still being written)
  // Under the 128 MiB from which the in-memory build walks a journal first (journal/verify.ts).
  expect(statSync(file).size).toBeGreaterThan(100_000_000);
  expect(statSync(file).size).toBeLessThan(128 * 1024 * 1024);
  const out = path.join(root, 'torn.tar');
  const r = peakRss([process.execPath, cliPath, 'export', file, '-o', out], { env: ENV });
  expect({ status: r.code, lines: r.err.trim().split('\n') }).toEqual({
    status: 1,
    lines: [`stepchain: ${file}:45001: malformed_json: unterminated string at column 17`],
  });
  // Read whole, this journal took 488 MB to refuse (measured); walked as `verify` walks it, about 85 MB.
  expect(r.mb).toBeLessThan(150);
  expect(existsSync(out)).toBe(false);
  expect(beside(out)).toEqual([]);
});
