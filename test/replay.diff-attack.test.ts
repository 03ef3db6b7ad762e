import {
  appendFileSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { computeStepHash, encodeRow, journalFile, readJournalFile, VerifiedSteps, type StepRow } from '../src/journal';
import { diffJournals, openForDiff } from '../src/replay';
import { ZERO_HASH } from '../src/util/hash';
import { cliInProcess } from './helpers/cli-in-process';
import { initRepo, writeFiles } from './helpers/git';
import { writeSyntheticJournal } from './helpers/journal-rows';
import { cliChangedWhilePaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';

/**
 * `diff` and `blame` verify a journal, then read it again where it lies, a block at a time (VerifiedSteps.marks):
 * what happens to the file between the two is the attack. An agent still appending must not make them fail, nor
 * have rows past what verified compared; a journal rewritten, truncated or replaced (by another file, a FIFO, a
 * directory) is refused in one line naming it, never read past, never waited on.
 */
const root = tempDir('stepchain-diff-attack-');
let n = 0;

const step = (tag: string) => (seq: number) => ({
  model: 'm',
  prompt: `step ${seq}${seq >= 200 ? tag : ''}`,
  tool_call: { name: 'edit', args: { seq } },
  tool_result: { out: 'x'.repeat(200) },
  ts: 1.7e9 + seq + 0.5,
});

/**
 * Two journals of 300 equal steps, and the 400-step journal whose first 300 they are, in a directory of the test's
 * own: written once (1,300 rows hashed and encoded), copied for each of the eight tests that change them.
 */
let made: string | undefined;
function pair(): { a: string; b: string; longer: string; other: string; resume: string } {
  if (made === undefined) {
    made = path.join(root, 'pair');
    mkdirSync(made);
    writeSyntheticJournal(path.join(made, 'a.jsonl'), 300, step(''));
    copyFileSync(path.join(made, 'a.jsonl'), path.join(made, 'b.jsonl'));
    writeSyntheticJournal(path.join(made, 'longer.jsonl'), 400, step(''));
    writeSyntheticJournal(path.join(made, 'other.jsonl'), 300, step(' other'));
  }
  const dir = path.join(root, `p${n++}`);
  cpSync(made, dir, { recursive: true });
  const f = (name: string) => path.join(dir, name);
  return { a: f('a.jsonl'), b: f('b.jsonl'), longer: f('longer.jsonl'), other: f('other.jsonl'), resume: f('go') };
}

/** The lines of stderr; none of them a stack frame. */
function oneLine(stderr: string[]): string {
  expect(stderr.filter((l) => /^\s+at .+:\d+:\d+\)?$/.test(l))).toEqual([]);
  expect(stderr).toHaveLength(1);
  return stderr[0]!;
}

describe('diff of journals that change after they verified', () => {
  test('an agent appending meanwhile: the rows that verified are compared, the new ones never (exit 0)', async () => {
    const p = pair();
    const tail = readFileSync(p.longer).subarray(readFileSync(p.b).length);
    const r = await cliChangedWhilePaused(['diff', p.a, p.b, '--json'], 'diff:opened', p.resume, () =>
      appendFileSync(p.b, tail),
    );
    expect([r.code, r.stderr]).toEqual([0, []]);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, diverged: false, left_steps: 300, right_steps: 300 });
  });

  test('replaced by rename with the same rows and more: the same verdict (exit 0)', async () => {
    const p = pair();
    const r = await cliChangedWhilePaused(['diff', p.a, p.b, '--json'], 'diff:opened', p.resume, () =>
      writeFileSync(p.b, readFileSync(p.longer)),
    );
    expect([r.code, r.stderr]).toEqual([0, []]);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, diverged: false, right_steps: 300 });
  });

  test.each([
    ['rewritten in place', (p: ReturnType<typeof pair>) => writeFileSync(p.b, readFileSync(p.other))],
    ['truncated', (p: ReturnType<typeof pair>) => writeFileSync(p.b, '')],
  ])('%s: refused in one line naming it (exit 1)', async (_what, change) => {
    const p = pair();
    const r = await cliChangedWhilePaused(['diff', p.a, p.b], 'diff:opened', p.resume, () => change(p));
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(`stepchain: ${p.b}: the journal changed since it was verified (`);
    expect(r.stdout).toBe('');
  });

  test.each([
    ['a FIFO', (f: string) => execFileSync('mkfifo', [f]), 'it is no longer a regular file'],
    ['a directory', (f: string) => mkdirSync(f), 'it is no longer a regular file'],
    // A link to the very file that verified: never followed.
    ['a link', (f: string) => symlinkSync(`${f}.kept`, f), 'it is now a symbolic link, never followed'],
    ['nothing', () => undefined, 'it is gone'],
  ])('replaced by %s: refused in one line naming it, never read nor waited on (exit 1)', async (_what, make, why) => {
    const p = pair();
    // Before: `stepchain: cannot read: ESPIPE` (EISDIR, ELOOP, ENOENT), exit 2, which named neither file.
    const r = await cliChangedWhilePaused(['diff', p.a, p.b, '--json'], 'diff:opened', p.resume, () => {
      renameSync(p.b, `${p.b}.kept`);
      make(p.b);
    });
    expect(r.code).toBe(1);
    const message = `${p.b}: the journal changed since it was verified (${why}); verify it again`;
    expect(oneLine(r.stderr)).toBe(`stepchain: ${message}`);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { type: 'integrity_error', message } });
  });
});

