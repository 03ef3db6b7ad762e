/**
 * Append-only compares what the verifier reads (issue 20, section 1): property tests
 * against the journal reader (`readJournalBytes`), whatever ends the lines.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { checkAppendOnly } from '../src/check';
import { Journal, journalFile, parsesAsJson, readJournalBytes } from '../src/journal';
import { recordRunEvent } from '../src/runs';
import { emptyRepo, git } from './helpers/git';
import { cli, expectNoStack, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-append-only-');

/**
 * Commits everything in the working tree (helpers/git.ts's commitAll without its `rev-parse HEAD`: no test here
 * uses the new HEAD, and a git process is ~50 ms of CPU on a slow host, 18 of them here).
 */
function commitAll(dir: string, message: string): void {
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '--allow-empty', '-m', message]);
}

/** The rows (lines without their newline) of a real chain of `n` steps. */
function chainRows(name: string, n: number, tag: string): string[] {
  const j = Journal.open(path.join(tmp, name), { durability: 'none' });
  j.appendMany(Array.from({ length: n }, (_, i) => ({ prompt: `${tag}${i}`, ts: 1_700_000_000 + i })));
  return readFileSync(j.file, 'utf8').split('\n').slice(0, -1);
}

const N = 8;
/** Two chains of the same length: b's row i is another row with the same seq (a replaced history). */
const A = chainRows('a', N, 'pay $10 to alice ');
const B = chainRows('b', N, 'pay $10000 to mallory ');

const ending = fc.constantFrom('\n', '\r\n', '\r');
/** Whatever the reader skips or strips: nothing, spaces, tabs, \v, \f, \x1c-\x1f, NBSP, U+3000. */
const blank = fc.constantFrom('', ' ', '\t', '\v', '\f', '\x1c', '\x1f', '\u00a0', '\u3000', ' \t ');

/** One framing of some rows: each with whitespace around it, an ending, blank lines after it; the last maybe unterminated. */
function framing(n: number) {
  return fc.record({
    around: fc.array(fc.tuple(blank, blank), { minLength: n, maxLength: n }),
    endings: fc.array(ending, { minLength: n, maxLength: n }),
    blanks: fc.array(fc.array(fc.tuple(blank, ending), { maxLength: 2 }), { minLength: n, maxLength: n }),
    leading: fc.array(fc.tuple(blank, ending), { maxLength: 2 }),
    finalNewline: fc.boolean(),
  });
}
type Framing = {
  around: [string, string][];
  endings: string[];
  blanks: [string, string][][];
  leading: [string, string][];
  finalNewline: boolean;
};

/** The text of `rows` in a framing: the verifier reads exactly `rows` from it. */
function frame(rows: string[], f: Framing): Buffer {
  let s = f.leading.map(([b, e]) => b + e).join('');
  rows.forEach((r, i) => {
    const last = i === rows.length - 1;
    s += f.around[i]![0] + r + f.around[i]![1];
    // The last row may end without a newline (and then with nothing after it).
    if (last && !f.finalNewline) return;
    s += f.endings[i]!;
    for (const [b, e] of f.blanks[i]!) s += b + e;
  });
  return Buffer.from(s, 'utf8');
}

/** The reader's rows of a journal, as bytes: what verify walks and hashes. */
function readerRows(buf: Buffer): string[] {
  return readJournalBytes(buf).entries.map((e) => e.bytes.toString('utf8'));
}

/** Base and head framed at random, with the rows each holds. */
const framed = (base: string[], head: string[]) =>
  fc.tuple(framing(base.length), framing(head.length)).map(([fb, fh]) => ({
    base: frame(base, fb),
    head: frame(head, fh),
  }));

/**
 * `expect(got).toEqual(want)` / `.toMatchObject(want)`, jest's matcher called only when the values differ (then it
 * fails, showing both). The properties below run ~1,900 cases of 2-4 expects each, and every `expect()` builds all of
 * jest's matchers: that was ~1 s of the file's CPU. Node's deep equality is the stricter, so what passes here passes
 * the matcher; a value it refuses goes to the matcher, which decides.
 */
function same(got: unknown, want: unknown): void {
  if (!isDeepStrictEqual(got, want)) expect(got).toEqual(want);
}
function has(got: object, want: Record<string, unknown>): void {
  const ok = Object.entries(want).every(([k, v]) => isDeepStrictEqual((got as Record<string, unknown>)[k], v));
  if (!ok) expect(got).toMatchObject(want);
}

