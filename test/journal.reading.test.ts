import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import {
  checkTail,
  expandFaults,
  GENESIS,
  Journal,
  JournalRecoveryError,
  readJournalBytes,
  verifyJournalFile,
  type VerifyResult,
} from '../src/journal';
import { peerPath, python3 } from './helpers/python';
import { tempDir } from './helpers/tmp';

/**
 * Differential tests of the reading rules against test/python/stepchain_ref.py,
 * the project's Python model of the reference's reading rules (docs/journal.md):
 * every damaged journal gets the same verdict (faults as (line, kind), ok, head,
 * steps), strict notes and recovery decision from stepchain as from the model;
 * and where the reference itself is right (rows deleted, duplicated, swapped or
 * edited; blank lines, whitespace, line endings, garbage lines), the same verdict
 * as the model of the reference's own verify.
 */
const peer = peerPath('stepchain_ref.py');
const root = tempDir();
const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);

const dir = path.join(root, '.sdd', 'runtime', 'journal', 'base');
const base = Journal.open(dir, { durability: 'none' });
base.appendMany(
  Array.from({ length: 7 }, (_, i) => ({
    input: Buffer.from(`input ${i}`),
    model: i % 2 ? 'm' : null,
    prompt: `étape ${i} "q" \\ 😀`,
    tool_call: { name: 'edit', args: { i, ratio: i / 4, big: 10n ** 20n } },
    tool_result: i % 3 ? { ok: true, out: 'a\nb' } : null,
    ts: 1796199133 + i / 3,
  })),
);
const baseLines = readFileSync(base.file, 'latin1').split('\n').slice(0, -1);

type Ending = '\n' | '\r\n' | '\r' | '';
interface Doc {
  lines: string[]; // latin1 strings: one char per byte
  endings: Ending[];
  /** Damage the reference itself judges rightly (so its verdict must be ours too). */
  referenceRight: boolean;
}