describe('blame of a journal that changes after it verified', () => {
  async function project(): Promise<{ root: string; journal: string; resume: string }> {
    const dir = initRepo(path.join(root, `b${n++}`), { 'a.txt': 'x\n' });
    for (const text of ['x\ny\n', 'x\ny\nz\n']) {
      writeFiles(dir, { 'a.txt': text });
      const r = await cliInProcess(['append', 'alpha', '--prompt', 'edit', '--json'], { cwd: dir });
      expect([r.code, r.stderr]).toEqual([0, '']);
    }
    return { root: dir, journal: journalFile(dir, 'alpha'), resume: path.join(dir, 'go') };
  }

  test('bytes appended meanwhile (a row past the verified head): the steps that verified count, the rest is never read (exit 0)', async () => {
    const p = await project();
    const r = await cliChangedWhilePaused(
      ['blame', path.join(p.root, 'a.txt'), '--root', p.root, '--json'],
      'blame:verified',
      p.resume,
      () => appendFileSync(p.journal, readFileSync(p.journal, 'utf8').split('\n')[0]!.replace('"seq":0', '"seq":2')),
    );
    expect([r.code, r.stderr]).toEqual([0, []]);
    const d = JSON.parse(r.stdout) as { lines: { agent: string | null; seq: number | null }[] };
    expect(d.lines.map((l) => [l.agent, l.seq])).toEqual([
      [null, null],
      ['alpha', 0],
      ['alpha', 1],
    ]);
  });

  test('replaced by a FIFO: refused in one line naming the journal (exit 1)', async () => {
    const p = await project();
    const r = await cliChangedWhilePaused(
      ['blame', path.join(p.root, 'a.txt'), '--root', p.root],
      'blame:verified',
      p.resume,
      () => {
        rmSync(p.journal);
        execFileSync('mkfifo', [p.journal]);
      },
    );
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(
      `stepchain: ${p.journal}: the journal changed since it was verified (it is no longer a regular file); verify it again`,
    );
  });
});

