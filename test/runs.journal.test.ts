import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from '../src/canonical';
import {
  computeEventHash,
  computePayloadHash,
  diffRuns,
  recordCapability,
  recordMutation,
  recordRunEvent,
  runJournalFile,
  verifyRunJournal,
  type RunRecordOptions,
} from '../src/runs';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { cliPath, repoRoot } from './helpers/paths';
import { freshDir, tempDir } from './helpers/tmp';

const base = tempDir('stepchain-runs-');
/** A fresh project root per test. */
const project = (): string => freshDir(base);
const off: RunRecordOptions = { env: { STEPCHAIN_AUDIT: 'off' } };
const lines = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const rowAt = (file: string, i: number): Map<string, unknown> =>
  parse(lines(file)[i]!, { objects: 'map' }) as Map<string, unknown>;

describe('run journal rows', () => {
  test('rows are insertion-ordered pretty JSON: envelope, event, chain fields, then the payload in its order', () => {
    const root = project();
    const data = new Map<string, import('../src/canonical').JsonValue>([
      ['zeta', 1],
      ['2', 'two'],
      ['alpha', [1.5, 'é']],
    ]);
    const { row, file } = recordRunEvent(root, 'r1', 'task_claimed', data, off);
    expect(file).toBe(path.join(root, '.sdd', 'runs', 'r1', 'journal.jsonl'));
    const line = lines(file)[0]!;
    expect(line).toMatch(
      /^\{"ts": \d+\.\d+, "elapsed_s": 0\.0, "index": 0, "event": "task_claimed", "prev_hash": "", "payload_hash": "[0-9a-f]{64}", "event_hash": "[0-9a-f]{64}", "zeta": 1, "2": "two", "alpha": \[1\.5, "\\u00e9"\]\}$/,
    );
    expect(row.payload_hash).toBe(computePayloadHash('task_claimed', data));
    expect(row.event_hash).toBe(computeEventHash('', 'task_claimed', row.payload_hash, 0));
    const r2 = recordRunEvent(root, 'r1', 'task_done', { ok: true }, off).row;
    expect(r2.index).toBe(1);
    expect(r2.prev_hash).toBe(row.event_hash);
    expect(verifyRunJournal(file)).toMatchObject({
      ok: true,
      chain_ok: true,
      count: 2,
      head_hash: r2.event_hash,
      errors: [],
    });
    expect(verifyRunJournal(file, { strict: true }).ok).toBe(true);
  });

  test('reserved payload keys, the mutation/capability event types and unsafe run ids are refused before anything is written', () => {
    const root = project();
    for (const k of ['ts', 'index', 'event', 'prev_hash', 'payload_hash', 'event_hash', 'elapsed_s']) {
      expect(() => recordRunEvent(root, 'r', 'x', { [k]: 1 }, off)).toThrow(/reserved/);
    }
    expect(() => recordRunEvent(root, 'r', 'provider_state_mutation', {}, off)).toThrow(/run mutation/);
    expect(() => recordRunEvent(root, 'r', 'provider_state_capability', {}, off)).toThrow(/run capability/);
    expect(() => recordRunEvent(root, '../x', 'e', {}, off)).toThrow(/unsafe run id/);
    expect(() => recordRunEvent(root, 'r', 'e', { x: NaN }, off)).toThrow(/NaN/);
    expect(existsSync(runJournalFile(root, 'r'))).toBe(false);
  });
});

