import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportReceipt, generateKeyPair, parsePrivateKey, publishReceipt } from '../src/receipt';
import { cli as runCli, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { python } from './helpers/python';
import { record, replayProject, SAMPLE } from './helpers/replay-fixture';

// The built CLI as a real process (stdout is a pipe: not a terminal). Run `npm run build` first.
const cli = (args: string[], cwd: string): CliResult => runCli(args, { cwd });
// What they print is the point, through runCli in this process (`cliInProcess`, the code the bundle runs; not a
// terminal either); replay's table and the first of each kind of error run the real process.
const cliIn = (args: string[], cwd: string): Promise<CliResult> => cliInProcess(args, { cwd });

const root = replayProject();
const file = record(root, 'agent-demo');
const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const heads = lines.map((l) => (JSON.parse(l) as { step_hash: string }).step_hash);
const head = heads[4]!;

// A tampered copy: one prompt edited, its stored hash kept.
const tamperedDir = path.join(root, 'tampered');
mkdirSync(tamperedDir);
const tampered = path.join(tamperedDir, '000000.jsonl');
writeFileSync(tampered, readFileSync(file, 'utf8').replace('Fix the bug', 'Fix THE bug'));

const noStack = (s: string): void => expect(s).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe('stepchain replay (not on a terminal)', () => {
  test('a table of steps, the chain verified', () => {
    const r = cli(['replay', 'agent-demo'], root);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.stdout.split('\n');
    expect(out[0]).toBe(`agent-demo: 5 steps, head ${head}, chain verified (${file})`);
    expect(out[2]).toMatch(/^seq +time \(UTC\) +model +tool +step +prompt$/);
    expect(out[3]).toMatch(
      new RegExp(
        `^ {2}0 {2}2023-11-14 22:13:20 +model-a +run +${heads[0]!.slice(0, 12)} {2}The test suite fails\\. Find out why\\.$`,
      ),
    );
    expect(out[5]).toMatch(/^ {2}2 .*model-b +edit_file +[0-9a-f]{12} {2}Fix the bug in add\(\)\.$/);
  });

  test('by directory and by file too; --limit', async () => {
    expect((await cliIn(['replay', path.dirname(file)], '/')).stdout).toContain('agent-demo: 5 steps');
    expect((await cliIn(['replay', path.relative(root, file)], root)).stdout).toContain('agent-demo: 5 steps');
    const r = await cliIn(['replay', 'agent-demo', '--limit', '2'], root);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(6);
    expect(r.stdout).toContain('… 3 more steps (--limit 2)');
  });

  test('--json: {agent_id, head_hash, steps, entries}, rows as stored (python3 reads them back equal)', async () => {
    const r = await cliIn(['replay', 'agent-demo', '--json', '--limit', '4'], root);
    expect(r.code).toBe(0);
    const check = python(
      [
        'import json, sys',
        'doc = json.loads(sys.stdin.read())',
        'rows = [json.loads(l) for l in open(sys.argv[1])]',
        'assert list(doc) == ["ok", "agent_id", "head_hash", "steps", "signature", "entries"], list(doc)',
        'assert doc["ok"] is True and doc["signature"] is None',
        'assert doc["steps"] == 5 and len(doc["entries"]) == 4',
        'assert doc["entries"] == rows[:4]',
        'assert [json.dumps(e, sort_keys=True, separators=(",", ":")) for e in doc["entries"]] == open(sys.argv[1]).read().split("\\n")[:4]',
        'print(doc["agent_id"], doc["head_hash"])',
      ].join('\n'),
      r.stdout,
      [file],
    );
    expect(check.trim()).toBe(`agent-demo ${head}`);
  });

  test('a broken chain: exit 1, every fault on stderr, nothing displayed (--json: one error document)', async () => {
    for (const [i, args] of [
      ['replay', tampered],
      ['replay', tampered, '--json'],
      ['show', tampered, '0'],
      ['show', tampered, '0', '--json'],
    ].entries()) {
      // The first as a real process (its exit code as a shell sees it), the others in this process.
      const r = i === 0 ? cli(args, root) : await cliIn(args, root);
      expect(r.code).toBe(1);
      if (args.includes('--json')) {
        const doc = JSON.parse(r.stdout) as {
          ok: boolean;
          error: { type: string; exit_code: number; faults: { line: number; kind: string }[] };
        };
        expect(doc).toMatchObject({ ok: false, error: { type: 'broken_chain_error', exit_code: 1 } });
        expect(doc.error.faults).toEqual([
          expect.objectContaining({ file: tampered, line: 3, kind: 'step_hash_mismatch' }),
        ]);
      } else expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(`^${tampered.replace(/[.]/g, '\\.')}:3: step_hash_mismatch: field tamper`, 'm'),
      );
      expect(r.stderr).toContain('the chain does not verify (1 fault); refusing to display it');
      noStack(r.stderr);
    }
  });

  test('input errors: exit 2, one line', async () => {
    for (const [i, args] of [
      ['replay', 'no-such-agent'],
      ['replay', '../x/y.jsonl'],
      ['replay', 'agent-demo', '--limit', 'x'],
      ['replay'],
      ['show', 'agent-demo'],
      ['show', 'agent-demo', '5'],
      ['show', 'agent-demo', '-1'],
    ].entries()) {
      // The first as a real process (its exit code as a shell sees it), the others in this process.
      const r = i === 0 ? cli(args, root) : await cliIn(args, root);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect((await cliIn(['show', 'agent-demo', '5'], root)).stderr).toContain(
      'step 5 is out of range (the journal has 5 steps, 0..4)',
    );
  });
});

describe('stepchain show', () => {
  test('one step in full with its blobs: sizes and previews', async () => {
    const r = await cliIn(['show', 'agent-demo', '1'], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('seq 1 (step 2 of 5)');
    expect(r.stdout).toContain('prompt      Read the implementation of add().');
    expect(r.stdout).toMatch(/blobs \(from .*\.sdd\/runtime\/cas\):/);
    expect(r.stdout).toMatch(/ {2}[0-9a-f]{64} {2}\(input\)\n {4}12 bytes\n {4}\| user turn 1\n/);
    expect(r.stdout).toMatch(/ {2}[0-9a-f]{64}\n {4}29 bytes\n {4}\| attachment: calc\.py contents\n/);
  });

  test('--json: the row as stored, its line and blobs', async () => {
    const r = await cliIn(['show', 'agent-demo', '3', '--json'], root);
    expect(r.code).toBe(0);
    const out = python(
      [
        'import json, sys',
        'd = json.loads(sys.stdin.read())',
        'assert d["seq"] == 3 and d["line"] == 4 and d["steps"] == 5',
        'assert json.dumps(d["entry"], sort_keys=True, separators=(",", ":")) == open(sys.argv[1]).read().split("\\n")[3]',
        'b = d["blobs"][0]',
        'print(b["input"], b["present"], b["size"], b["preview"].strip())',
      ].join('\n'),
      r.stdout,
      [file],
    );
    expect(out.trim()).toBe('True True 12 user turn 3');
    expect(r.stdout).toContain('"big":123456789012345678901234567890');
  });
});

describe('stepchain diff', () => {
  const other = replayProject();
  record(
    other,
    'same',
    SAMPLE.map((s) => ({ ...s, ts: 1 })),
  );
  record(
    other,
    'changed',
    SAMPLE.map((s, i) => (i === 2 ? { ...s, tool_result: { ok: false } } : s)),
  );
  record(other, 'longer', [...SAMPLE, { prompt: 'one more' }]);

  test('same journals: exit 0', async () => {
    const r = await cliIn(['diff', file, path.join(other, '.sdd/runtime/journal/same')], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^same: .* have the same 5 steps/m);
    expect(r.stdout).toMatch(/^left {2}.*: chain verified, 5 steps, head [0-9a-f]{64}$/m);
  });

  test('the first divergence by field: exit 1', async () => {
    const r = await cliIn(['diff', 'agent-demo', 'changed', '--root', other, '--json'], root);
    // agent-demo is looked up under --root too: give the left as a path.
    expect(r.code).toBe(2);
    const j = await cliIn(['diff', file, 'changed', '--root', other, '--json'], root);
    expect(j.code).toBe(1);
    const d = JSON.parse(j.stdout) as Record<string, unknown>;
    expect(d).toMatchObject({
      diverged: true,
      reason: 'step_mismatch',
      seq: 2,
      fields_changed: ['tool_result'],
      left_steps: 5,
      right_steps: 5,
    });
    expect((d.left as { tool_result: unknown }).tool_result).toEqual({ ok: true, ratio: 1 });
    expect((d.right as { tool_result: unknown }).tool_result).toEqual({ ok: false });
    expect(j.stdout).toContain('"ratio":1.0');
    const t = await cliIn(['diff', file, 'changed', '--root', other], root);
    expect(t.code).toBe(1);
    expect(t.stdout).toContain('diverged at step 2: tool_result differs');
    expect(t.stdout).toContain('    - {"ok":true,"ratio":1.0}');
    expect(t.stdout).toContain('    + {"ok":false}');
  });

  test('a length mismatch: exit 1 with both lengths', async () => {
    const j = await cliIn(['diff', file, 'longer', '--root', other, '--json'], root);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({
      diverged: true,
      reason: 'length_mismatch',
      seq: 5,
      left_steps: 5,
      right_steps: 6,
      left: null,
    });
    expect((await cliIn(['diff', file, 'longer', '--root', other], root)).stdout).toContain(
      'diverged at step 5: length_mismatch',
    );
  });
});

describe('receipts', () => {
  const out = path.join(root, 'receipts');
  mkdirSync(out, { recursive: true });
  const plain = path.join(out, 'run.tar.gz');
  exportReceipt(file, plain);
  const redacted = path.join(out, 'published.tar');
  publishReceipt(file, redacted, { optIn: true });
  const keys = generateKeyPair();
  writeFileSync(path.join(out, 'pub.pem'), keys.publicKeyPem);
  const signed = path.join(out, 'signed.tar');
  exportReceipt(file, signed, { signKey: parsePrivateKey(Buffer.from(keys.privateKeyPem), 'key') });
  writeFileSync(path.join(out, 'other.pem'), generateKeyPair().publicKeyPem);

  test('a receipt is verified, then walked from memory with its bundled blobs', async () => {
    const r = await cliIn(['replay', plain], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`agent-demo: 5 steps, head ${head}, chain verified (receipt ${plain}, unsigned)`);
    expect(r.stdout).toContain('Fix the bug in add().');
    const s = await cliIn(['show', plain, '1'], root);
    expect(s.stdout).toContain('blobs (from run.tar.gz:blobs/):');
    expect(s.stdout).toContain('| attachment: calc.py contents');
  });

  test('a redacted receipt shows <<redacted>> plainly', async () => {
    const r = await cliIn(['replay', redacted], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('redacted');
    expect(r.stdout).toMatch(/ {2}0 .* run +[0-9a-f]{12} {2}<<redacted>>$/m);
    const s = await cliIn(['show', redacted, '0'], root);
    expect(s.stdout).toContain('prompt      <<redacted>>');
    expect(s.stdout).toContain('tool_result <<redacted>>');
  });

  test('signed: shown as unchecked without a key, checked with the right key, refused with a wrong one', async () => {
    // One meaning of "signed": shown, marked, and never a green verdict (exit 1).
    const unchecked = await cliIn(['replay', signed], root);
    expect(unchecked.stdout).toContain('signature NOT checked');
    expect(unchecked.code).toBe(1);
    expect(unchecked.stderr).toContain('signature NOT checked');
    const good = await cliIn(['replay', signed, '--public-key', path.join(out, 'pub.pem')], root);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('signature ✓');
    const bad = await cliIn(['replay', signed, '--public-key', path.join(out, 'other.pem')], root);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('signature_invalid');
  });

  test('a tampered receipt: exit 1, faults, nothing displayed', async () => {
    const raw = path.join(out, 'tampered.tar');
    exportReceipt(file, raw);
    const t = readFileSync(raw);
    const i = t.indexOf('Fix the bug');
    expect(i).toBeGreaterThan(0);
    t.write('Fix THE bug', i, 'latin1');
    writeFileSync(raw, t);
    const r = await cliIn(['replay', raw], root);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/tampered\.tar:journal\/000000\.jsonl:3: step_hash_mismatch/);
    expect(r.stderr).toContain('the receipt does not verify');
    writeFileSync(path.join(out, 'garbage.tar'), 'not a tar');
    const g = await cliIn(['replay', path.join(out, 'garbage.tar')], root);
    expect(g.code).toBe(1);
    expect(g.stderr).toContain('garbage.tar: not_a_receipt: ');
    expect((await cliIn(['replay', path.join(out, 'missing.tar')], root)).code).toBe(2);
  });
});
