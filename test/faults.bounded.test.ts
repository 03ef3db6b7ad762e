/**
 * Fault output is bounded for run journals and the audit log as for per-step
 * journals (docs/journal.md, "Fault output"): a run of one kind on consecutive
 * lines is one entry, at most MAX_LISTED_FAULTS entries are listed, every fault
 * is counted, and what was left out is said. And a fault left out of the list
 * still fails: `check` judges a run journal on its counts, not on the entries
 * it happens to list. Real files; the CLI's commands through runCli in this process (`cliInProcess`, the code the
 * bundle runs): what they print and their exit codes are the point here, not the process (other files run each of
 * these commands as a process).
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { appendAuditEvent, verifyAuditLog } from '../src/audit';
import { Journal, MAX_LISTED_FAULTS } from '../src/journal';
import { buildReceipt, loadReceipt, verifyReceipt } from '../src/receipt';
import { RunJournal, recordObserved, verifyRunJournal } from '../src/runs';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { rawTar } from './helpers/tar';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-bounded-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(root, 'checkpoint.key') };
let n = 0;

/** Run journal of one good row followed by `pairs` (garbage line, duplicated row): faults of alternating kinds. */
function interleavedRunJournal(pairs: number): string {
  const file = path.join(root, `p${n++}`, '.sdd', 'runs', 'r', 'journal.jsonl');
  new RunJournal(file, { env: ENV }).record([{ event: 'a', payload: new Map() }]);
  const good = readFileSync(file, 'utf8');
  appendFileSync(file, `not json\n${good}`.repeat(pairs));
  return file;
}

describe('run journals', () => {
  test('interleaved faults: at most MAX_LISTED_FAULTS entries, every fault counted, the rest said', async () => {
    const file = interleavedRunJournal(3000);
    const r = verifyRunJournal(file);
    expect(r.ok).toBe(false);
    expect(r.errors).toHaveLength(MAX_LISTED_FAULTS);
    // Each pair: malformed_json on the garbage line, index and prev_hash and event_hash mismatches on the copy.
    expect(r.fault_count).toBe(3000 * 4);
    expect(r.errors_omitted).toBe(r.fault_count - MAX_LISTED_FAULTS);
    const proj = path.dirname(path.dirname(path.dirname(path.dirname(file))));
    const c = await cliInProcess(['run', 'verify', 'r', '--root', proj], { env: ENV });
    expect(c.code).toBe(1);
    expectNoStack(c);
    expect(c.stdout).toContain(`FAIL ${file}: 12000 faults in 3001 rows`);
    const lines = c.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(MAX_LISTED_FAULTS + 1);
    expect(lines.at(-1)).toBe(`${file}: … and 11,000 more faults not listed`);
    const j = JSON.parse(
      (await cliInProcess(['run', 'verify', 'r', '--root', proj, '--json'], { env: ENV })).stdout,
    ) as {
      errors: unknown[];
      fault_count: number;
      errors_omitted: number;
    };
    expect(j.errors).toHaveLength(MAX_LISTED_FAULTS);
    expect(j).toMatchObject({ fault_count: 12000, errors_omitted: 11000 });
  });

  test('a run of 200,000 garbage lines is one entry', async () => {
    const file = path.join(root, `p${n++}`, 'journal.jsonl');
    mkdirSync(path.dirname(file));
    new RunJournal(file, { env: ENV }).record([{ event: 'a', payload: new Map() }]);
    appendFileSync(file, 'x\n'.repeat(200_000));
    const r = verifyRunJournal(file);
    expect(r.errors).toEqual([
      expect.objectContaining({ line: 2, last_line: 200_001, count: 200_000, kind: 'malformed_json' }),
    ]);
    const c = await cliInProcess(['run', 'verify', file], { env: ENV });
    expect(c.stderr).toBe(
      `${file}:2-200001: malformed_json: 200,000 faults on consecutive lines, the first: ${r.errors[0]!.message}\n`,
    );
  });

  test('check fails a run journal whose only error comes after MAX_LISTED_FAULTS listed warnings', async () => {
    const proj = path.join(root, `p${n++}`);
    mkdirSync(proj);
    const items = [];
    for (let i = 0; i < MAX_LISTED_FAULTS + 200; i++)
      items.push(
        { signal: { kind: 'compact_boundary', detail: { i } } },
        { event: { event: 'e', payload: new Map() } },
      );
    recordObserved(proj, 'r', 'claude', 'ag', items, { env: { ...ENV, STEPCHAIN_DETERMINISTIC_SEED: '1' } });
    const file = path.join(proj, '.sdd', 'runs', 'r', 'journal.jsonl');
    // The last row's payload edited: the one error, past every listed warning.
    const text = readFileSync(file, 'utf8');
    const cut = text.lastIndexOf('"event": "e"');
    writeFileSync(file, `${text.slice(0, cut)}"event": "E"${text.slice(cut + 12)}`);
    const v = verifyRunJournal(file);
    expect(v.errors.every((e) => e.kind === 'flagged_mutation')).toBe(true);
    expect(v.errors_omitted).toBeGreaterThan(0);
    const r = await cliInProcess(['check', '--root', proj, '--warn-flagged', '--json'], { env: ENV, cwd: proj });
    expectNoStack(r);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { items: { kind: string; ok: boolean }[]; faults: { kind: string }[] };
    expect(doc.items.find((i) => i.kind === 'run')).toMatchObject({ ok: false });
    expect(doc.faults.at(-1)).toMatchObject({ kind: 'faults_not_listed' });
  });
});