describe('provider state', () => {
  test('a mutation is content-addressed over kind, digests and step; step indices count per agent', () => {
    const root = project();
    const a = recordMutation(
      root,
      'r',
      { agentId: 'a1', kind: 'compact_boundary', detail: { trigger: 'auto', pre_tokens: 90000 } },
      off,
    );
    const b = recordMutation(root, 'r', { agentId: 'a1', kind: 'compact_boundary', detail: {} }, off);
    const c = recordMutation(root, 'r', { agentId: 'a2', kind: 'compact_boundary' }, off);
    const d = recordMutation(root, 'r', { agentId: 'a2', kind: 'x', stepIndex: 7 }, off);
    expect([a, b, c, d].map((r) => r.mutations[0]!.mutation.step_index)).toEqual([0, 1, 0, 7]);
    expect(a.mutations[0]!.mutation.flagged).toBe(false);
    const file = a.file;
    expect([...rowAt(file, 0).keys()].slice(7)).toEqual([
      'mutation_kind',
      'before_digest',
      'after_digest',
      'step_index',
      'content_address',
      'flagged',
      'agent_id',
    ]);
    expect(verifyRunJournal(file)).toMatchObject({ ok: true, mutation_count: 4, flagged_indices: [] });
  });

  test.each([
    'STEPCHAIN_DETERMINISTIC_SEED',
    'STEPCHAIN_REPLAY_RUN_ID',
    'BERNSTEIN_DETERMINISTIC_SEED',
    'BERNSTEIN_REPLAY_RUN_ID',
  ])('with %s set a mutation is recorded flagged and verify fails closed naming index, kind and line', (v) => {
    const root = project();
    recordRunEvent(root, 'r', 'start', {}, off);
    const r = recordMutation(
      root,
      'r',
      { agentId: 'a', kind: 'compact_boundary' },
      { env: { STEPCHAIN_AUDIT: 'off', [v]: '42' } },
    );
    expect(r.deterministic).toBe(v);
    expect(r.mutations[0]!.mutation.flagged).toBe(true);
    const res = verifyRunJournal(r.file);
    expect(res).toMatchObject({ ok: false, chain_ok: true, flagged_indices: [1], mutation_count: 1 });
    expect(res.errors).toEqual([
      { line: 2, index: 1, kind: 'flagged_mutation', message: expect.stringContaining('compact_boundary') },
    ]);
  });

  test('a blank deterministic variable is not a deterministic mode', () => {
    const root = project();
    const r = recordMutation(
      root,
      'r',
      { agentId: 'a', kind: 'k' },
      { env: { STEPCHAIN_AUDIT: 'off', STEPCHAIN_DETERMINISTIC_SEED: '  ' } },
    );
    expect(r.mutations[0]!.mutation.flagged).toBe(false);
  });

  test('one capability per adapter per run: the same again is a no-op, a different one is refused', () => {
    const root = project();
    expect(recordCapability(root, 'r', 'claude', 'observed', off).row?.index).toBe(0);
    expect(recordCapability(root, 'r', 'claude', 'observed', off).row).toBeUndefined();
    expect(() => recordCapability(root, 'r', 'claude', 'declared-blind', off)).toThrow(/already recorded as observed/);
    expect(() => recordCapability(root, 'r', 'codex', 'blind', off)).toThrow(/observed or declared-blind/);
    expect(recordCapability(root, 'r', 'codex', 'declared-blind', off).row?.index).toBe(1);
    expect(verifyRunJournal(runJournalFile(root, 'r')).capabilities).toEqual([
      { adapter: 'claude', capability: 'observed' },
      { adapter: 'codex', capability: 'declared-blind' },
    ]);
  });
});

/** Rewrites a journal's rows through fn and re-chains nothing: a hand edit. */
function editLine(file: string, i: number, fn: (line: string) => string): void {
  const ls = lines(file);
  ls[i] = fn(ls[i]!);
  writeFileSync(file, `${ls.join('\n')}\n`);
}

/** Rebuilds every hash after an edit, as an attacker who knows the algorithm would. */
function rechain(file: string): void {
  let prev = '';
  const out: string[] = [];
  lines(file).forEach((l, i) => {
    const m = parse(l, { objects: 'map' }) as Map<string, import('../src/canonical').JsonValue>;
    const ev = m.get('event') as string;
    const ph = computePayloadHash(ev, m);
    const eh = computeEventHash(prev, ev, ph, i);
    m.set('prev_hash', prev).set('payload_hash', ph).set('event_hash', eh).set('index', i);
    out.push(require('../src/canonical').prettyInsertionOrder(m));
    prev = eh;
  });
  writeFileSync(file, `${out.join('\n')}\n`);
}