const utf8 = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');
/** Python's str.strip() whitespace, as UTF-8 bytes (latin1 view). */
const WHITESPACE = [
  ' ',
  '\t',
  '\x0b',
  '\x0c',
  '\x1c',
  '\x1d',
  '\x1e',
  '\x1f',
  ...['\u0085', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000'].map(utf8),
];
const GARBAGE = ['{"not":"closed"', 'xyz', '\x00\x00\x00\x00', '{"a":1,}', '{"a":\x0b1}', '"\x01"'];
const NOT_OBJECTS = ['[1,2]', '12', 'null', '"row"', 'NaN'];

const setField = (line: string, key: string, raw: string | undefined): string => {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(Buffer.from(line, 'latin1').toString('utf8')) as Record<string, unknown>;
  } catch {
    return line; // damaged already
  }
  const entries = Object.entries(obj).map(([k, v]) => [k, JSON.stringify(v)] as [string, string]);
  const out = entries.filter(([k]) => k !== key || raw !== undefined).map(([k, v]) => (k === key ? [k, raw!] : [k, v]));
  return utf8(`{${out.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
};

type Damage = (d: Doc, at: number, pick: number) => void;
const pickOf = <T>(xs: readonly T[], n: number): T => xs[n % xs.length]!;
const clampAt = (d: Doc, at: number): number => (d.lines.length === 0 ? 0 : at % d.lines.length);

const referenceRight: Record<string, Damage> = {
  deleteRow: (d, at) => {
    const k = clampAt(d, at);
    d.lines.splice(k, 1);
    d.endings.splice(k, 1);
  },
  duplicateRow: (d, at) => {
    const k = clampAt(d, at);
    d.lines.splice(k, 0, d.lines[k] ?? baseLines[0]!);
    d.endings.splice(k, 0, '\n');
  },
  swapRows: (d, at) => {
    const k = clampAt(d, at);
    if (k + 1 < d.lines.length) [d.lines[k], d.lines[k + 1]] = [d.lines[k + 1]!, d.lines[k]!];
  },
  tamperField: (d, at, pick) => {
    const k = clampAt(d, at);
    if (d.lines[k]?.startsWith('{"blob_refs"'))
      d.lines[k] = d.lines[k]!.replace(pick % 2 ? 'edit' : '"ok":true', pick % 2 ? 'edlt' : '"ok":false');
  },
  blankLine: (d, at, pick) => {
    const k = at % (d.lines.length + 1);
    const ws = pick % 3 === 0 ? '' : pickOf(WHITESPACE, pick) + (pick % 2 ? pickOf(WHITESPACE, pick >> 3) : '');
    d.lines.splice(k, 0, ws);
    d.endings.splice(k, 0, '\n');
  },
  whitespaceAround: (d, at, pick) => {
    const k = clampAt(d, at);
    if (d.lines[k] === undefined) return;
    d.lines[k] =
      (pick % 2 ? pickOf(WHITESPACE, pick) : '') + d.lines[k] + (pick % 4 >= 2 ? pickOf(WHITESPACE, pick >> 2) : '');
  },
  lineEnding: (d, at, pick) => {
    const k = clampAt(d, at);
    if (d.endings[k] !== undefined) d.endings[k] = pickOf(['\r\n', '\r', '\r\n'] as const, pick);
  },
  nonCanonicalSpacing: (d, at) => {
    const k = clampAt(d, at);
    if (d.lines[k] !== undefined) d.lines[k] = d.lines[k]!.replace('":', '": ').replace(',"', ', "');
  },
  garbageLine: (d, at, pick) => {
    const k = at % (d.lines.length + 1);
    d.lines.splice(k, 0, pickOf(GARBAGE, pick));
    d.endings.splice(k, 0, '\n');
  },
  nonObjectLine: (d, at, pick) => {
    const k = at % (d.lines.length + 1);
    d.lines.splice(k, 0, pickOf(NOT_OBJECTS, pick));
    d.endings.splice(k, 0, '\n');
  },
  bom: (d, at) => {
    const k = clampAt(d, at);
    if (d.lines[k] !== undefined) d.lines[k] = utf8('\ufeff') + d.lines[k];
  },
  lastLineUnterminated: (d) => {
    if (d.endings.length > 0) d.endings[d.endings.length - 1] = '';
  },
};

const SHAPES: [string, string | undefined][] = [
  ['seq', '"0"'],
  ['seq', '0.5'],
  ['seq', 'true'],
  ['seq', 'null'],
  ['seq', '"abc"'],
  ['seq', '-1'],
  ['seq', '1e400'],
  ['seq', undefined],
  ['prev_hash', 'null'],
  ['input_hash', 'null'],
  ['step_hash', '5'],
  ['ts', undefined],
  ['ts', '"x"'],
  ['blob_refs', '"x"'],
  ['blob_refs', '[1]'],
  ['blob_refs', undefined],
  ['tool_call', undefined],
  ['model', undefined],
];
const stricter: Record<string, Damage> = {
  shape: (d, at, pick) => {
    const k = clampAt(d, at);
    if (!d.lines[k]?.startsWith('{"blob_refs"')) return;
    const [key, raw] = pickOf(SHAPES, pick);
    d.lines[k] = setField(d.lines[k]!, key, raw);
  },
  invalidUtf8: (d, at) => {
    const k = clampAt(d, at);
    if (d.lines[k] !== undefined) d.lines[k] = d.lines[k]!.replace('edit', 'ed\xffit');
  },
  tornTail: (d, at, pick) => {
    const k = clampAt(d, at);
    if (d.lines[k] === undefined) return;
    d.lines.splice(k + 1);
    d.endings.splice(k + 1);
    d.lines[k] = d.lines[k]!.slice(0, (pick * 7) % (d.lines[k]!.length + 1));
    d.endings[k] = '';
  },
  nulPadding: (d, _at, pick) => {
    d.lines.push('\x00'.repeat(1 + (pick % 40)));
    d.endings.push(pick % 2 ? '\n' : '');
  },
  tooDeep: (d, at, pick) => {
    const k = clampAt(d, at);
    if (!d.lines[k]?.startsWith('{"blob_refs"')) return;
    const levels = 898 + (pick % 4); // the row adds 1: 899..902 in all, the limit is 900
    d.lines[k] = setField(d.lines[k]!, 'tool_call', `${'['.repeat(levels)}${']'.repeat(levels)}`);
  },
  hugeInteger: (d, at) => {
    const k = clampAt(d, at);
    if (d.lines[k]?.startsWith('{"blob_refs"')) d.lines[k] = setField(d.lines[k]!, 'tool_result', '9'.repeat(4301));
  },
  emptyFile: (d) => {
    d.lines = [];
    d.endings = [];
  },
};

const damageArb = fc.tuple(
  fc.constantFrom(...Object.keys(referenceRight), ...Object.keys(stricter)),
  fc.nat(1000),
  fc.nat(1000),
);
const serialize = (d: Doc): Buffer => Buffer.from(d.lines.map((l, i) => l + d.endings[i]!).join(''), 'latin1');
function damaged(ops: [string, number, number][]): Doc {
  const d: Doc = { lines: [...baseLines], endings: baseLines.map(() => '\n'), referenceRight: true };
  for (const [name, at, pick] of ops) {
    const op = referenceRight[name] ?? stricter[name]!;
    if (!(name in referenceRight)) d.referenceRight = false;
    op(d, at, pick);
  }
  return d;
}

interface PyVerdict {
  ok: boolean;
  head_hash: string;
  steps: number;
  errors: { line: number | null; kind: string }[];
}
function pyBatch(jobs: [string, string, string | null][]): unknown[] {
  const r = spawnSync(python3(), [peer, 'batch'], {
    input: JSON.stringify(jobs),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`python3 model failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown[];
}
const verdict = (r: VerifyResult): PyVerdict => ({
  ok: r.ok,
  head_hash: r.head_hash,
  steps: r.steps,
  errors: expandFaults(r.errors),
});
function ourRecovery(file: string, size: number, env?: NodeJS.ProcessEnv): unknown {
  try {
    const t = checkTail(file, GENESIS, size, env);
    return {
      steps: t.steps,
      head: t.steps === 0 ? null : t.head,
      torn_from: t.tornFrom ?? null,
      newline_at: t.unterminatedRowEnd ?? null,
    };
  } catch (e) {
    if (e instanceof JournalRecoveryError) return { refuse: e.line, kind: e.kind };
    throw e;
  }
}

describe(`reading rules agree with the Python model (seed ${seed})`, () => {
  const cases = fc.sample(fc.array(damageArb, { minLength: 1, maxLength: 3 }), { numRuns: 300, seed });
  const files = cases.map((ops, i) => {
    const d = damaged(ops);
    const f = path.join(root, 'cases', `${i}`, '000000.jsonl');
    mkdirSync(path.dirname(f), { recursive: true });
    const bytes = serialize(d);
    writeFileSync(f, bytes);
    return { f, d, ops, bytes };
  });
  const answers = pyBatch(
    files.flatMap(({ f }) => [
      ['verify', f, null],
      ['verify-strict', f, null],
      ['recover', f, null],
      ['verify-reference', f, null],
    ]) as [string, string, string | null][],
  );
  // Slices (walked inline here) stitch like worker threads do.
  const sliced = { STEPCHAIN_THREADS: '3', STEPCHAIN_PARALLEL_MIN_BYTES: '1' };

  it('verify: the same faults (line, kind), ok, head and steps, on every path', () => {
    files.forEach(({ f, ops, bytes }, i) => {
      const want = answers[i * 4] as PyVerdict;
      const label = JSON.stringify(ops);
      expect({ label, got: verdict(verifyJournalFile(f)) }).toEqual({ label, got: want });
      expect({ label, got: verdict(verifyJournalFile(f, {}, sliced)) }).toEqual({ label, got: want });
      expect({ label, got: verdict(readJournalBytes(bytes)) }).toEqual({ label, got: want });
    });
  });

  it('verify --strict: the same non_canonical notes', () => {
    files.forEach(({ f, ops }, i) => {
      const want = answers[i * 4 + 1] as PyVerdict;
      const label = JSON.stringify(ops);
      expect({ label, got: verdict(verifyJournalFile(f, { strict: true })) }).toEqual({ label, got: want });
      expect({ label, got: verdict(verifyJournalFile(f, { strict: true }, sliced)) }).toEqual({ label, got: want });
    });
  });

  it('recovery on open: the same refusal (line, kind), or the same tail to keep, complete or move aside', () => {
    files.forEach(({ f, ops, bytes }, i) => {
      const want = answers[i * 4 + 2] as Record<string, unknown>;
      const label = JSON.stringify(ops);
      for (const env of [undefined, sliced]) {
        const got = ourRecovery(f, bytes.length, env) as Record<string, unknown>;
        if ('refuse' in want) expect({ label, got }).toEqual({ label, got: want });
        else expect({ label, got }).toEqual({ label, got: { ...want, head: want.steps === 0 ? null : want.head } });
      }
    });
  });

  it("where the reference is right, its own verdict is stepchain's", () => {
    let compared = 0;
    files.forEach(({ f, d, ops }, i) => {
      const ref = answers[i * 4 + 3] as PyVerdict | { crash: string };
      if (!d.referenceRight || 'crash' in ref) return;
      const ours = verdict(verifyJournalFile(f));
      // stepchain adds empty_journal to a file of only blank lines (stricter by design); an empty file, or one of
      // malformed lines only, gets the reference's verdict exactly.
      if (ours.errors.some((e) => e.kind === 'empty_journal')) return;
      compared++;
      const label = JSON.stringify(ops);
      expect({ label, got: ours }).toEqual({ label, got: ref });
    });
    expect(compared).toBeGreaterThan(50);
  });
});
