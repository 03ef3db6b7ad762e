import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { canonical, JsonFloat, type JsonValue } from '../src/canonical';
import { Journal, verifyJournalFile } from '../src/journal';
import { peerPath, python3 } from './helpers/python';
import { tempDir } from './helpers/tmp';

const peer = peerPath('stepchain_ref.py');
const root = tempDir();
const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);

function pyVerify(
  file: string,
  head?: string,
): { ok: boolean; head_hash: string; steps: number; errors: { line: number; kind: string }[] } {
  const r = spawnSync(python3(), [peer, 'verify', file, ...(head ? [head] : [])], { encoding: 'utf8' });
  return JSON.parse(r.stdout);
}

const text = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.constantFrom('\u0000', '"', '\\', '\ud800', '😀', '\uffff'),
  ),
});
const leaf: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => new JsonFloat(d)),
  text,
);
const value = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(text, tie('v'), { maxKeys: 4 }),
  ),
})).v;

describe(`journals cross-verify with the Python peer (seed ${seed})`, () => {
  it('stepchain journals of random steps verify under Python with the same head', () => {
    const steps = fc.sample(
      fc.record({ model: fc.oneof(fc.constant(null), text), prompt: value, tool_call: value, tool_result: value }),
      { numRuns: 200, seed },
    );
    const j = Journal.open(path.join(root, '.sdd', 'runtime', 'journal', 'ours'), { durability: 'none' });
    j.appendMany(steps.map((s) => ({ ...s, input: Buffer.from(canonical(s.prompt)) })));
    const py = pyVerify(j.file, j.head);
    expect(py.errors).toEqual([]);
    expect(py).toMatchObject({ ok: true, steps: 200, head_hash: j.head });
  });

  it('journals written by the Python peer verify (strictly) in stepchain, and a tamper fails on both', () => {
    const steps = fc.sample(
      fc.record({ model: fc.oneof(fc.constant(null), text), prompt: value, tool_call: value, tool_result: value }),
      { numRuns: 200, seed: seed + 1 },
    );
    const dir = path.join(root, 'py');
    require('node:fs').mkdirSync(dir);
    const file = path.join(dir, '000000.jsonl');
    // Python reads the steps as JSON text, so floats, big integers and escapes travel exactly.
    const input = steps.map((s) => canonical(s as unknown as JsonValue)).join('\n');
    const w = spawnSync(python3(), [peer, 'write', file], { input, encoding: 'utf8' });
    expect(w.stderr).toBe('');
    const ours = verifyJournalFile(file, { strict: true });
    expect(ours.errors).toEqual([]);
    expect(ours.steps).toBe(200);
    expect(ours.head_hash).toBe(pyVerify(file).head_hash);
    // Python writes NaN too; we read it.
    spawnSync(python3(), [peer, 'write', file], {
      input: '{"prompt": NaN, "tool_result": {"x": Infinity}}\n',
      encoding: 'utf8',
    });
    expect(verifyJournalFile(file, { strict: true })).toMatchObject({ ok: true, steps: 201 });
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[100] = lines[100]!.replace('"seq":100', '"seq":100,"prompt":"x"').replace(/,"prompt":(?!"x")[^,]*/, '');
    writeFileSync(file, lines.join('\n'));
    const a = verifyJournalFile(file);
    const b = pyVerify(file);
    expect(a.ok).toBe(false);
    expect(b.ok).toBe(false);
    expect(a.errors[0]!.line).toBe(b.errors[0]!.line);
  });
});
