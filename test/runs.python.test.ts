import { mkdirSync, writeFileSync } from 'node:fs';
import { encode, float, type JsonValue } from '../src/canonical';
import path from 'node:path';
import {
  diffRuns,
  recordCapability,
  recordMutation,
  recordRunEvent,
  runJournalFile,
  verifyRunJournal,
  type RunRecordOptions,
} from '../src/runs';
import { refPython } from './helpers/python';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * Differential tests against an independent Python implementation of the
 * reference algorithms (test/python/ref_run_journal.py): journals written by
 * either side verify on the other, and both find the same divergences.
 */
const base = tempDir('stepchain-runs-py-');
const fresh = (): string => freshDir(base);
const off: RunRecordOptions = { env: { STEPCHAIN_AUDIT: 'off' } };

type Spec = (
  | { event: string; data?: unknown }
  | { capability: { adapter: string; capability: string } }
  | { mutation: { kind: string; detail?: unknown; step_index: number; flagged?: boolean; agent_id: string } }
)[];

function pyWrite(file: string, spec: Spec): void {
  const specFile = `${file}.spec.json`;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(specFile, encode(spec as unknown as JsonValue, { sortKeys: false }));
  refPython('ref_run_journal.py', ['write', file, specFile]);
}
const pyVerify = (file: string): Record<string, unknown> =>
  JSON.parse(refPython('ref_run_journal.py', ['verify', file]));

// Payloads that exercise the encodings: key order (incl. integer-like keys), floats, big ints, escapes, nesting.
const payloads: Record<string, JsonValue>[] = [
  { task: 't1', '10': 'ten', '2': 'two', b: 1, a: 2 },
  { text: 'Résumé ✓ 😀 "quoted" \\ tab\t', nested: { z: [1, 2.5, { y: null }], a: true } },
  { big: 123456789012345678901234567890n, neg: float(-0), tiny: 1e-7, whole: float(3), huge: 1e300, int: 3 },
  { empty: {}, list: [], s: '' },
];

test('journals written by the Python reference verify in stepchain, byte-identical to our encoding', () => {
  const dir = fresh();
  const file = path.join(dir, '.sdd', 'runs', 'py', 'journal.jsonl');
  pyWrite(file, [
    ...payloads.map((data, i) => ({ event: `e${i}`, data })),
    { capability: { adapter: 'claude', capability: 'observed' } },
    { capability: { adapter: 'codex', capability: 'declared-blind' } },
    {
      mutation: {
        kind: 'compact_boundary',
        detail: { trigger: 'auto', pre_tokens: 167353, before_x: [1] },
        step_index: 0,
        agent_id: 'a1',
      },
    },
    { mutation: { kind: 'clear_tool_uses_20250919', detail: { cleared_tool_uses: 3 }, step_index: 1, agent_id: 'a1' } },
  ]);
  const r = verifyRunJournal(file, { strict: true });
  expect(r).toMatchObject({
    ok: true,
    chain_ok: true,
    count: 8,
    mutation_count: 2,
    flagged_indices: [],
    capabilities: [
      { adapter: 'claude', capability: 'observed' },
      { adapter: 'codex', capability: 'declared-blind' },
    ],
    errors: [],
  });
  // stepchain can extend a Python-written journal, and Python still verifies it.
  recordRunEvent(dir, 'py', 'after', { by: 'stepchain' }, off);
  recordMutation(dir, 'py', { agentId: 'a1', kind: 'compact_boundary', detail: { pre_tokens: 1 } }, off);
  expect(pyVerify(file)).toMatchObject({ ok: true, count: 10, mutation_count: 3 });
  expect(verifyRunJournal(file).ok).toBe(true);
});

test('a flagged mutation written by Python fails closed in stepchain at the same index', () => {
  const file = path.join(fresh(), 'journal.jsonl');
  pyWrite(file, [
    { event: 'start', data: {} },
    { mutation: { kind: 'compact_boundary', detail: {}, step_index: 0, flagged: true, agent_id: 'a' } },
  ]);
  const r = verifyRunJournal(file);
  const p = pyVerify(file);
  expect(p).toMatchObject({ ok: false, chain_ok: true, flagged_indices: [1] });
  expect(r).toMatchObject({ ok: false, chain_ok: true, flagged_indices: [1] });
});