const isPrefix = (a: string[], b: string[]): boolean => a.length <= b.length && a.every((r, i) => b[i] === r);

describe('append-only reads rows as the verifier does', () => {
  test('the framings are what the reader reads (the generator is right)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: N }).chain((n) => framing(n).map((f) => ({ n, f }))),
        ({ n, f }) => {
          const rows = A.slice(0, n);
          const buf = frame(rows, f);
          same(readerRows(buf), rows);
          same(readJournalBytes(buf).ok, true);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('a head that appends rows passes, however either frames its lines', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.integer({ min: 1, max: N }), fc.integer({ min: 0, max: N }))
          .filter(([b, h]) => h >= b)
          .chain(([b, h]) => framed(A.slice(0, b), A.slice(0, h)).map((v) => ({ ...v, b, h }))),
        ({ base, head, b, h }) => {
          const r = checkAppendOnly(base, head);
          has(r, { ok: true, baseRows: b, headRows: h, appended: h - b });
          same(r.kind, h > b ? 'appended' : 'unchanged');
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a head that is the base byte for byte with rows after it passes (the one-walk path), counted as the reader counts', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.integer({ min: 0, max: N }), fc.integer({ min: 0, max: N }), fc.boolean())
          .filter(([b, h]) => h >= b)
          .chain(([b, h, torn]) => framed(A.slice(0, b), A.slice(b, h)).map((v) => ({ ...v, b, h, torn }))),
        ({ base, head, b, h, torn }) => {
          // The base ends with a `\n` (a torn line before it, maybe); the head goes on from there.
          const fragment = torn && b < N ? `${A[b]!.slice(0, 9)}\n` : '';
          const baseBytes = Buffer.concat([base, Buffer.from(`\n${fragment}`)]);
          const headBytes = Buffer.concat([baseBytes, head]);
          has(checkAppendOnly(baseBytes, headBytes), {
            ok: true,
            baseRows: b,
            headRows: h + (fragment === '' || h === b ? 0 : 1),
          });
          same(isPrefix(readerRows(baseBytes), readerRows(headBytes)), true);
          same(readerRows(headBytes), A.slice(0, h));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a head that changes, removes or reorders a base row fails at the first one, wherever its line ends', () => {
    const edit = fc.oneof(
      fc.record({ op: fc.constant('replace' as const), i: fc.nat(N - 1) }),
      fc.record({ op: fc.constant('remove' as const), i: fc.nat(N - 1) }),
      fc.record({ op: fc.constant('swap' as const), i: fc.nat(N - 1), j: fc.nat(N - 1) }),
      fc.record({ op: fc.constant('history' as const), i: fc.constant(0) }),
    );
    fc.assert(
      fc.property(
        fc
          .tuple(fc.integer({ min: 1, max: N }), edit, fc.nat(3))
          .filter(([b, e]) => e.i < b && (e.op !== 'swap' || (e.j !== e.i && e.j < b)))
          .chain(([b, e, extra]) => {
            let head = A.slice(0, b);
            if (e.op === 'replace') head[e.i] = B[e.i]!;
            else if (e.op === 'remove') head.splice(e.i, 1);
            else if (e.op === 'swap') [head[e.i], head[e.j]] = [head[e.j]!, head[e.i]!];
            else head = B.slice(0, b); // the whole history replaced by a new chain of the same length
            head = head.concat(A.slice(b, b + extra)); // and maybe rows appended after it
            const first = e.op === 'swap' ? Math.min(e.i, e.j) : e.i;
            return framed(A.slice(0, b), head).map((v) => ({ ...v, first, op: e.op }));
          }),
        ({ base, head, first, op }) => {
          const r = checkAppendOnly(base, head);
          same(r.ok, false);
          same(r.firstChangedSeq, first);
          same(isPrefix(readerRows(base), readerRows(head)), false);
          if (op !== 'remove') same(r.kind, 'rewritten');
        },
      ),
      { numRuns: 400 },
    );
  });

  test('the check agrees with the reader on any two journals of rows and blank lines', () => {
    // Rows from both chains in any order and number: the verdict is exactly "the reader's base rows are a prefix".
    const rows = fc.array(fc.constantFrom(...A.slice(0, 4), ...B.slice(0, 2)), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        fc.tuple(rows, rows).chain(([b, h]) => framed(b, h)),
        ({ base, head }) => {
          const want = isPrefix(readerRows(base), readerRows(head));
          same(checkAppendOnly(base, head).ok, want);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("a base's torn last line is not a row; a base row the head leaves out is", () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.integer({ min: 1, max: N - 1 }), fc.integer({ min: 1, max: 40 }))
          .chain(([b, cut]) => framed(A.slice(0, b), A.slice(0, b + 1)).map((v) => ({ ...v, b, cut }))),
        ({ base, head, b, cut }) => {
          // A write killed after `cut` bytes of the next row: verify fails on it, the next append moves it aside.
          const tornBase = Buffer.concat([base, Buffer.from(`\n${A[b]!.slice(0, cut)}`)]);
          same(readerRows(tornBase), A.slice(0, b));
          has(checkAppendOnly(tornBase, head), { ok: true, baseRows: b, appended: 1 });
          // Without its last row the head is truncated, however the base's last row ended.
          const short = Buffer.from(A.slice(0, b - 1).join('\n'));
          has(checkAppendOnly(tornBase, short), { ok: false, kind: 'truncated' });
        },
      ),
      { numRuns: 200 },
    );
  });
});

test('a last row of millions of escapes, without its final newline, is a row, and cannot be rewritten', () => {
  // The torn-tail grammar check once gave up on such a string (a regular expression out of stack) and took the row
  // for torn; it reads it whole now (test/canonical.string-syntax.test.ts), and so does the verifier.
  const big = 'line\n'.repeat(2_000_000);
  const j = Journal.open(path.join(tmp, 'long-a'), { durability: 'none' });
  j.appendMany([
    { prompt: 'p0', ts: 1_700_000_000 },
    { prompt: `pay $10 to alice ${big}`, ts: 1_700_000_001 },
  ]);
  const honest = readFileSync(j.file);
  const k = Journal.open(path.join(tmp, 'long-b'), { durability: 'none' });
  k.appendMany([
    { prompt: 'p0', ts: 1_700_000_000 },
    { prompt: `pay $10000 to mallory ${big}`, ts: 1_700_000_001 },
  ]);
  const forged = readFileSync(k.file);
  const base = honest.subarray(0, honest.length - 1); // no final newline: compared row by row
  expect(parsesAsJson(base.subarray(base.lastIndexOf(0x0a) + 1))).toBe(true);
  expect(readJournalBytes(base)).toMatchObject({ ok: true, steps: 2 });
  expect(checkAppendOnly(base, forged)).toMatchObject({ ok: false, kind: 'rewritten', firstChangedSeq: 1, line: 2 });
  expect(checkAppendOnly(base, honest)).toMatchObject({ ok: true, baseRows: 2, headRows: 2 });
});

describe('the two attacks of issue 20', () => {
  test('a last row without its final newline, rewritten', () => {
    const base = Buffer.from(A.slice(0, 3).join('\n')); // no final newline
    const head = Buffer.from(`${[A[0], A[1], B[2]].join('\n')}\n`);
    expect(readJournalBytes(base).ok).toBe(true);
    expect(checkAppendOnly(base, head)).toMatchObject({ ok: false, kind: 'rewritten', firstChangedSeq: 2, line: 3 });
  });

  test('rows separated by a bare \\r, the whole history replaced by a chain of the same length', () => {
    const base = Buffer.from(`${A.slice(0, 4).join('\r')}\r`);
    const head = Buffer.from(`${B.slice(0, 4).join('\r')}\r`);
    expect(readJournalBytes(base).ok).toBe(true);
    expect(readJournalBytes(head).ok).toBe(true);
    expect(checkAppendOnly(base, head)).toMatchObject({ ok: false, kind: 'rewritten', firstChangedSeq: 0, line: 1 });
  });
});

/** Appends `count` steps to an agent's journal in a project (the recorder's own code; `env` for a forger's, whose
 * appends leave the recorder's checkpoint alone). */
function append(root: string, agent: string, count: number, tag = 'p', env: NodeJS.ProcessEnv = process.env): void {
  const j = Journal.open(path.dirname(journalFile(root, agent)), { durability: 'none', env });
  j.appendMany(Array.from({ length: count }, (_, i) => ({ prompt: `${tag}${j.length + i}`, ts: 1_700_000_000.5 + i })));
}

interface CheckDoc {
  ok: boolean;
  items: { kind: string; path: string; status: string; append_only?: string; renamed_to?: string }[];
  faults: { item: string; path: string; line: number | null; kind: string; message: string }[];
}

/**
 * `check --base main --json` in `dir`: in this process (`cliInProcess`, the code the built CLI bundles: the
 * comparison's logic is the point), or as a real process (`real`, the first check of the file).
 */
async function check(dir: string, real = false): Promise<{ code: number; doc: CheckDoc; stderr: string }> {
  const args = ['check', '--base', 'main', '--json'];
  const r = real ? cli(args, { cwd: dir }) : await cliInProcess(args, { cwd: dir });
  expectNoStack(r);
  return { code: r.code, doc: JSON.parse(r.stdout) as CheckDoc, stderr: r.stderr };
}
/** `stepchain <args>` in `cwd`, in this process. */
const sc = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
  cliInProcess(args, { cwd, env });

/** A forger writes rows without the recorder's checkpoint; a fresh clone verifies without the recorder's key. */
const FORGER: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_CHECKPOINT: 'off' };
const FRESH_CLONE: NodeJS.ProcessEnv = { STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(tmp, 'no-such-key') };

describe('stepchain check --base in a real repository (issue 20)', () => {
  const journal = '.sdd/runtime/journal/alice/000000.jsonl';

  test('a last committed row without its newline, rewritten and re-hashed, fails; an append to it passes', async () => {
    const dir = emptyRepo(path.join(tmp, 'no-final-newline'));
    append(dir, 'alice', 2);
    // The same two steps, then "pay $10 to alice" at the base and "pay $10000 to mallory" in the PR.
    const prefix = readFileSync(journalFile(dir, 'alice'));
    append(dir, 'alice', 1, 'pay $10 to alice ');
    const honest = readFileSync(journalFile(dir, 'alice'));
    writeFileSync(journalFile(dir, 'alice'), prefix);
    append(dir, 'alice', 1, 'pay $10000 to mallory ', FORGER);
    const forged = readFileSync(journalFile(dir, 'alice'));
    writeFileSync(journalFile(dir, 'alice'), honest.subarray(0, honest.length - 1)); // no final newline
    commitAll(dir, 'base');
    expect((await sc(['verify', 'alice'], dir)).code).toBe(0);

    git(dir, ['checkout', '-q', '-b', 'forged']);
    writeFileSync(journalFile(dir, 'alice'), forged);
    commitAll(dir, 'rewrite the last row');
    // Internally valid (the recorder's own checkpoint would name it a rollback: a fresh clone has no key).
    expect((await sc(['verify', 'alice'], dir, FRESH_CLONE)).code).toBe(0);
    const bad = await check(dir, true);
    expect(bad.code).toBe(1);
    expect(bad.doc.faults.map((f) => [f.kind, f.path, f.line])).toEqual([['history_rewritten', journal, 3]]);
    expect(bad.stderr).toContain(`${journal}:3: agent alice: history rewritten from seq 2 (line 3)`);

    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['checkout', '-q', '-b', 'honest']);
    writeFileSync(journalFile(dir, 'alice'), honest);
    append(dir, 'alice', 2);
    commitAll(dir, 'append');
    const ok = await check(dir);
    expect(ok.code).toBe(0);
    expect(ok.doc.items).toEqual([expect.objectContaining({ path: journal, status: 'ok', append_only: 'appended' })]);
  });

  test('a history of bare-\\r rows replaced by a new chain of the same length fails; so does a run journal', async () => {
    const dir = emptyRepo(path.join(tmp, 'bare-cr'));
    append(dir, 'alice', 4, 'pay $10 to alice ');
    const honest = readFileSync(journalFile(dir, 'alice'), 'utf8');
    writeFileSync(journalFile(dir, 'alice'), honest.replaceAll('\n', '\r'));
    commitAll(dir, 'base');
    expect((await sc(['verify', 'alice'], dir)).code).toBe(0);

    git(dir, ['checkout', '-q', '-b', 'forged']);
    rmSync(path.dirname(journalFile(dir, 'alice')), { recursive: true });
    append(dir, 'alice', 4, 'pay $10000 to mallory ');
    const forged = readFileSync(journalFile(dir, 'alice'), 'utf8');
    writeFileSync(journalFile(dir, 'alice'), forged.replaceAll('\n', '\r'));
    commitAll(dir, 'replace the history');
    expect((await sc(['verify', 'alice'], dir)).code).toBe(0);
    const bad = await check(dir);
    expect(bad.code).toBe(1);
    expect(bad.doc.faults.map((f) => [f.kind, f.line])).toEqual([['history_rewritten', 1]]);
    expect(bad.stderr).toContain('agent alice: history rewritten from seq 0 (line 1)');

    // A run journal is read by the same rules, and compared the same way.
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['checkout', '-q', '-b', 'runs']);
    const env = { STEPCHAIN_AUDIT: 'off' };
    const run = path.join(dir, '.sdd/runs/run-1/journal.jsonl');
    for (let i = 0; i < 3; i++) recordRunEvent(dir, 'run-1', 'tool_call', { pay: `$10 to alice ${i}` }, { env });
    writeFileSync(run, readFileSync(run, 'utf8').replaceAll('\n', '\r').slice(0, -1)); // bare \r, no final one
    commitAll(dir, 'a run');
    git(dir, ['branch', '-f', 'main', 'HEAD']);
    rmSync(run);
    for (let i = 0; i < 3; i++) recordRunEvent(dir, 'run-1', 'tool_call', { pay: `$10000 to mallory ${i}` }, { env });
    commitAll(dir, 'replace the run');
    expect((await sc(['run', 'verify', 'run-1'], dir)).code).toBe(0);
    const runBad = await check(dir);
    expect(runBad.code).toBe(1);
    expect(runBad.doc.faults.map((f) => [f.kind, f.path, f.line])).toEqual([
      ['history_rewritten', '.sdd/runs/run-1/journal.jsonl', 1],
    ]);
  });
});