describe('verify fails closed', () => {
  function sample(): { root: string; file: string } {
    const root = project();
    recordRunEvent(root, 'r', 'start', { task: 't' }, off);
    recordCapability(root, 'r', 'claude', 'observed', off);
    recordMutation(root, 'r', { agentId: 'a', kind: 'compact_boundary', detail: { pre_tokens: 5 } }, off);
    recordRunEvent(root, 'r', 'response', { text: 'done' }, off);
    return { root, file: runJournalFile(root, 'r') };
  }

  test('a payload edit: divergent index with expected and stored hash', () => {
    const { file } = sample();
    const stored = rowAt(file, 3).get('event_hash');
    editLine(file, 3, (l) => l.replace('"done"', '"DONE"'));
    const r = verifyRunJournal(file);
    expect(r).toMatchObject({ ok: false, chain_ok: false, divergent_index: 3, actual_hash: stored });
    expect(r.expected_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.expected_hash).not.toBe(stored);
    expect(r.errors.map((e) => [e.line, e.index, e.kind])).toEqual([
      [4, 3, 'payload_hash_mismatch'],
      [4, 3, 'event_hash_mismatch'],
    ]);
  });

  test('a deleted row breaks the chain at exactly its index', () => {
    const { file } = sample();
    const ls = lines(file);
    ls.splice(1, 1);
    writeFileSync(file, `${ls.join('\n')}\n`);
    const r = verifyRunJournal(file);
    expect(r.divergent_index).toBe(1);
    expect(r.errors.map((e) => e.kind)).toEqual(expect.arrayContaining(['index_mismatch', 'prev_hash_mismatch']));
  });

  test('an edited index or prev_hash alone leaves the event hash whole: the reason names the fault, not two equal hashes', async () => {
    for (const [field, edit, reason] of [
      ['index', (l: string) => l.replace('"index": 2', '"index": 7'), 'index_mismatch: index 7, expected 2'],
      [
        'prev_hash',
        (l: string) => l.replace(/"prev_hash": "[0-9a-f]{4}/, '"prev_hash": "ffff'),
        'prev_hash_mismatch: chain break: prev_hash ',
      ],
    ] as const) {
      const { file } = sample();
      editLine(file, 2, edit);
      const r = verifyRunJournal(file);
      expect([field, r.divergent_index, r.expected_hash === r.actual_hash]).toEqual([field, 2, true]);
      expect(r.divergent_reason?.startsWith(reason)).toBe(true);
      const out = await cliInProcess(['run', 'verify', file], { env: { STEPCHAIN_AUDIT: 'off' } });
      expect(out.code).toBe(1);
      expect(out.stdout).toContain(`; chain diverges at index 2 (${reason}`);
      expect(out.stdout).not.toContain('stored');
    }
  });

  test('a mutation removed and the chain rebuilt verifies as a chain but not against the original head', () => {
    const { file } = sample();
    const head = verifyRunJournal(file).head_hash;
    const ls = lines(file);
    ls.splice(2, 1);
    writeFileSync(file, `${ls.join('\n')}\n`);
    rechain(file);
    const r = verifyRunJournal(file);
    expect(r.ok).toBe(true);
    expect(r.head_hash).not.toBe(head);
  });

  test('a content address that does not match its fields fails even with a rebuilt chain', () => {
    const { file } = sample();
    editLine(file, 2, (l) => l.replace('"step_index": 0', '"step_index": 5'));
    rechain(file);
    const r = verifyRunJournal(file);
    expect(r).toMatchObject({ ok: false, chain_ok: true, divergent_index: null });
    expect(r.errors).toEqual([
      {
        line: 3,
        index: 2,
        kind: 'content_address_mismatch',
        message: expect.stringContaining('does not match its fields'),
      },
    ]);
  });

  test('a flag removed from a mutation is a payload edit', () => {
    const root = project();
    const r = recordMutation(
      root,
      'r',
      { agentId: 'a', kind: 'k' },
      { env: { STEPCHAIN_AUDIT: 'off', STEPCHAIN_REPLAY_RUN_ID: 'x' } },
    );
    editLine(r.file, 0, (l) => l.replace('"flagged": true', '"flagged": false'));
    expect(verifyRunJournal(r.file).errors.map((e) => e.kind)).toEqual([
      'payload_hash_mismatch',
      'event_hash_mismatch',
    ]);
  });

  test('conflicting capabilities for one adapter (a hand-written journal) fail', () => {
    const { file } = sample();
    editLine(file, 3, (l) =>
      l
        .replace('"event": "response"', '"event": "provider_state_capability"')
        .replace('"text": "done"', '"adapter": "claude", "capability": "declared-blind"'),
    );
    rechain(file);
    expect(verifyRunJournal(file).errors.map((e) => [e.index, e.kind])).toEqual([[3, 'capability_conflict']]);
  });

  test('a malformed interior line is reported with its line and does not advance the index', () => {
    const { file } = sample();
    editLine(file, 1, () => '{"torn": ');
    const r = verifyRunJournal(file);
    expect(r.errors[0]).toEqual({ line: 2, index: null, kind: 'malformed_json', message: expect.any(String) });
    expect(r.chain_ok).toBe(false);
  });

  test('bytes that are not json.dumps(row) but hash the same verify; --strict reports them', () => {
    const { file } = sample();
    editLine(file, 0, (l) => l.replace('{"ts": ', '{ "ts":'));
    expect(verifyRunJournal(file).ok).toBe(true);
    expect(verifyRunJournal(file, { strict: true }).errors).toEqual([
      { line: 1, index: 0, kind: 'non_canonical', message: expect.any(String) },
    ]);
    const r = cli(['run', 'verify', file, '--strict', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).errors[0].kind).toBe('non_canonical');
  });

  test('recording onto a journal that does not verify is refused and writes nothing', () => {
    const { root, file } = sample();
    editLine(file, 0, (l) => l.replace('"t"', '"T"'));
    const before = readFileSync(file);
    expect(() => recordRunEvent(root, 'r', 'more', {}, off)).toThrow(
      /journal\.jsonl:1: payload_hash_mismatch at index 0: .*refusing to append.*\.corrupt/,
    );
    expect(() => recordMutation(root, 'r', { agentId: 'a', kind: 'k' }, off)).toThrow(/refusing to append/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  test('recording onto a journal with a flagged mutation is allowed (the run keeps its record)', () => {
    const root = project();
    recordMutation(
      root,
      'r',
      { agentId: 'a', kind: 'k' },
      { env: { STEPCHAIN_AUDIT: 'off', STEPCHAIN_DETERMINISTIC_SEED: '1' } },
    );
    expect(recordRunEvent(root, 'r', 'next', {}, off).row.index).toBe(1);
  });

  test('a torn final line is moved aside and the chain continues; a complete row without its newline is finished', () => {
    const root = project();
    const { file } = recordRunEvent(root, 'r', 'a', {}, off);
    appendFileSync(file, '{"ts": 1.0, "elapsed_s": 0.0, "ind');
    expect(recordRunEvent(root, 'r', 'b', {}, off).row.index).toBe(1);
    const torn = readdirSync(path.dirname(file)).filter((f) => f.includes('.torn-'));
    expect(torn).toHaveLength(1);
    expect(readFileSync(path.join(path.dirname(file), torn[0]!), 'utf8')).toBe('{"ts": 1.0, "elapsed_s": 0.0, "ind');
    const bytes = readFileSync(file, 'utf8');
    writeFileSync(file, bytes.slice(0, -1));
    expect(recordRunEvent(root, 'r', 'c', {}, off).row.index).toBe(2);
    expect(verifyRunJournal(file, { strict: true })).toMatchObject({ ok: true, count: 3 });
  });
});

describe('diff', () => {
  function run(
    root: string,
    id: string,
    events: [string, Record<string, import('../src/canonical').JsonValue>][],
    mutationAt?: number,
  ): string {
    events.forEach(([e, d], i) => {
      if (i === mutationAt)
        recordMutation(root, id, { agentId: 'a', kind: 'compact_boundary', detail: { pre_tokens: 10 } }, off);
      recordRunEvent(root, id, e, d, off);
    });
    return runJournalFile(root, id);
  }
  const ev: [string, Record<string, import('../src/canonical').JsonValue>][] = [
    ['prompt', { text: 'fix it' }],
    ['response', { text: 'reading' }],
    ['response', { text: 'fixed' }],
  ];

  test('identical runs recorded at different times do not diverge', () => {
    const root = project();
    expect(diffRuns(run(root, 'a', ev), run(root, 'b', ev))).toEqual({
      diverged: false,
      index: null,
      reason: 'identical: 3 rows match',
      reason_code: null,
      mutation_kind: null,
      fields_changed: [],
    });
  });

  test('response_mismatch, length_mismatch and provider_state_mutation with the kind', () => {
    const root = project();
    const a = run(root, 'a', ev);
    const b = run(root, 'b', [ev[0]!, ev[1]!, ['response', { text: 'gave up' }]]);
    expect(diffRuns(a, b)).toMatchObject({
      diverged: true,
      index: 2,
      reason_code: 'response_mismatch',
      mutation_kind: null,
    });
    const c = run(root, 'c', ev.slice(0, 2));
    expect(diffRuns(a, c)).toMatchObject({ diverged: true, index: 2, reason_code: 'length_mismatch' });
    const d = run(root, 'd', ev, 1);
    expect(diffRuns(a, d)).toMatchObject({
      diverged: true,
      index: 1,
      reason_code: 'provider_state_mutation',
      mutation_kind: 'compact_boundary',
    });
    expect(diffRuns(a, d).reason).toMatch(/compact_boundary at step 0 in run B has no counterpart in run A/);
  });

  test('a journal whose chain does not verify cannot be diffed', () => {
    const root = project();
    const a = run(root, 'a', ev);
    const b = run(root, 'b', ev);
    editLine(b, 1, (l) => l.replace('reading', 'READING'));
    expect(() => diffRuns(a, b)).toThrow(/journal\.jsonl:2: payload_hash_mismatch.*cannot diff/);
  });
});

// The first record and the first usage error run the real process; the rest through runCli in this process
// (`cliInProcess`, the code the bundle runs): each command's exit code, document and message are the point.
describe('CLI', () => {
  test('record, capability, mutation, verify and diff: exit codes and JSON', async () => {
    const root = project();
    const env = { STEPCHAIN_AUDIT: 'off' };
    expect(
      cli(['run', 'record', 'r', '--event', 'start', '--data', '{"b": 1, "a": 2}', '--root', root], { env }).code,
    ).toBe(0);
    const sc = (argv: string[], e: NodeJS.ProcessEnv = env) => cliInProcess(argv, { env: e });
    expect(
      (await sc(['run', 'capability', 'r', '--adapter', 'claude', '--capability', 'observed', '--root', root])).code,
    ).toBe(0);
    const again = await sc([
      'run',
      'capability',
      'r',
      '--adapter',
      'claude',
      '--capability',
      'declared-blind',
      '--root',
      root,
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already recorded as observed/);
    const m = await cliInProcess(
      [
        'run',
        'mutation',
        'r',
        '--agent',
        'a',
        '--kind',
        'compact_boundary',
        '--detail',
        '{"pre_tokens": 3}',
        '--json',
        '--root',
        root,
      ],
      { env },
    );
    expect(m.code).toBe(0);
    expect(JSON.parse(m.stdout)).toMatchObject({
      index: 2,
      kind: 'compact_boundary',
      step_index: 0,
      flagged: false,
      warnings: [],
    });
    const ok = await sc(['run', 'verify', 'r', '--json', '--root', root]);
    expect(ok.code).toBe(0);
    expect(Object.keys(JSON.parse(ok.stdout))).toEqual(
      expect.arrayContaining([
        'ok',
        'chain_ok',
        'count',
        'divergent_index',
        'expected_hash',
        'actual_hash',
        'mutation_count',
        'flagged_indices',
        'capabilities',
        'errors',
        'head_hash',
        'steps',
      ]),
    );
    const flagged = await sc(['run', 'mutation', 'r', '--agent', 'a', '--kind', 'compact_boundary', '--root', root], {
      ...env,
      STEPCHAIN_REPLAY_RUN_ID: 'rr',
    });
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toMatch(/STEPCHAIN_REPLAY_RUN_ID is set/);
    const bad = await sc(['run', 'verify', path.join(root, '.sdd', 'runs', 'r'), '--root', root]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/journal\.jsonl:4: flagged_mutation at index 3: .*compact_boundary/);
    expectNoStack(bad);
  });

  test('usage and input errors exit 2 with one line', async () => {
    const root = project();
    const env = { STEPCHAIN_AUDIT: 'off' };
    for (const [k, argv] of [
      ['run', 'record', 'r', '--root', root],
      ['run', 'record', 'r', '--event', 'e', '--data', '[1]', '--root', root],
      ['run', 'record', 'r', '--event', 'e', '--data', '{"ts": 1}', '--root', root],
      ['run', 'record', '../r', '--event', 'e', '--root', root],
      ['run', 'mutation', 'r', '--kind', 'k', '--root', root],
      ['run', 'mutation', 'r', '--agent', 'a/b', '--kind', 'k', '--root', root],
      ['run', 'capability', 'r', '--adapter', 'x', '--capability', 'maybe', '--root', root],
      ['run', 'verify', 'nope', '--root', root],
      ['run', 'diff', 'a', '--root', root],
    ].entries()) {
      const r = k === 0 ? cli(argv, { env }) : await cliInProcess(argv, { env });
      expect([argv.join(' '), r.code]).toEqual([argv.join(' '), 2]);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expectNoStack(r);
    }
    expect(existsSync(path.join(root, '.sdd', 'runs'))).toBe(false);
  });

  test('two processes recording into one run keep one unbroken chain', async () => {
    const root = project();
    const N = 15;
    const writer = (who: string): Promise<number> =>
      new Promise((resolve) => {
        const script = `
          require(${JSON.stringify(path.join(repoRoot, 'test', 'helpers', 'swc-register.js'))});
          const { recordRunEvent, recordMutation } = require(${JSON.stringify(path.join(repoRoot, 'src', 'runs'))});
          const opts = { env: { STEPCHAIN_AUDIT: 'off' } };
          for (let i = 0; i < ${N}; i++) {
            if (i % 5 === 0) recordMutation(${JSON.stringify(root)}, 'r', { agentId: '${who}', kind: 'compact_boundary' }, opts);
            else recordRunEvent(${JSON.stringify(root)}, 'r', 'tick', { who: '${who}', i }, opts);
          }`;
        spawn(process.execPath, ['-e', script], { stdio: 'inherit' }).on('exit', (code) => resolve(code ?? -1));
      });
    expect(await Promise.all([writer('a'), writer('b')])).toEqual([0, 0]);
    const r = verifyRunJournal(runJournalFile(root, 'r'), { strict: true });
    expect(r).toMatchObject({ ok: true, count: 2 * N, mutation_count: 6 });
  });
});

test('the built CLI exists', () => {
  expect(existsSync(cliPath)).toBe(true);
});
