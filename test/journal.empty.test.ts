/**
 * A journal without rows (docs/journal.md, "A journal without rows"): one
 * rule (src/journal/no-rows.ts) shared by verify and append. An empty file is
 * a journal whose first write never happened (0 steps, as the reference says;
 * append starts the chain); only blank lines is `empty_journal` (verify fails,
 * append refuses); malformed lines get the reference's faults and nothing
 * more. Differential against the reference (python3) and its model, and a
 * property: append succeeds iff verify accepts what it would extend.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { expandFaults } from '../src/journal/faults';
import { GENESIS, Journal, verifyJournalFile } from '../src/journal';
import { checkTail } from '../src/journal/tail';
import { JournalRecoveryError } from '../src/journal/recover';
import { cli } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { peerPath, python3 } from './helpers/python';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-empty-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT: 'off' };
const peer = peerPath('stepchain_ref.py');
let n = 0;

function pyBatch(jobs: [string, string, string | null][]): unknown[] {
  const r = spawnSync(python3(), [peer, 'batch'], { input: JSON.stringify(jobs), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 model failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown[];
}

/** A journal directory holding `bytes` as its file. */
function journalWith(bytes: Buffer | string): { dir: string; file: string } {
  const dir = path.join(root, '.sdd', 'runtime', 'journal', `j${n++}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, '000000.jsonl');
  writeFileSync(file, bytes);
  return { dir, file };
}

/** Valid rows of one chain (as a writer wrote them), to build files from. */
const ROWS: string[] = (() => {
  const j = Journal.open(path.join(root, 'source'), { env: ENV });
  for (let i = 0; i < 6; i++) j.append({ prompt: `p${i}`, tool_result: { i } });
  return require('node:fs').readFileSync(j.file, 'utf8').trim().split('\n') as string[];
})();

const FILES: Record<string, string> = {
  empty: '',
  'blank lines': '\n \n\t\r\n',
  'a torn row, alone': ROWS[0]!.slice(0, 30),
  'a torn row, alone, terminated': `${ROWS[0]!.slice(0, 30)}\n`,
  'a row behind a BOM': `\ufeff${ROWS[0]}\n`,
  'garbage lines': 'x\ny\n',
  'blank lines and garbage': '\n\nx\n\n',
  'a JSON non-object': '[1, 2]\n',
};

describe('a journal without rows: the reference verdict, exactly', () => {
  const cases = Object.entries(FILES).map(([name, bytes]) => ({ name, ...journalWith(bytes) }));
  const answers = pyBatch(
    cases.flatMap(({ file }) => [
      ['verify-reference', file, null] as [string, string, null],
      ['verify', file, null] as [string, string, null],
      ['recover', file, null] as [string, string, null],
    ]),
  );

  test.each(cases.map((c, i) => [c.name, i] as const))('%s', (name, i) => {
    const { file } = cases[i]!;
    const r = verifyJournalFile(file);
    const ours = { ok: r.ok, head_hash: r.head_hash, steps: r.steps, errors: expandFaults(r.errors) };
    // The model of stepchain's verdict agrees; the reference's own verdict too, but for blank lines alone.
    expect({ name, ours }).toEqual({ name, ours: answers[i * 3 + 1] });
    if (name !== 'blank lines') expect({ name, ours }).toEqual({ name, ours: answers[i * 3] });
    else expect(ours.errors).toEqual([{ line: null, kind: 'empty_journal' }]);
    // The recovery model: the same refusal or the same tail to set aside.
    let rec: unknown;
    try {
      const t = checkTail(file, GENESIS, Buffer.byteLength(FILES[name]!));
      rec = { steps: t.steps, head: t.head, torn_from: t.tornFrom ?? null, newline_at: t.unterminatedRowEnd ?? null };
    } catch (e) {
      if (!(e instanceof JournalRecoveryError)) throw e;
      rec = { refuse: e.line, kind: e.kind };
    }
    expect({ name, rec }).toEqual({ name, rec: answers[i * 3 + 2] });
  });

  test('the CLI: an empty file verifies with 0 steps and append starts the chain; blank lines are refused by both', async () => {
    // Through runCli in this process (`cliInProcess`, the code the bundle runs), but for the refused append: its exit 1
    // as a process sees it.
    const empty = journalWith('');
    expect(await cliInProcess(['verify', empty.file], { env: ENV })).toMatchObject({ code: 0 });
    expect((await cliInProcess(['append', empty.dir, '--no-snapshot'], { env: ENV })).code).toBe(0);
    expect(verifyJournalFile(empty.file)).toMatchObject({ ok: true, steps: 1 });
    const blank = journalWith(' \n\n');
    const v = await cliInProcess(['verify', blank.file], { env: ENV });
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(`${blank.file}: empty_journal`);
    const a = cli(['append', blank.dir, '--no-snapshot'], { env: ENV });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(`${blank.file}:1: empty_journal:`);
    expect(a.stderr).toContain('refusing to append');
    expect(require('node:fs').readFileSync(blank.file, 'utf8')).toBe(' \n\n');
  });
});

type Item =
  | { kind: 'row' }
  | { kind: 'blank'; text: string }
  | { kind: 'garbage'; text: string }
  | { kind: 'bom' }
  | { kind: 'nonobject' };

const itemArb: fc.Arbitrary<Item> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Item>({ kind: 'row' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(' ', '', '\t', '\u3000', '\r').map<Item>((text) => ({ kind: 'blank', text })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('x', '{"seq": 0, "pr', '\u0000\u0000').map<Item>((text) => ({ kind: 'garbage', text })),
  },
  { weight: 1, arbitrary: fc.constant<Item>({ kind: 'bom' }) },
  { weight: 1, arbitrary: fc.constant<Item>({ kind: 'nonobject' }) },
);

/** The lines' text, rows filled in chain order. */
function texts(items: Item[]): string[] {
  let r = 0;
  return items.map((it) =>
    it.kind === 'row'
      ? ROWS[r++ % ROWS.length]!
      : it.kind === 'bom'
        ? `\ufeff${ROWS[0]}`
        : it.kind === 'nonobject'
          ? '[0]'
          : it.text,
  );
}

describe('property: append succeeds iff verify accepts what it would extend', () => {
  test('random files of rows, blank lines, malformed lines and a torn fragment', () => {
    fc.assert(
      fc.property(
        fc.array(itemArb, { maxLength: 7 }),
        fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
        (items, fragment) => {
          const lines = texts(items);
          const body = lines.map((l) => `${l}\n`).join('');
          const prior = fragment === undefined ? body : body + ROWS[1]!.slice(0, fragment);
          // What append extends: the file with its torn tail set aside. A torn tail is the one line that does not
          // parse at all (a garbage line or the fragment) when nothing that parses follows it, with the blank lines
          // around it (docs/journal.md, "Recovery on open"); the harness knows which lines are which.
          const nonParsing = items.flatMap((it, k) => (it.kind === 'garbage' ? [k] : []));
          if (fragment !== undefined) nonParsing.push(items.length);
          const parsing = items.flatMap((it, k) =>
            it.kind === 'row' || it.kind === 'bom' || it.kind === 'nonobject' ? [k] : [],
          );
          const lastParsing = parsing.length === 0 ? -1 : parsing[parsing.length - 1]!;
          const torn = nonParsing.length === 1 && nonParsing[0]! > lastParsing;
          const extended = torn
            ? lines
                .slice(0, lastParsing + 1)
                .map((l) => `${l}\n`)
                .join('')
            : prior;
          const shouldAppend = verifyJournalFile(journalWith(extended).file).ok;
          const j = journalWith(prior);
          let appended: boolean;
          try {
            Journal.open(j.dir, { env: ENV, onTornTail: () => undefined }).append({ prompt: 'next' });
            appended = true;
          } catch (e) {
            if (!(e instanceof JournalRecoveryError)) throw e;
            appended = false;
          }
          expect({ prior, appended }).toEqual({ prior, appended: shouldAppend });
          // And what append leaves, verify accepts.
          if (appended) expect(verifyJournalFile(j.file).ok).toBe(true);
          else expect(readdirSync(j.dir).filter((f) => f.includes('.torn-'))).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