describe('committed receipts are append-only too (issue 20)', () => {
  const exportTo = async (cwd: string, agent: string, out: string): Promise<void> => {
    const r = await sc(['export', agent, '-o', out, '--force'], cwd);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  };
  const receiptItems = (doc: CheckDoc) => doc.items.filter((i) => i.kind === 'receipt');
  const receiptFaults = (doc: CheckDoc) =>
    doc.faults.filter((f) => f.item === 'receipt').map((f) => [f.kind, f.path] as const);

  /**
   * A repository whose base commit holds alice's journal (2 steps) and her receipt, on a branch `pr`: built once for
   * the four tests (`beforeAll`), each given a copy of it (.git and .sdd with it) to change, as each once built it.
   */
  let receiptBase = '';
  beforeAll(async () => {
    receiptBase = emptyRepo(path.join(tmp, 'receipt-base'));
    append(receiptBase, 'alice', 2);
    await exportTo(receiptBase, 'alice', 'alice.receipt.tar');
    commitAll(receiptBase, 'base');
    git(receiptBase, ['checkout', '-q', '-b', 'pr']);
  });
  function repoWithReceipt(name: string): string {
    const dir = path.join(tmp, name);
    cpSync(receiptBase, dir, { recursive: true });
    return dir;
  }

  test('re-exported with more steps of the same chain: passes (as an append)', async () => {
    const dir = repoWithReceipt('receipt-append');
    append(dir, 'alice', 3);
    await exportTo(dir, 'alice', 'alice.receipt.tar');
    commitAll(dir, 'more steps');
    const r = await check(dir);
    expect(r.code).toBe(0);
    expect(receiptItems(r.doc)).toEqual([
      expect.objectContaining({ path: 'alice.receipt.tar', status: 'ok (unsigned)', append_only: 'appended' }),
    ]);
  });

  test('deleted: fails, naming the receipt', async () => {
    const dir = repoWithReceipt('receipt-deleted');
    rmSync(path.join(dir, 'alice.receipt.tar'));
    commitAll(dir, 'delete the receipt');
    const r = await check(dir);
    expect(r.code).toBe(1);
    expect(receiptFaults(r.doc)).toEqual([['history_deleted', 'alice.receipt.tar']]);
    expect(r.stderr).toContain("receipt alice: receipt deleted (the base has agent alice's receipt of 2 steps)");
  });

  test("swapped for another run's receipt (another agent, or the same agent's other chain): fails", async () => {
    const dir = repoWithReceipt('receipt-swapped');
    append(dir, 'bob', 2);
    await exportTo(dir, 'bob', 'alice.receipt.tar');
    commitAll(dir, "bob's receipt under alice's name");
    const other = await check(dir);
    expect(other.code).toBe(1);
    expect(receiptFaults(other.doc)).toEqual([['history_rewritten', 'alice.receipt.tar']]);
    expect(other.stderr).toContain("the base's is agent alice's, this one agent bob's");

    // The same agent id, another chain (another project's alice, more steps): not an extension either.
    const elsewhere = emptyRepo(path.join(tmp, 'receipt-swapped-other'));
    append(elsewhere, 'alice', 4, 'q');
    await exportTo(elsewhere, 'alice', path.join(dir, 'alice.receipt.tar'));
    commitAll(dir, "another alice's receipt");
    const same = await check(dir);
    expect(same.code).toBe(1);
    expect(receiptFaults(same.doc)).toEqual([['history_rewritten', 'alice.receipt.tar']]);
    expect(same.stderr).toContain("its chain does not extend the base receipt's (step 0 differs");

    // An older export of the same chain (fewer steps) is a truncation.
    rmSync(path.join(dir, '.sdd'), { recursive: true });
    git(dir, ['checkout', '-q', 'main', '--', '.sdd']);
    const j = journalFile(dir, 'alice');
    writeFileSync(j, readFileSync(j, 'utf8').split('\n').slice(0, 1).join('\n') + '\n');
    await exportTo(dir, 'alice', 'alice.receipt.tar');
    git(dir, ['checkout', '-q', 'main', '--', '.sdd']);
    commitAll(dir, 'an older receipt');
    const older = await check(dir);
    expect(older.code).toBe(1);
    expect(receiptFaults(older.doc)).toEqual([['history_truncated', 'alice.receipt.tar']]);
  });

  test('re-exported with a step time rewritten (the step hashes the same): fails, as the same edit of a journal does', async () => {
    // ts is covered by no step hash and not by the manifest's signature: only the rows' bytes show the rewrite.
    const dir = repoWithReceipt('receipt-ts');
    const j = journalFile(dir, 'alice');
    const rows = readFileSync(j, 'utf8').split('\n');
    rows[0] = rows[0]!.replace(/"ts":[0-9.e+-]+/, '"ts":946684800.0');
    writeFileSync(j, rows.join('\n'));
    await exportTo(dir, 'alice', 'alice.receipt.tar');
    git(dir, ['checkout', '-q', 'main', '--', '.sdd']);
    commitAll(dir, 'step 0 moved to the year 2000');
    const r = await check(dir);
    expect(r.code).toBe(1);
    expect(receiptFaults(r.doc)).toEqual([['history_rewritten', 'alice.receipt.tar']]);
    expect(r.stderr).toContain("its chain does not extend the base receipt's (step 0 differs");
  });

  test('renamed (moved, and re-exported with more steps): followed, as a journal rename is', async () => {
    const dir = repoWithReceipt('receipt-renamed');
    git(dir, ['mv', 'alice.receipt.tar', 'alice-2.receipt.tar']);
    append(dir, 'alice', 1);
    mkdirSync(path.join(dir, 'receipts'));
    await exportTo(dir, 'alice', 'receipts/alice.receipt.tar.gz');
    rmSync(path.join(dir, 'alice-2.receipt.tar'));
    commitAll(dir, 'move the receipt');
    const r = await check(dir);
    expect(r.code).toBe(0);
    expect(receiptItems(r.doc)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'alice.receipt.tar', renamed_to: 'receipts/alice.receipt.tar.gz' }),
        expect.objectContaining({ path: 'receipts/alice.receipt.tar.gz', status: 'ok (unsigned)' }),
      ]),
    );
    // Moved to where another agent's receipt stands in for it: a deletion.
    rmSync(path.join(dir, 'receipts/alice.receipt.tar.gz'));
    append(dir, 'bob', 2);
    await exportTo(dir, 'bob', 'receipts/alice.receipt.tar.gz');
    commitAll(dir, "bob's receipt where alice's went");
    const gone = await check(dir);
    expect(gone.code).toBe(1);
    expect(receiptFaults(gone.doc)).toEqual([['history_deleted', 'alice.receipt.tar']]);
  });
});