test('journals written by stepchain verify under the Python reference, with the same mutations', () => {
  const dir = fresh();
  payloads.forEach((p, i) => recordRunEvent(dir, 'ts', `e${i}`, p, off));
  recordCapability(dir, 'ts', 'claude', 'observed', off);
  recordMutation(
    dir,
    'ts',
    { agentId: 'a', kind: 'compact_boundary', detail: { trigger: 'manual', pre_tokens: 5, before_summary: 'x' } },
    off,
  );
  recordMutation(
    dir,
    'ts',
    { agentId: 'a', kind: 'compact_boundary' },
    { env: { STEPCHAIN_AUDIT: 'off', STEPCHAIN_DETERMINISTIC_SEED: '7' } },
  );
  const file = runJournalFile(dir, 'ts');
  const ours = verifyRunJournal(file);
  const theirs = pyVerify(file);
  expect(theirs).toMatchObject({ chain_ok: true, count: 7, mutation_count: 2, flagged_indices: [6], ok: false });
  expect(ours).toMatchObject({ chain_ok: true, count: 7, mutation_count: 2, flagged_indices: [6], ok: false });
});

test('the same mutation reported to both sides gets the same digests and content address', () => {
  const dir = fresh();
  const detail = { trigger: 'auto', pre_tokens: 90000, before_messages: 41, post_tokens: 1200 };
  recordMutation(dir, 'x', { agentId: 'a', kind: 'compact_boundary', detail, stepIndex: 3 }, off);
  const file = path.join(dir, 'py.jsonl');
  pyWrite(file, [{ mutation: { kind: 'compact_boundary', detail, step_index: 3, agent_id: 'a' } }]);
  const ours = (require('node:fs').readFileSync(runJournalFile(dir, 'x'), 'utf8') as string)
    .split('", "event_hash": "')[1]!
    .split('", ')[1];
  const theirs = (require('node:fs').readFileSync(file, 'utf8') as string)
    .split('", "event_hash": "')[1]!
    .split('", ')[1];
  expect(ours).toBe(theirs); // the payload part of the line, byte for byte
});

test('tampering is found by both sides at the same index with the same expected hash', () => {
  const dir = fresh();
  ['a', 'b', 'c', 'd'].forEach((t) => recordRunEvent(dir, 'r', 'response', { text: t }, off));
  const file = runJournalFile(dir, 'r');
  const fs = require('node:fs') as typeof import('node:fs');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"text": "c"', '"text": "C"'));
  const ours = verifyRunJournal(file);
  const theirs = pyVerify(file);
  expect(theirs).toMatchObject({ chain_ok: false, divergent_index: 2 });
  expect(ours).toMatchObject({
    chain_ok: false,
    divergent_index: 2,
    expected_hash: theirs.expected_hash,
    actual_hash: theirs.actual_hash,
  });
});

test('diff agrees with the Python reference on every reason code', () => {
  const dir = fresh();
  const mk = (id: string, events: [string, Record<string, string>][], mutationAt?: number): string => {
    events.forEach(([e, d], i) => {
      if (i === mutationAt)
        recordMutation(dir, id, { agentId: 'a', kind: 'compact_boundary', detail: { pre_tokens: 1 } }, off);
      recordRunEvent(dir, id, e, d, off);
    });
    return runJournalFile(dir, id);
  };
  const ev: [string, Record<string, string>][] = [
    ['prompt', { t: 'go' }],
    ['response', { t: 'one' }],
    ['response', { t: 'two' }],
  ];
  const a = mk('a', ev);
  const cases = [
    mk('same', ev),
    mk('resp', [ev[0]!, ['response', { t: 'uno' }], ev[2]!]),
    mk('short', ev.slice(0, 2)),
    mk('mut', ev, 2),
  ];
  for (const b of cases) {
    const theirs = JSON.parse(refPython('ref_run_journal.py', ['diff', a, b]));
    const ours = diffRuns(a, b);
    expect({
      diverged: ours.diverged,
      index: ours.index,
      reason_code: ours.reason_code,
      mutation_kind: ours.mutation_kind,
    }).toEqual(theirs);
  }
});