describe('the audit log', () => {
  test('interleaved faults: at most MAX_LISTED_FAULTS entries, every fault counted, the rest said', async () => {
    const proj = path.join(root, `p${n++}`);
    const dir = path.join(proj, '.sdd', 'audit');
    const keyFile = path.join(root, `audit-${n++}.key`);
    const key = Buffer.from('k'.repeat(64));
    writeFileSync(keyFile, key, { mode: 0o600 });
    appendAuditEvent(dir, key, 'e', { actor: 'a', resource_type: 'r', resource_id: 'r' });
    const day = path.join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
    );
    const good = readFileSync(day, 'utf8');
    appendFileSync(day, `garbage\n${good}`.repeat(2000));
    const r = verifyAuditLog(dir, key);
    expect(r.errors).toHaveLength(MAX_LISTED_FAULTS);
    expect(r.fault_count).toBe(2000 * 3); // malformed_json; prev_hmac_mismatch and hmac_mismatch on each copy
    expect(r.errors_omitted).toBe(r.fault_count - MAX_LISTED_FAULTS);
    const c = await cliInProcess(['audit', 'verify', '--root', proj, '--key', keyFile], { env: ENV });
    expect(c.code).toBe(1);
    expect(c.stdout).toContain('6000 faults');
    const lines = c.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(MAX_LISTED_FAULTS + 1);
    expect(lines.at(-1)).toBe(`${dir}: … and 5,000 more faults not listed`);
  });

  test('a run of garbage lines in one file is one entry, and never runs on into the next file', () => {
    const dir = path.join(root, `audit-${n++}`);
    const key = Buffer.from('k'.repeat(64));
    const T0 = Date.UTC(2026, 0, 2) * 1000;
    const f = { actor: 'a', resource_type: 'r', resource_id: 'r' };
    appendAuditEvent(dir, key, 'e', f, { nowMicros: T0 });
    appendAuditEvent(dir, key, 'e', f, { nowMicros: T0 + 86_400_000_000 });
    const [d1, d2] = readdirSync(dir).filter((x) => x.endsWith('.jsonl'));
    appendFileSync(path.join(dir, d1!), 'x\n'.repeat(5000));
    writeFileSync(path.join(dir, d2!), `x\n${readFileSync(path.join(dir, d2!), 'utf8')}`);
    const r = verifyAuditLog(dir, key);
    expect(r.errors.map((e) => [e.file, e.line, e.last_line, e.kind])).toEqual([
      [d1, 2, 5001, 'malformed_json'],
      [d2, 1, undefined, 'malformed_json'],
    ]);
    expect(r.fault_count).toBe(5001);
  });
});

describe('receipts', () => {
  test('a journal member with 3,000 interleaved faults: the count says all of them, not only the list overflow', async () => {
    const dir = path.join(root, `p${n++}`, '.sdd', 'runtime', 'journal', 'a');
    Journal.open(dir, { env: ENV }).append({ prompt: 'x' });
    const good = loadReceipt(buildReceipt(path.join(dir, '000000.jsonl')).bytes);
    const row = good.journal.toString('utf8');
    const tar = rawTar([
      { name: 'manifest.json', data: good.manifestBytes },
      { name: 'journal/000000.jsonl', data: row + `not json\n${row}`.repeat(3000) },
    ]);
    const r = verifyReceipt(tar);
    expect(r.ok).toBe(false);
    const listed = r.errors.filter((e) => e.kind !== 'too_many_faults');
    expect(listed.length).toBeLessThanOrEqual(1000);
    // malformed_json, then seq, prev_hash and step_hash mismatches on each copy (strict: canonical lines), and the
    // manifest's head and steps: every one counted.
    expect(r.fault_count).toBeGreaterThan(3000 * 3);
    const more = r.errors.at(-1)!;
    expect(more.kind).toBe('too_many_faults');
    expect(more.message).toBe(`${(r.fault_count - listed.length).toLocaleString('en-US')} more faults not listed`);
    const file = path.join(root, `bad-${n++}.tar`);
    writeFileSync(file, tar);
    const c = await cliInProcess(['receipt', 'verify', file], { env: ENV });
    expect(c.code).toBe(1);
    expect(c.stdout).toContain(`FAIL ${file}: ${r.fault_count} problems`);
  });
});

describe('the summary line', () => {
  test('counts in words that agree with the number: 1 fault in 1 row', async () => {
    const dir = path.join(root, `p${n++}`, '.sdd', 'runtime', 'journal', 'one');
    Journal.open(dir, { env: ENV }).append({ prompt: 'x' });
    const file = path.join(dir, '000000.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"prompt":"x"', '"prompt":"y"'));
    const c = await cliInProcess(['verify', file], { env: ENV });
    expect([c.code, c.stdout.trim()]).toEqual([1, `FAIL ${file}: 1 fault in 1 row`]);
    const run = path.join(root, `p${n++}`, '.sdd', 'runs', 'r', 'journal.jsonl');
    new RunJournal(run, { env: ENV }).record([{ event: 'a', payload: new Map() }]);
    writeFileSync(run, readFileSync(run, 'utf8').replace('"index": 0', '"index": 1'));
    const r = await cliInProcess(['run', 'verify', run], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL .*: \d+ faults? in 1 row\b/);
  });
});
