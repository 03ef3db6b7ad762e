import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { canonical } from '../src/canonical';
import {
  ingestClaudeStream,
  readClaudeStream,
  runJournalFile,
  verifyRunJournal,
  type RunRecordOptions,
} from '../src/runs';
import { sha256Hex } from '../src/util/hash';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { repoRoot } from './helpers/paths';
import { refPython } from './helpers/python';
import { freshDir, tempDir } from './helpers/tmp';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'claude');
const fixture = (name: string): string => path.join(fixtures, name);
const base = tempDir('stepchain-ingest-');
const project = (): string => freshDir(base);
/** `stepchain run ingest r --agent a --claude-stream <stream> --root <root>` and `extra`. */
const ingest = (stream: string, root: string, ...extra: string[]): string[] => [
  ...['run', 'ingest', 'r', '--agent', 'a', '--claude-stream', stream, '--root', root],
  ...extra,
];
// The commands run through runCli in this process (`cliInProcess`, the code the bundle runs): what they write and
// print is the point; the transcript read from stdin (a pipe into the bin) stays a real process.
const off: RunRecordOptions = { env: { STEPCHAIN_AUDIT: 'off' } };

test('a transcript with compactions and a server-side context edit: capability observed, every signal chained in order', () => {
  const root = project();
  const r = ingestClaudeStream(
    root,
    'run1',
    'agent-1',
    readFileSync(fixture('compact-session.jsonl')),
    'compact-session.jsonl',
    off,
  );
  expect(r.transcript).toMatchObject({
    events: 9,
    assistantTurns: 3,
    sessionId: '5b1f7d2e-0c55-4c6b-9e0a-2f4c1d7a9b10',
  });
  expect(r.capabilityRow?.payload.get('capability')).toBe('observed');
  expect(r.mutations.map((m) => [m.row.index, m.mutation.kind, m.mutation.step_index, m.mutation.flagged])).toEqual([
    [1, 'compact_boundary', 0, false],
    [2, 'clear_tool_uses_20250919', 1, false],
    [3, 'compact_boundary', 2, false],
  ]);
  // The provider's report is the detail: pre_* fields are the before state.
  const first = r.mutations[0]!.mutation;
  expect(first.before_digest).toBe(sha256Hex(canonical({ pre_tokens: 167353 })));
  expect(first.after_digest).toBe(sha256Hex(canonical({ trigger: 'auto', pre_tokens: 167353 })));
  expect(r.mutations[1]!.mutation.before_digest).toBe(sha256Hex('{}'));
  const v = verifyRunJournal(r.file);
  expect(v).toMatchObject({
    ok: true,
    count: 4,
    mutation_count: 3,
    capabilities: [{ adapter: 'claude', capability: 'observed' }],
  });
  expect(JSON.parse(refPython('ref_run_journal.py', ['verify', r.file]))).toMatchObject({
    ok: true,
    count: 4,
    mutation_count: 3,
  });
});

test('ingesting a second session continues the agent’s step indices; the capability is not repeated', () => {
  const root = project();
  ingestClaudeStream(root, 'r', 'a', readFileSync(fixture('compact-session.jsonl')), 'x', off);
  const again = ingestClaudeStream(root, 'r', 'a', readFileSync(fixture('microcompact.jsonl')), 'y', off);
  expect(again.capabilityRow).toBeUndefined();
  expect(again.mutations.map((m) => [m.mutation.kind, m.mutation.step_index])).toEqual([['microcompact_boundary', 3]]);
  expect(again.mutations[0]!.mutation.before_digest).toBe(sha256Hex(canonical({ pre_tokens: 52000 })));
  const other = ingestClaudeStream(root, 'r', 'b', readFileSync(fixture('compact-session.jsonl')), 'z', off);
  expect(other.mutations[0]!.mutation.step_index).toBe(0);
});

test('a transcript without mutation signals records only the capability (absence is distinguishable from blindness)', () => {
  const root = project();
  const r = ingestClaudeStream(root, 'r', 'a', readFileSync(fixture('no-mutations.jsonl')), 'x', off);
  expect(r.mutations).toEqual([]);
  expect(verifyRunJournal(r.file)).toMatchObject({ ok: true, count: 1, mutation_count: 0 });
});

test('a run that declared claude blind refuses an observed transcript', async () => {
  const root = project();
  expect(
    (
      await cliInProcess([
        'run',
        'capability',
        'r',
        '--adapter',
        'claude',
        '--capability',
        'declared-blind',
        '--root',
        root,
      ])
    ).code,
  ).toBe(0);
  const before = readFileSync(runJournalFile(root, 'r'));
  const r = await cliInProcess(ingest(fixture('compact-session.jsonl'), root));
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/already recorded as declared-blind/);
  expect(readFileSync(runJournalFile(root, 'r')).equals(before)).toBe(true);
});

test('deterministic mode: every ingested mutation is flagged and verify fails closed', async () => {
  const root = project();
  const r = await cliInProcess(ingest(fixture('compact-session.jsonl'), root, '--json'), {
    env: { BERNSTEIN_REPLAY_RUN_ID: 'replay-1' },
  });
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout);
  expect(doc.mutations.map((m: { flagged: boolean }) => m.flagged)).toEqual([true, true, true]);
  expect(doc.capability_recorded).toBe(true);
  const v = await cliInProcess(['run', 'verify', 'r', '--root', root]);
  expect(v.code).toBe(1);
  expect(v.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(/journal\.jsonl:2: flagged_mutation at index 1: .*compact_boundary/),
    expect.stringMatching(/journal\.jsonl:3: flagged_mutation at index 2: .*clear_tool_uses_20250919/),
    expect.stringMatching(/journal\.jsonl:4: flagged_mutation at index 3: .*compact_boundary/),
  ]);
});

test('reads the transcript from stdin with -', () => {
  const root = project();
  const r = cli(ingest('-', root), {
    input: readFileSync(fixture('microcompact.jsonl')),
  });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/1 context mutation/);
});

test.each([
  ['bad-line.jsonl', /bad-line\.jsonl:2: not a stream-json event: /],
  ['not-object.jsonl', /not-object\.jsonl:2: not a stream-json event: not a JSON object/],
])('a bad line in %s: one line naming file and line, exit 2, nothing written', async (name, msg) => {
  const root = project();
  const r = await cliInProcess(ingest(fixture(name), root));
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(msg);
  expectNoStack(r);
  expect(existsSync(path.join(root, '.sdd'))).toBe(false);
});

test('other unreadable transcripts are input errors', async () => {
  expect(() => readClaudeStream(Buffer.from('\n\n'), 'empty.jsonl')).toThrow(/empty\.jsonl: transcript has no events/);
  expect(() => readClaudeStream(Buffer.from([0xff, 0x0a]), 'bin.jsonl')).toThrow(
    /bin\.jsonl:1: transcript is not valid UTF-8/,
  );
  expect(() => readClaudeStream(Buffer.from('{"no_type": 1}\n'), 't.jsonl')).toThrow(/t\.jsonl:1: .*no string "type"/);
  const root = project();
  const r = await cliInProcess(ingest(path.join(root, 'missing.jsonl'), root));
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/missing\.jsonl: cannot read transcript: no such file/);
});