describe('diff of verified journals written in other forms', () => {
  /** Line forms that verify but are not canonical (docs/journal.md): each keeps the row's values. */
  const forms: Record<string, (line: string) => string> = {
    canonical: (l) => l,
    spaces: (l) => ` ${l.replace('{', '{ ').replace(',"seq":', ', "seq" : ')}\t`,
    reordered: (l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify(
        Object.fromEntries(
          Object.keys(o)
            .reverse()
            .map((k) => [k, o[k]]),
        ),
      );
    },
    'raw UTF-8': (l) => l.replace(/\\u00e9/g, 'é'),
    'upper-case escapes': (l) => l.replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`),
    'float 1.50': (l) => l.replace('"score":1.5', '"score":1.50'),
    'a key outside the ten': (l) => l.replace(/}$/, ',"zz":{"ts":1}}'),
  };
  const endings = { LF: '\n', CRLF: '\r\n', CR: '\r' };

  function rows(n: number, changedAt: number, refs: (seq: number) => string[]): StepRow[] {
    let prev = ZERO_HASH;
    return Array.from({ length: n }, (_, seq) => {
      const hashed = {
        prev_hash: prev,
        input_hash: ZERO_HASH,
        model: 'm',
        prompt: `café ${seq}${seq === changedAt ? ' changed' : ''}`,
        tool_call: { name: 'edit', ts: -1.25e-300 },
        tool_result: { score: 1.5 },
      };
      const row: StepRow = {
        ...hashed,
        blob_refs: refs(seq),
        seq,
        step_hash: computeStepHash(hashed),
        ts: 1.7e9 + seq,
      };
      prev = row.step_hash;
      return row;
    });
  }
  const dir = path.join(root, 'forms');
  mkdirSync(dir);
  let k = 0;
  /** `lines`: the rows' canonical lines (encodeRow), encoded once for every case that writes them. */
  function write(lines: string[], form: (l: string) => string, end: string): string {
    const file = path.join(dir, `${k++}.jsonl`);
    // A blank line (spaces) every 100 rows: skipped, as the reference skips it.
    writeFileSync(file, lines.map((l, i) => (i % 100 === 50 ? `  ${end}` : '') + form(l)).join(end) + end);
    return file;
  }
  const shown = (d: unknown): string =>
    JSON.stringify(d, (_k, v: unknown) =>
      v instanceof Map ? Object.fromEntries(v as Map<string, unknown>) : typeof v === 'bigint' ? `${v}n` : v,
    );
  const whole = (file: string) => {
    const r = readJournalFile(file);
    return { head_hash: r.head_hash, steps: r.steps, entries: r.entries };
  };
  const h = (c: string) => c.repeat(64);

  /**
   * What every case compares with, made once for the nine (each case made the same rows, the same left journal and
   * its whole read again: 54 chains of 300 hashed rows, 90 whole reads of the left): the left journal, canonical, LF,
   * its whole read, and the five right-hand chains' canonical lines (encoded once, not once a case: 13,500 rows),
   * each written in each case's form.
   */
  let shared: { left: string; leftWhole: ReturnType<typeof whole>; rights: string[][] } | undefined;
  const common = (): NonNullable<typeof shared> => {
    if (shared !== undefined) return shared;
    const left = write(rows(300, -1, () => [h('a')]).map(encodeRow), forms.canonical!, '\n');
    // 300 rows: blocks of 256, so the edits sit at the first block's end and in the second block.
    const rights = (
      [
        [255, () => [h('a')]],
        [256, () => [h('a')]],
        [300, (seq: number) => (seq === 257 ? [h('a'), h('a')] : [h('a')])], // a duplicated ref, no hash covers it
        [300, (seq: number) => (seq === 290 ? [] : [h('a')])],
        [300, () => [h('a')]], // the same
      ] as const
    ).map(([at, refs]) => rows(300, at, refs).map(encodeRow));
    return (shared = { left, leftWhole: whole(left), rights });
  };

  // Each form with one of the line endings in turn, and canonical rows with all three.
  const cases = Object.keys(forms).map((f, i) => [f, Object.keys(endings)[(i + 1) % 3]!] as const);
  test.each([...cases, ['canonical', 'LF'] as const, ['canonical', 'CR'] as const])(
    '%s rows, %s line endings: the verdict the whole read gives, at a block edge and past it',
    (form, ending) => {
      const end = endings[ending as keyof typeof endings];
      const { left, leftWhole, rights } = common();
      for (const lines of rights) {
        const right = write(lines, forms[form]!, end);
        const a = openForDiff(left);
        const b = openForDiff(right);
        expect([a.entries, b.entries].every((x) => x instanceof VerifiedSteps)).toBe(true);
        const rightWhole = whole(right);
        expect(shown(diffJournals(a, b))).toBe(shown(diffJournals(leftWhole, rightWhole)));
        expect(shown(diffJournals(b, a))).toBe(shown(diffJournals(rightWhole, leftWhole)));
      }
    },
  );
});
